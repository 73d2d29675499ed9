//! Calls a durable run's record shows as still running in the process that dispatched
//! them: held until a time that process renews in a note of its own (so it never writes
//! the run's record after losing it), which also carries the tool's outcome. Only an
//! undelivered call without an outcome that did not suspend itself is held.

use super::ledger::{Delivery, Journal, Ledger, Outcome};
use serde::{Deserialize, Serialize};

/// What the process running a held call writes for it, apart from the run's record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HeldNote {
    /// The call is held until then (Unix ms): that process is alive.
    #[serde(rename = "h", default, skip_serializing_if = "Option::is_none")]
    pub until_ms: Option<f64>,
    /// The tool ended with this.
    #[serde(rename = "o", default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
}

/// The store key of the note for call `call_id` (`<runId>:<n>`): never a run id, which
/// has no `#`.
pub fn note_key(call_id: &str) -> String {
    format!("{call_id}#held")
}

impl Ledger {
    /// Whether a reply to call `bridge_id` reached the guest.
    pub(super) fn delivered(&self, bridge_id: u32) -> bool {
        self.deliveries
            .iter()
            .any(|d| matches!(d, Delivery::Reply { bridge_id: id, .. } if *id == bridge_id))
    }

    /// Calls `bridge_ids`, running here, are held until `until_ms`.
    pub fn hold(&mut self, bridge_ids: &[u32], until_ms: f64) {
        for call in &mut self.calls {
            let awaited = call.outcome.is_none() && call.external.is_none();
            if bridge_ids.contains(&call.bridge_id) && !call.replay_safe && awaited {
                call.held_until_ms = Some(until_ms);
            }
        }
    }

    /// Sets the outcome of call `bridge_id` that reached this process and waits for the
    /// run's next turn: the record says what the tool answered.
    pub fn answered(&mut self, bridge_id: u32, outcome: Outcome) {
        if self.delivered(bridge_id) {
            return;
        }
        if let Some(call) = self.calls.iter_mut().find(|c| c.bridge_id == bridge_id) {
            call.outcome = Some(outcome);
            call.held_until_ms = None;
        }
    }
}

/// What a note changed in a journal.
#[derive(Debug, PartialEq)]
pub enum Absorbed {
    Nothing,
    Renewed,
    /// The call's outcome, for bridge id `.0`.
    Outcome(u32, Outcome),
}

impl Journal {
    /// The calls of the record this journal began from that another process holds: their
    /// notes tell whether it is alive and what their tools answered.
    pub fn held_by_others(&self) -> Vec<String> {
        let ledger = self.ledger();
        ledger.calls[..self.recorded_calls().min(ledger.calls.len())]
            .iter()
            .filter(|c| {
                c.held_until_ms.is_some()
                    && c.outcome.is_none()
                    && c.external.is_none()
                    && !c.replay_safe
                    && !ledger.delivered(c.bridge_id)
            })
            .map(|c| c.call_id.clone())
            .collect()
    }

    /// Takes in the note for held call `call_id`: a later hold, or its outcome (kept on
    /// the call for the record, and returned for a live run to deliver).
    pub fn absorb(&mut self, call_id: &str, note: HeldNote) -> Absorbed {
        if !self.held_by_others().iter().any(|id| id == call_id) {
            return Absorbed::Nothing;
        }
        let ledger = self.ledger_mut();
        let Some(call) = ledger.calls.iter_mut().find(|c| c.call_id == call_id) else {
            return Absorbed::Nothing;
        };
        if let Some(outcome) = note.outcome {
            call.outcome = Some(outcome.clone());
            call.held_until_ms = None;
            return Absorbed::Outcome(call.bridge_id, outcome);
        }
        match (note.until_ms, call.held_until_ms) {
            (Some(until), Some(held)) if until > held => {
                call.held_until_ms = Some(until);
                Absorbed::Renewed
            }
            _ => Absorbed::Nothing,
        }
    }
}

#[cfg(test)]
#[path = "held_tests.rs"]
mod tests;
