//! External calls: a tool call parked by `ctx.suspend(payload)` waits for `resolveCall`,
//! not for its tool. Each is resolved at most once; a resolved call's sequence number is
//! kept for the run's life, so every later resolve of it answers `already_resolved`.

use super::RunBook;
use crate::error::{messages, CodeModeError};
use std::collections::{HashMap, HashSet};

/// The external calls of one run (part of its [`RunBook`]).
#[derive(Default)]
pub struct ExternalCalls {
    /// Unresolved external calls by bridge id, with their payload as JSON text.
    waiting: HashMap<u32, String>,
    /// Sequence numbers (the `n` of `<runId>:<n>`) of the calls resolved so far: 4 bytes
    /// a call, bounded by the run's tool calls.
    resolved: HashSet<u32>,
    /// Calls of a durable run that another gateway process dispatched and still runs
    /// (run/held.rs): like external calls, only an outside event moves them.
    elsewhere: HashSet<u32>,
}

/// A `resolveCall` outcome as the run takes it: the value's JSON, or an `error` whose
/// message reaches the guest as a failed tool's does.
pub fn resolved_outcome(
    ok: bool,
    text: String,
) -> Result<String, crate::run::protocol::HostFailure> {
    if ok {
        return Ok(text);
    }
    Err(crate::run::protocol::HostFailure {
        message: text,
        code: "tool_error",
    })
}

/// What `resolveCall` answers when it is not refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// This resolve recorded the call's outcome; the next turn delivers it.
    Resolved,
    /// An earlier resolve did.
    AlreadyResolved,
}

impl Resolution {
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::Resolved => "resolved",
            Resolution::AlreadyResolved => "already_resolved",
        }
    }
}

/// The `n` of call id `<runId>:<n>` of run `run_id`; only the canonical decimal form from
/// 1 names a call (`parse` alone would take `+1` and `01`).
pub fn call_seq(run_id: &str, call_id: &str) -> Option<u32> {
    let n = call_id.strip_prefix(run_id)?.strip_prefix(':')?;
    let seq = n.parse::<u32>().ok()?;
    (seq >= 1 && seq.to_string() == n).then_some(seq)
}

impl RunBook {
    /// Tool call `bridge_id` suspended itself with `payload` (JSON text). False if it is
    /// no longer in flight: the run ended and cancelled it, or it already settled.
    pub fn suspend_call(&mut self, bridge_id: u32, payload: String) -> bool {
        let in_flight = self
            .calls
            .get(&bridge_id)
            .is_some_and(|call| call.record.is_some());
        if in_flight {
            self.external.waiting.insert(bridge_id, payload);
        }
        in_flight
    }

    /// Records the resolve of `call_id`: `Ok(Some(bridge id))` for the reply to deliver
    /// when this is the first, `Ok(None)` when an earlier resolve won, an error when the
    /// run has no such call or it is not external.
    pub fn resolve_external(
        &mut self,
        run_id: &str,
        call_id: &str,
    ) -> Result<Option<u32>, CodeModeError> {
        let seq = call_seq(run_id, call_id).filter(|seq| *seq <= self.next_call_seq);
        let Some(seq) = seq else {
            return Err(CodeModeError::invalid_input(messages::call_unknown(
                call_id,
            )));
        };
        if self.external.resolved.contains(&seq) {
            return Ok(None);
        }
        let found = self.calls.iter().find(|(_, call)| call.call_id == call_id);
        let bridge_id = match found {
            Some((bridge_id, _)) if self.external.waiting.contains_key(bridge_id) => *bridge_id,
            _ => {
                return Err(CodeModeError::invalid_input(messages::call_not_external(
                    call_id,
                )))
            }
        };
        self.external.waiting.remove(&bridge_id);
        self.external.resolved.insert(seq);
        Ok(Some(bridge_id))
    }

    /// Call `bridge_id` runs in another gateway process, which records its outcome: the
    /// run waits for it as for an external call. False if it is no longer in flight.
    pub fn hold_elsewhere(&mut self, bridge_id: u32) -> bool {
        let in_flight = self.calls.contains_key(&bridge_id);
        if in_flight {
            self.external.elsewhere.insert(bridge_id);
        }
        in_flight
    }

    /// The calls another gateway process runs for this run.
    pub fn held_elsewhere(&self) -> Vec<u32> {
        self.external.elsewhere.iter().copied().collect()
    }

    /// The payload of call `bridge_id` while it waits for `resolveCall`.
    pub fn external_payload(&self, bridge_id: u32) -> Option<&str> {
        self.external.waiting.get(&bridge_id).map(String::as_str)
    }

