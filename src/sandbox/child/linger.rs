//! What lets a command stay open while its guest awaits host calls: the calls still out
//! and whether the guest did something the addon must act on first (a timer, a yield, its
//! end). Answers then come as `Apply` frames, so the addon's pool worker stays asleep.

use super::super::wire::Step;
pub(super) use super::super::wire::OWN_CALL_ID;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Shared by a VM's proxy bridge, which counts, and its commands, which read.
#[derive(Default)]
pub(super) struct Outstanding {
    /// Host calls sent and not yet answered.
    calls: AtomicU32,
    /// The guest armed a timer, yielded or ended in this command: only the addon's turn
    /// can act on that, so the command must end rather than wait.
    stop: AtomicBool,
    /// The command's host calls may wait in the buffer for its `Done` (`ToChild::Run`).
    hold_calls: AtomicBool,
}

impl Outstanding {
    pub(super) fn called(&self) {
        self.calls.fetch_add(1, Ordering::SeqCst);
    }

    /// Step `step` answers one of the guest's host calls (not a yield, not a timer).
    pub(super) fn answered(&self, step: &Step) {
        let own = match step {
            Step::Settle { id, .. } | Step::Refuse { id, .. } => id & OWN_CALL_ID != 0,
            _ => false,
        };
        if own {
            let _ = self
                .calls
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        }
    }

    pub(super) fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// A new command starts: what stopped the last one is the addon's to handle now.
    pub(super) fn begin(&self, hold_calls: bool) {
        self.stop.store(false, Ordering::SeqCst);
        self.hold_calls.store(hold_calls, Ordering::SeqCst);
    }

    /// Whether a host call may wait in the buffer for the command's `Done`.
    pub(super) fn holds_calls(&self) -> bool {
        self.hold_calls.load(Ordering::SeqCst)
    }

    /// Whether the guest waits only on host calls, so the command may wait for answers.
    pub(super) fn awaits_calls(&self) -> bool {
        !self.stop.load(Ordering::SeqCst) && self.calls.load(Ordering::SeqCst) > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_answers_to_own_calls_count_and_a_stop_lasts_one_command() {
        let out = Outstanding::default();
        assert!(!out.awaits_calls());
        out.called();
        assert!(out.awaits_calls());
        // A yield's settle carries an addon id: the call is still out.
        out.answered(&Step::Settle {
            id: 3,
            ok: true,
            payload: String::new(),
        });
        assert!(out.awaits_calls());
        out.stop();
        assert!(!out.awaits_calls());
        out.begin(false);
        assert!(out.awaits_calls());
        out.answered(&Step::Refuse {
            id: OWN_CALL_ID | 1,
            message: String::new(),
        });
        assert!(!out.awaits_calls());
        // An answer too many never wraps around.
        out.answered(&Step::Refuse {
            id: OWN_CALL_ID | 2,
            message: String::new(),
        });
        assert!(!out.awaits_calls());
    }
}
