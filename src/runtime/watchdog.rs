//! Turns that never reach the interrupt handler. A cell whose turn still runs a grace
//! period after its deadline or abort, having computed all along, is answered without
//! its VM; the worker stuck in it is replaced, and retires when the turn returns.

use crate::runtime::clock::now_ns;
use crate::runtime::cpu_clock;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

/// How long a turn may outlive its deadline or abort before the watchdog looks at it.
/// The interrupt handler stops guest code within microseconds; only a built-in that never
/// calls it (a 2^32-element `join`, a huge BigInt `toString`, a pathological parse) or a
/// worker the kernel did not run gets here.
pub const GRACE: Duration = Duration::from_millis(500);

/// CPU time the turn must have used over a grace period to count as stuck: a worker the
/// kernel starved (guest threads run at the lowest priority) is looked at again instead.
const STUCK_CPU_NS: u64 = 250_000_000;

/// How long after its check was armed a starved turn (one that computed too little to be
/// judged) is looked at again before its call is answered anyway: the answer must not wait
/// on the host's load.
const STARVED_CAP_NS: u64 = 2_000_000_000;

const IDLE: u64 = 0;
const ABANDONED: u64 = u64::MAX;
const NO_CLOCK: i64 = cpu_clock::NO_CLOCK;

/// One armed check: when, and the CPU time the watched turn had used by then.
#[derive(Clone, Copy, Debug)]
pub struct Arming {
    armed_ns: u64,
    cpu_ns: Option<u64>,
}

/// What a check found.
#[derive(Debug)]
pub enum Judgement {
    /// No turn runs: the next one arms its own check if it needs one.
    Idle,
    /// Look again after another grace period (a later turn, or a starved one).
    Again(Arming),
    /// The turn was given up: answer its call without the VM.
    Stuck,
    /// The turn was given up after staying starved past the cap: answer its call without
    /// the VM; it may yet be computing (a remote one is watched on: `still_computing`).
    Starved,
}

/// Whether a worker is inside a turn of one cell, since when, on which thread's CPU
/// clock, and whether the watchdog gave up on that turn. `started_ns` is one atomic, so
/// "the turn that began by then" is exact.
pub struct TurnWatch {
    started_ns: AtomicU64,
    cpu_clock: AtomicI64,
    /// Set when the cell's guest runs in another process: that process's CPU clock and
    /// how to end it, since no worker of ours computes there.
    remote: std::sync::OnceLock<Remote>,
}

/// The process a remote guest runs in, as the watchdog sees it.
pub struct Remote {
    pub cpu_clock: Option<i64>,
    pub kill: Box<dyn Fn() + Send + Sync>,
}

impl Default for TurnWatch {
    fn default() -> Self {
        TurnWatch {
            started_ns: AtomicU64::new(IDLE),
            cpu_clock: AtomicI64::new(NO_CLOCK),
            remote: std::sync::OnceLock::new(),
        }
    }
}

impl TurnWatch {
    /// From now on the turns' guest runs in another process (set once).
    pub fn follow_remote(&self, remote: Remote) {
        // The turn running now (which created the remote VM) is judged on that clock too.
        self.cpu_clock
            .store(remote.cpu_clock.unwrap_or(NO_CLOCK), Ordering::SeqCst);
        let _ = self.remote.set(remote);
    }

    /// Ends the remote guest's process, if the guest is remote; false otherwise.
    pub fn kill_remote(&self) -> bool {
        match self.remote.get() {
            Some(remote) => {
                (remote.kill)();
                true
            }
            None => false,
        }
    }

    pub fn is_remote(&self) -> bool {
        self.remote.get().is_some()
    }

    pub fn enter(&self) {
        let clock = match self.remote.get() {
            Some(remote) => remote.cpu_clock.unwrap_or(NO_CLOCK),
            None => cpu_clock::current(),
        };
        self.cpu_clock.store(clock, Ordering::SeqCst);
        let now = now_ns().clamp(IDLE + 1, ABANDONED - 1);
        self.started_ns.store(now, Ordering::SeqCst);
    }

    /// A check of the turn running now (if any), to be judged after `GRACE`.
    pub fn arming(&self) -> Arming {
        Arming {
            armed_ns: now_ns(),
            cpu_ns: self.started_ns().and_then(|_| self.turn_cpu_ns()),
        }
    }

