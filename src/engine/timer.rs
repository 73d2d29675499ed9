//! One process-wide timer thread: cell deadlines and guest `setTimeout`s fire from here
//! as events pushed into the cell's inbox. Nothing here runs guest code.

use parking_lot::{Condvar, Mutex};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::OnceLock;
use std::time::Instant;

type Action = Box<dyn FnOnce() + Send + 'static>;

struct Entry {
    at: Instant,
    seq: u64,
    action: Action,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

struct Timers {
    heap: Mutex<(BinaryHeap<Reverse<Entry>>, u64)>,
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
            heap: Mutex::new((BinaryHeap::new(), 0)),
            wake: Condvar::new(),
        }
    })
}

/// Runs `action` on the timer thread at `at` (or soon after). Actions must be quick.
pub fn schedule(at: Instant, action: impl FnOnce() + Send + 'static) {
    let timers = timers();
    let mut guard = timers.heap.lock();
    guard.1 += 1;
    let seq = guard.1;
    guard.0.push(Reverse(Entry {
        at,
        seq,
        action: Box::new(action),
    }));
    timers.wake.notify_one();
}

fn run() {
    let timers = timers();
    loop {
        let mut due = Vec::new();
        {
            let mut guard = timers.heap.lock();
            loop {
                let now = Instant::now();
                match guard.0.peek() {
                    Some(Reverse(entry)) if entry.at <= now => {
                        if let Some(Reverse(entry)) = guard.0.pop() {
                            due.push(entry.action);
                        }
                    }
                    Some(Reverse(entry)) => {
                        if !due.is_empty() {
                            break;
                        }
                        let at = entry.at;
                        timers.wake.wait_until(&mut guard, at);
                    }
                    None => {
                        if !due.is_empty() {
                            break;
                        }
                        timers.wake.wait(&mut guard);
                    }
                }
            }
        }
        for action in due {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(action));
        }
    }
}
