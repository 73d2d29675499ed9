//! Process mode: a host reply that comes while the sandbox's command is out is admitted
//! and recorded here, on the thread that answers (Node's), and sent straight into that
//! command, so the pool worker waiting for the command's end is not woken for it.

use super::Cell;
use crate::error::CodeModeError;
use crate::guest::control::Interrupt;
use crate::run::protocol::{Event, HostFailure};
use crate::runtime::{panic_probe, pool};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// How long a sandbox command may wait for each host reply before it ends (bench/README.md,
/// "Replies straight to the sandbox"): a fast tool's reply then needs no turn, and a slow
/// one holds a worker and an executor no longer than this.
const LINGER: Duration = Duration::from_millis(1);

/// `LINGER`, or `CODEMODE_NATIVE_REPLY_LINGER_US` microseconds (the sandbox caps it at
/// 100 ms), so one build can be measured both ways; 0 turns direct replies off.
fn linger() -> Duration {
    static CHOSEN: OnceLock<Duration> = OnceLock::new();
    *CHOSEN.get_or_init(|| {
        std::env::var("CODEMODE_NATIVE_REPLY_LINGER_US")
            .ok()
            .and_then(|us| us.trim().parse::<u64>().ok())
            .map_or(LINGER, Duration::from_micros)
    })
}

impl Cell {
    /// Delivers host call `bridge_id`'s `outcome` into the sandbox's open command. Gives
    /// it back for the inbox when no command is out or the run is ending: its turn
    /// decides then, as in thread mode.
    pub(super) fn settle_direct(
        self: &Arc<Self>,
        bridge_id: u32,
        outcome: Result<String, HostFailure>,
    ) -> Option<Result<String, HostFailure>> {
        let Some(link) = self.direct.get().filter(|_| !linger().is_zero()) else {
            return Some(outcome);
        };
        // The containment probe panics where the worker would catch it.
        let probe =
            matches!(&outcome, Ok(json) if panic_probe::armed(json, panic_probe::RESULT_MARKER));
        if probe
            || !self.running.load(Ordering::SeqCst)
            || self.finished.load(Ordering::SeqCst)
            || self.control.is_aborted()
            || self.control.interrupt() != Interrupt::None
            || !link.is_open()
        {
            return Some(outcome);
        }
        let sent = catch_unwind(AssertUnwindSafe(|| {
            let outcome = self.admit_outcome(bridge_id, outcome);
            // Recorded and sent under the command's lock: the turn never sees the call
            // answered in the run's state while its answer is not on its way to the VM.
            let sent = link.settle_with(bridge_id, || self.record_reply(bridge_id, &outcome));
            if sent.is_some() {
                if let Some(bridge) = self.bridge.get() {
                    bridge.admit();
                }
            }
            sent.ok_or(outcome)
        }));
        match sent {
            Ok(Ok(true)) => {}
            // The command ended meanwhile: the turn admits the reply again (the same
            // result) and delivers it.
            Ok(Err(outcome)) => return Some(outcome),
            // Its process is going: the answer waits with the VM's steps, and the turn
            // must run to see the end. `Deadline` only wakes it (its verdict reads the
            // clock itself).
            Ok(Ok(false)) => self.push(Event::Deadline),
            Err(_) => {
                self.book.lock().fatal.get_or_insert_with(|| {
                    CodeModeError::internal(
                        "internal error: the code mode engine hit a bug and contained it; the cell was stopped.",
                    )
                });
                self.push(Event::Deadline);
            }
        }
        None
    }

    /// Lets the VM's next commands wait for host replies while a worker is free (the turn
    /// holds its own meanwhile) and no timer or yield needs the turn.
    pub(super) fn set_linger(&self) {
        let Some(link) = self.direct.get() else {
            return;
        };
        let quiet = {
            let book = self.book.lock();
            book.timers.is_empty() && book.yield_request.is_none()
        };
        let linger = if quiet && pool::global().is_idle() {
            linger()
        } else {
            Duration::ZERO
        };
        link.set_linger(linger);
    }
}