    /// Judges an arming after its grace period; `Stuck` only once per turn.
    pub fn judge(&self, arming: Arming) -> Judgement {
        let Some(started) = self.started_ns() else {
            return Judgement::Idle;
        };
        if started > arming.armed_ns {
            return Judgement::Again(self.arming());
        }
        if let (Some(then), Some(now)) = (arming.cpu_ns, self.turn_cpu_ns()) {
            if now.saturating_sub(then) < STUCK_CPU_NS {
                if now_ns().saturating_sub(arming.armed_ns) < STARVED_CAP_NS {
                    return Judgement::Again(arming);
                }
                return if self.abandon_if_started_by(arming.armed_ns) {
                    Judgement::Starved
                } else {
                    Judgement::Idle
                };
            }
        }
        if self.abandon_if_started_by(arming.armed_ns) {
            Judgement::Stuck
        } else {
            Judgement::Idle
        }
    }

    /// A check of a given-up turn that has not returned yet, for [`Self::still_computing`].
    pub fn abandoned_arming(&self) -> Arming {
        Arming {
            armed_ns: now_ns(),
            cpu_ns: self.turn_cpu_ns(),
        }
    }

    /// Whether a given-up turn is still out and computed through the grace since
    /// `arming`: `Some(true)` stuck, `Some(false)` look again, `None` it returned.
    pub fn still_computing(&self, arming: Arming) -> Option<bool> {
        if !self.is_abandoned() {
            return None;
        }
        match (arming.cpu_ns, self.turn_cpu_ns()) {
            (Some(then), Some(now)) => Some(now.saturating_sub(then) >= STUCK_CPU_NS),
            _ => Some(true),
        }
    }

    /// CPU time of the thread running the current turn, where the platform can read
    /// another thread's clock (Linux); elsewhere the grace is wall-clock time only.
    fn turn_cpu_ns(&self) -> Option<u64> {
        cpu_clock::read(self.cpu_clock.load(Ordering::SeqCst))
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

    #[test]
    fn a_turn_that_computes_through_its_grace_is_stuck_and_an_idle_one_is_not() {
        let watch = TurnWatch::default();
        assert!(matches!(watch.judge(watch.arming()), Judgement::Idle));
        watch.enter();
        let arming = watch.arming();
        // A sleeping turn uses no CPU: on Linux it is judged starved, not stuck.
        std::thread::sleep(Duration::from_millis(5));
        if cfg!(target_os = "linux") {
            assert!(matches!(watch.judge(arming), Judgement::Again(_)));
            // Compute until this thread's own CPU clock says it has (a condition, not a time).
            let start = watch.turn_cpu_ns().unwrap_or(0);
            while watch.turn_cpu_ns().unwrap_or(u64::MAX) < start + STUCK_CPU_NS {
                std::hint::spin_loop();
            }
        }
        assert!(matches!(watch.judge(arming), Judgement::Stuck));
        assert!(watch.leave());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_turn_starved_past_the_cap_is_given_up_and_watched_until_it_returns() {
        // The process clock starts at zero: let it pass the cap first.
        while now_ns() <= STARVED_CAP_NS + 2 {
            std::thread::sleep(Duration::from_millis(10));
        }
        let watch = TurnWatch::default();
        watch.enter();
        // A turn that began before a check armed the cap ago, with the turn's CPU clock
        // read now: starved since.
        let armed_ns = now_ns() - STARVED_CAP_NS;
        watch.started_ns.store(armed_ns - 1, Ordering::SeqCst);
        let arming = Arming {
            armed_ns,
            cpu_ns: watch.turn_cpu_ns(),
        };
        assert!(matches!(watch.judge(arming), Judgement::Starved));
        let after = watch.abandoned_arming();
        assert_eq!(watch.still_computing(after), Some(false));
        let start = watch.turn_cpu_ns().unwrap_or(0);
        while watch.turn_cpu_ns().unwrap_or(u64::MAX) < start + STUCK_CPU_NS {
            std::hint::spin_loop();
        }
        assert_eq!(watch.still_computing(after), Some(true));
        assert!(watch.leave());
        assert_eq!(watch.still_computing(after), None);
    }
}
