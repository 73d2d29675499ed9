//! A cell's external calls: a tool suspending its call (`ctx.suspend`) and `resolveCall`
//! answering it. The answer goes through the inbox as any host reply does, so it meets
//! the same output contract and `maxOutputBytes` on its way into the guest.

use super::Cell;
use crate::error::{messages, CodeModeError};
use crate::run::protocol::{Event, HostFailure, Suspension};
use crate::run::state::external::Resolution;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl Cell {
    /// Host call `bridge_id` suspends itself; a running turn is woken to park the run if
    /// nothing else is left to wait for. The payload is bounded as a tool's value is
    /// (`maxOutputBytes`), but refused rather than cut: the host must see all of it.
    pub(super) fn suspend_call(self: &Arc<Self>, bridge_id: u32, payload: String) -> Suspension {
        let max = self.owner.limits().max_output_bytes;
        let bytes = u64::try_from(payload.len()).unwrap_or(u64::MAX);
        if bytes > max {
            return Suspension::Refused(messages::suspend_payload_too_large(bytes, max));
        }
        if self.finished.load(Ordering::SeqCst) {
            return Suspension::RunEnded;
        }
        if !self.book.lock().suspend_call(bridge_id, payload.clone()) {
            return Suspension::RunEnded;
        }
        self.journal_external(bridge_id, &payload);
        self.push(Event::CallSuspended);
        Suspension::Parked
    }

    /// `resolveCall` for `call_id` of this run: the first resolve records `outcome` for
    /// the next turn (now if a call is running, else at the next `wait`).
    pub fn resolve_external(
        self: &Arc<Self>,
        call_id: &str,
        outcome: Result<String, HostFailure>,
    ) -> Result<Resolution, CodeModeError> {
        let unavailable = || CodeModeError::invalid_input(messages::RUN_UNAVAILABLE);
        if self.finished.load(Ordering::SeqCst) {
            return Err(unavailable());
        }
        let recorded = self.book.lock().resolve_external(&self.run_id, call_id);
        let bridge_id = match recorded {
            Ok(Some(bridge_id)) => bridge_id,
            Ok(None) => return Ok(Resolution::AlreadyResolved),
            // A finish that ran meanwhile cancelled every call: the run is what is gone.
            Err(_) if self.finished.load(Ordering::SeqCst) => return Err(unavailable()),
            Err(error) => return Err(error),
        };
        self.journal_resolved(bridge_id, &outcome);
        self.owner
            .host()
            .external_resolved(&self.run_id, call_id, &outcome);
        self.push(Event::HostReply { bridge_id, outcome });
        Ok(Resolution::Resolved)
    }
}
