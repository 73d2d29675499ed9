//! Whether a sandbox process has finished starting (its `Ready` frame) or is gone, and who
//! waits for either: the cells whose clocks stand still meanwhile, and the worker about to
//! send the process its first command. Each waiter is told exactly once.

use parking_lot::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Told once the process is ready or gone; runs on whichever thread learnt it (a hub's
/// thread or the reaper), so it must be short and never block.
pub type Waiter = Box<dyn FnOnce() + Send>;

/// How often a wait looks at its caller's `keep_waiting` (an abort, say).
const SLICE: Duration = Duration::from_millis(20);

#[derive(Default)]
pub struct Boot {
    state: Mutex<State>,
    settled: Condvar,
}

#[derive(Default)]
struct State {
    ready: bool,
    gone: bool,
    waiters: Vec<Waiter>,
}

impl Boot {
    /// The process said it is ready: false if it had said so before.
    pub fn ready(&self) -> bool {
        let waiters = {
            let mut state = self.state.lock();
            if state.ready {
                return false;
            }
            state.ready = true;
            std::mem::take(&mut state.waiters)
        };
        self.settled.notify_all();
        waiters.into_iter().for_each(|waiter| waiter());
        true
    }

    /// The process is gone (or never started): nothing more will come.
    pub fn gone(&self) {
        let waiters = {
            let mut state = self.state.lock();
            state.gone = true;
            std::mem::take(&mut state.waiters)
        };
        self.settled.notify_all();
        waiters.into_iter().for_each(|waiter| waiter());
    }

    pub fn is_ready(&self) -> bool {
        self.state.lock().ready
    }

    /// Keeps `then` until the process is ready or gone; hands it back if it already is.
    pub fn when_settled(&self, then: Waiter) -> Result<(), Waiter> {
        let mut state = self.state.lock();
        if state.ready || state.gone {
            return Err(then);
        }
        state.waiters.push(then);
        Ok(())
    }

    /// Waits until the process is ready or gone (true), at most `limit` and only while
    /// `keep_waiting` says so (false).
    pub fn wait(&self, limit: Duration, keep_waiting: &dyn Fn() -> bool) -> bool {
        let until = Instant::now() + limit;
        let mut state = self.state.lock();
        loop {
            if state.ready || state.gone {
                return true;
            }
            let now = Instant::now();
            if now >= until || !keep_waiting() {
                return false;
            }
            let slice = SLICE.min(until - now);
            self.settled.wait_for(&mut state, slice);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn counting(count: &Arc<AtomicUsize>) -> Waiter {
        let count = count.clone();
        Box::new(move || {
            count.fetch_add(1, Ordering::SeqCst);
        })
    }

    #[test]
    fn each_waiter_is_told_once_and_late_ones_are_handed_back() {
        let boot = Boot::default();
        let told = Arc::new(AtomicUsize::new(0));
        assert!(boot.when_settled(counting(&told)).is_ok());
        assert!(boot.when_settled(counting(&told)).is_ok());
        assert!(boot.ready());
        assert_eq!(told.load(Ordering::SeqCst), 2);
        assert!(!boot.ready(), "a second Ready");
        boot.gone();
        assert_eq!(told.load(Ordering::SeqCst), 2);
        assert!(boot.when_settled(counting(&told)).is_err());
        assert!(boot.is_ready());
    }

    #[test]
    fn a_process_gone_before_it_was_ready_tells_its_waiters() {
        let boot = Boot::default();
        let told = Arc::new(AtomicUsize::new(0));
        assert!(boot.when_settled(counting(&told)).is_ok());
        boot.gone();
        assert_eq!(told.load(Ordering::SeqCst), 1);
        assert!(!boot.is_ready());
        assert!(boot.wait(Duration::from_secs(60), &|| true));
    }

    #[test]
    fn a_wait_ends_when_ready_elsewhere_or_when_its_caller_gives_up() {
        let boot = Arc::new(Boot::default());
        assert!(!boot.wait(Duration::from_secs(60), &|| false));
        let other = boot.clone();
        let thread = std::thread::spawn(move || other.ready());
        assert!(boot.wait(Duration::from_secs(60), &|| true));
        assert!(thread.join().unwrap_or(false));
    }
}