    /// Everything the guest still waits for is an external call nobody has resolved or a
    /// call another gateway process runs, or queued behind them (every slot is held by one): no tool, timer or delivery can
    /// move the run on, so it parks now rather than at its deadline.
    pub fn only_external_left(&self) -> bool {
        let queue_stuck = self.queue.is_empty() || self.in_flight() >= self.max_pending;
        let outside = |id: &u32| {
            self.external.waiting.contains_key(id) || self.external.elsewhere.contains(id)
        };
        !(self.external.waiting.is_empty() && self.external.elsewhere.is_empty())
            && queue_stuck
            && self.timers.is_empty()
            && self.calls.keys().all(outside)
    }

    /// Bytes the external calls hold (payloads and resolved ids): part of the parked size.
    pub(in crate::run) fn external_bytes(&self) -> usize {
        let payloads: usize = self.external.waiting.values().map(String::len).sum();
        payloads + self.external.resolved.len() * 4
    }

    /// The resolved calls' sequence numbers, taken once the run has ended.
    pub fn take_resolved(&mut self) -> HashSet<u32> {
        std::mem::take(&mut self.external.resolved)
    }

    /// A call left the book (settled or cancelled): it waits for nothing any more.
    pub(in crate::run) fn forget_external(&mut self, bridge_id: u32) {
        self.external.waiting.remove(&bridge_id);
        self.external.elsewhere.remove(&bridge_id);
    }

    pub(in crate::run) fn clear_external(&mut self) {
        self.external.waiting.clear();
        self.external.elsewhere.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::state::InFlight;
    use std::time::Instant;

    fn book_with_call(seq: u32) -> RunBook {
        let mut book = RunBook::new(1024, 16);
        book.next_call_seq = seq;
        book.calls.insert(
            3,
            InFlight {
                call_id: format!("cm_a:{seq}"),
                callable_name: "approve".into(),
                contracts: None,
                tool_name: "approve".into(),
                started: Instant::now(),
                record: Some(0),
            },
        );
        book
    }

    #[test]
    fn a_suspended_call_resolves_once_then_answers_already_resolved() {
        let mut book = book_with_call(1);
        assert!(book.suspend_call(3, r#"{"ask":"ok?"}"#.into()));
        assert!(book.only_external_left());
        assert_eq!(book.external_payload(3), Some(r#"{"ask":"ok?"}"#));
        assert_eq!(book.resolve_external("cm_a", "cm_a:1"), Ok(Some(3)));
        assert!(!book.only_external_left());
        assert_eq!(book.resolve_external("cm_a", "cm_a:1"), Ok(None));
        book.calls.remove(&3);
        assert_eq!(book.resolve_external("cm_a", "cm_a:1"), Ok(None));
    }

    #[test]
    fn calls_queued_behind_external_calls_holding_every_slot_cannot_move_the_run() {
        let mut book = book_with_call(1);
        book.max_pending = 1;
        assert!(book.suspend_call(3, "null".into()));
        book.queue.push_back(crate::run::state::Queued::Timer {
            id: 1,
            delay_ms: 0,
            recorded: false,
        });
        assert!(book.only_external_left(), "the queue waits for a free slot");
        book.max_pending = 2;
        assert!(!book.only_external_left(), "a free slot admits the queue");
    }

    #[test]
    fn a_call_that_did_not_suspend_is_not_external() {
        let mut book = book_with_call(1);
        let refused = book.resolve_external("cm_a", "cm_a:1");
        assert_eq!(
            refused,
            Err(CodeModeError::invalid_input(messages::call_not_external(
                "cm_a:1"
            )))
        );
        assert!(!book.only_external_left());
    }

    #[test]
    fn ids_of_calls_the_run_never_made_are_unknown() {
        let mut book = book_with_call(2);
        for id in [
            "cm_a:3", "cm_a:0", "cm_b:1", "cm_a:+1", "cm_a:01", "cm_a", "cm_a:x", "",
        ] {
            let refused = book.resolve_external("cm_a", id);
            let expected = CodeModeError::invalid_input(messages::call_unknown(id));
            assert_eq!(refused, Err(expected), "{id}");
        }
    }

    #[test]
    fn a_call_no_longer_in_flight_cannot_suspend() {
        let mut book = book_with_call(1);
        book.calls.clear();
        assert!(!book.suspend_call(3, "null".into()));
        assert!(!book.only_external_left());
    }
}
