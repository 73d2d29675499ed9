//! One process-wide timer thread: cell deadlines, parked-run expiry and guest
//! `setTimeout`s fire from here as events pushed into a cell's inbox. Nothing here runs
//! guest code. Timers can be cancelled, so settled cells leave nothing behind. The thread
//! is woken only by an entry earlier than the time it sleeps until.

use parking_lot::{Condvar, Mutex};
use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Instant;

type Action = Box<dyn FnOnce() + Send + 'static>;

/// Identifies a scheduled timer for `cancel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TimerKey(Instant, u64);

struct Entries {
    due: BTreeMap<TimerKey, Action>,
    /// The last key handed out.
    counter: u64,
    /// When the thread's wait ends: `None` while it runs actions, `Some(None)` while it
    /// waits with nothing due. Read and written under the lock, as the wait is entered.
    sleeping_until: Option<Option<Instant>>,
}

struct Timers {
    entries: Mutex<Entries>,
    wake: Condvar,
}

fn timers() -> &'static Timers {
    static TIMERS: OnceLock<Timers> = OnceLock::new();
    TIMERS.get_or_init(|| {
        let spawned = std::thread::Builder::new()
            .name("codemode-timers".into())
            .spawn(run);
        if spawned.is_err() {
            eprintln!("codemode-native: could not start the timer thread");
        }
        Timers {
            entries: Mutex::new(Entries {
                due: BTreeMap::new(),
                counter: 0,
                sleeping_until: None,
            }),
            wake: Condvar::new(),
        }
    })
}

/// Runs `action` on the timer thread at `at` (or soon after). Actions must be quick.
pub fn schedule(at: Instant, action: impl FnOnce() + Send + 'static) -> TimerKey {
    let timers = timers();
    let mut guard = timers.entries.lock();
    guard.counter += 1;
    let key = TimerKey(at, guard.counter);
    guard.due.insert(key, Box::new(action));
    // Only an entry before the end of the thread's wait must wake it. Its wait outlives a
    // cancelled entry, so a cell's deadline, cancelled when the cell answers, does not
    // wake it again for the next cell's later one (a wake per cell otherwise); a running
    // thread looks at the entries before it waits.
    let wake = match guard.sleeping_until {
        None => false,
        Some(None) => true,
        Some(Some(until)) => at < until,
    };
    if wake {
        guard.sleeping_until = None;
        timers.wake.notify_one();
    }
    key
}

/// Drops a timer that has not fired yet; a no-op for one that has.
pub fn cancel(key: TimerKey) {
    let removed = timers().entries.lock().due.remove(&key);
    // The action is dropped outside the lock: it may own the last reference to a cell.
    drop(removed);
}

/// Timers not yet fired (for leak checks).
pub fn pending() -> usize {
    timers().entries.lock().due.len()
}

fn run() {
    let timers = timers();
    loop {
        let mut due = Vec::new();
        {
            let mut guard = timers.entries.lock();
            loop {
                let now = Instant::now();
                match guard.due.first_key_value().map(|(key, _)| *key) {
                    Some(key) if key.0 <= now => {
                        if let Some(action) = guard.due.remove(&key) {
                            due.push(action);
                        }
                    }
                    Some(_) if !due.is_empty() => break,
                    Some(key) => {
                        guard.sleeping_until = Some(Some(key.0));
                        timers.wake.wait_until(&mut guard, key.0);
                    }
                    None if !due.is_empty() => break,
                    None => {
                        guard.sleeping_until = Some(None);
                        timers.wake.wait(&mut guard);
                    }
                }
                guard.sleeping_until = None;
            }
        }
        for action in due {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(action));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{cancel, schedule};
    use std::sync::mpsc::channel;
    use std::time::{Duration, Instant};

    #[test]
    fn an_entry_before_a_cancelled_later_wait_still_fires_first() {
        let (fired, order) = channel();
        // The thread sleeps until the far entry; cancelling it leaves that wait standing.
        let far = schedule(Instant::now() + Duration::from_secs(3600), || {});
        cancel(far);
        let later = fired.clone();
        let kept = schedule(Instant::now() + Duration::from_secs(7200), move || {
            let _ = later.send("late");
        });
        let soon = fired.clone();
        schedule(Instant::now() + Duration::from_millis(5), move || {
            let _ = soon.send("soon");
        });
        assert_eq!(
            order.recv_timeout(Duration::from_secs(10)),
            Ok("soon"),
            "an earlier entry wakes the thread"
        );
        cancel(kept);
    }

    #[test]
    fn an_entry_after_a_cancelled_earlier_wait_fires_when_that_wait_ends() {
        let (fired, done) = channel();
        // The thread sleeps until `first`; `second`, later, does not wake it, and must
        // still fire once that wait ends with nothing due.
        let first = schedule(Instant::now() + Duration::from_millis(20), || {});
        cancel(first);
        let second = Instant::now() + Duration::from_millis(40);
        schedule(second, move || {
            let _ = fired.send(Instant::now());
        });
        let at = done.recv_timeout(Duration::from_secs(10));
        assert!(
            at.is_ok_and(|at| at >= second),
            "fired, not before its time"
        );
    }
}
