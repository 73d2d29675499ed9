//! Turns that never reach the interrupt handler. A cell whose turn is still running a
//! grace period after its deadline or abort is answered without its VM; the worker that
//! is stuck in it is replaced, and retires when the turn finally returns.

use crate::guest::control::now_ns;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How long a turn may outlive its deadline or abort before the watchdog answers for it.
/// The interrupt handler stops guest code within microseconds; only a built-in that never
/// calls it (a 2^32-element `join`, a huge BigInt `toString`, a pathological parse) or a
/// worker the kernel does not run for this long gets here.
pub const GRACE: Duration = Duration::from_millis(500);

const IDLE: u64 = 0;
const ABANDONED: u64 = u64::MAX;

/// Whether a worker is inside a turn of one cell, since when, and whether the watchdog
/// gave up on that turn. One atomic, so "the turn that began by then" is exact.
#[derive(Debug, Default)]
pub struct TurnWatch {
    started_ns: AtomicU64,
}

impl TurnWatch {
    pub fn enter(&self) {
        let now = now_ns().clamp(IDLE + 1, ABANDONED - 1);
        self.started_ns.store(now, Ordering::SeqCst);
    }

    /// Ends the turn; true if the watchdog gave up on it while it ran.
    pub fn leave(&self) -> bool {
        self.started_ns.swap(IDLE, Ordering::SeqCst) == ABANDONED
    }

    /// When the turn running now began; `None` between turns and once abandoned.
    pub fn started_ns(&self) -> Option<u64> {
        let started = self.started_ns.load(Ordering::SeqCst);
        (started != IDLE && started != ABANDONED).then_some(started)
    }

    pub fn is_abandoned(&self) -> bool {
        self.started_ns.load(Ordering::SeqCst) == ABANDONED
    }

    /// Gives up on the current turn if it began by `armed_ns`; a turn that began later
    /// armed its own check. True when this call gave up on it.
    pub fn abandon_if_started_by(&self, armed_ns: u64) -> bool {
        let started = self.started_ns.load(Ordering::SeqCst);
        started != IDLE
            && started != ABANDONED
            && started <= armed_ns
            && self
                .started_ns
                .compare_exchange(started, ABANDONED, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_turn_that_began_by_the_arming_is_abandoned() {
        let watch = TurnWatch::default();
        assert!(!watch.abandon_if_started_by(u64::MAX - 1), "no turn runs");
        watch.enter();
        let armed = now_ns();
        assert!(watch.abandon_if_started_by(armed));
        assert!(watch.is_abandoned());
        assert!(!watch.abandon_if_started_by(armed), "abandoned once");
        assert!(watch.leave());
        assert!(!watch.is_abandoned());

        let before = now_ns();
        std::thread::sleep(Duration::from_millis(2));
        watch.enter();
        assert!(
            !watch.abandon_if_started_by(before),
            "a later turn has its own arming"
        );
        assert!(!watch.leave());
    }
}
