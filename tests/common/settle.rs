//! Waiting on conditions instead of sleeping, and checking that runs leave nothing behind:
//! live cells, parked runs in the process-wide store, and runtime timers.

use codemode_native::run::cell::LIVE_CELLS;
use codemode_native::runtime::timer;
use codemode_native::session::store;
use parking_lot::{Mutex, MutexGuard};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How long a condition may take before a test gives up on it.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// Polls `done` until it holds or `within` passes; returns whether it held.
pub fn until(within: Duration, done: impl Fn() -> bool) -> bool {
    let give_up = Instant::now() + within;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= give_up {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Serialises the tests of one binary that count process-wide leftovers.
pub fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock()
}

/// The process-wide counts a test starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leftovers {
    pub cells: usize,
    pub parked: usize,
    pub timers: usize,
}

impl Leftovers {
    pub fn now() -> Leftovers {
        Leftovers {
            cells: LIVE_CELLS.load(Ordering::SeqCst),
            parked: store::global().len(),
            timers: timer::pending(),
        }
    }

    /// Waits until every count is back at (or below) this baseline; panics if it is not.
    pub fn assert_restored(&self) {
        let restored = until(PATIENCE, || {
            let now = Leftovers::now();
            now.cells <= self.cells && now.parked <= self.parked && now.timers <= self.timers
        });
        assert!(
            restored,
            "left behind: {:?} (baseline {:?})",
            Leftovers::now(),
            self
        );
    }
}
