//! One process-wide timer thread: cell deadlines, parked-run expiry and guest
//! `setTimeout`s fire from here as events pushed into a cell's inbox. Nothing here runs
//! guest code. Timers can be cancelled, so settled cells leave nothing behind.

use parking_lot::{Condvar, Mutex};
use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Instant;

type Action = Box<dyn FnOnce() + Send + 'static>;

/// Identifies a scheduled timer for `cancel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TimerKey(Instant, u64);

struct Timers {
    entries: Mutex<(BTreeMap<TimerKey, Action>, u64)>,
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
            entries: Mutex::new((BTreeMap::new(), 0)),
            wake: Condvar::new(),
        }
    })
}

/// Runs `action` on the timer thread at `at` (or soon after). Actions must be quick.
pub fn schedule(at: Instant, action: impl FnOnce() + Send + 'static) -> TimerKey {
    let timers = timers();
    let mut guard = timers.entries.lock();
    guard.1 += 1;
    let key = TimerKey(at, guard.1);
    // The thread sleeps until the earliest entry; only a new earliest entry must wake it
    // (most entries are cell deadlines seconds away, behind earlier ones).
    let earliest = guard.0.keys().next().is_none_or(|head| key < *head);
    guard.0.insert(key, Box::new(action));
    if earliest {
        timers.wake.notify_one();
    }
    key
}

/// Drops a timer that has not fired yet; a no-op for one that has.
pub fn cancel(key: TimerKey) {
    let removed = timers().entries.lock().0.remove(&key);
    // The action is dropped outside the lock: it may own the last reference to a cell.
    drop(removed);
}

/// Timers not yet fired (for leak checks).
pub fn pending() -> usize {
    timers().entries.lock().0.len()
}

fn run() {
    let timers = timers();
    loop {
        let mut due = Vec::new();
        {
            let mut guard = timers.entries.lock();
            loop {
                let now = Instant::now();
                match guard.0.first_key_value().map(|(key, _)| *key) {
                    Some(key) if key.0 <= now => {
                        if let Some(action) = guard.0.remove(&key) {
                            due.push(action);
                        }
                    }
                    Some(_) if !due.is_empty() => break,
                    Some(key) => {
                        timers.wake.wait_until(&mut guard, key.0);
                    }
                    None if !due.is_empty() => break,
                    None => timers.wake.wait(&mut guard),
                }
            }
        }
        for action in due {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(action));
        }
    }
}
