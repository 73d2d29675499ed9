//! A durable run's calls held by the process running their tools (run/held.rs): the
//! record written here holds this process's calls in flight and carries outcomes that
//! came while the run was parked; a run taken over waits for calls held elsewhere until
//! their hold lapses, and only then hears their outcome is unknown.

use super::journal::{host_outcome, outcome_of, unix_ms, Durable, EFFECT_UNKNOWN};
use super::Cell;
use crate::run::held::{Absorbed, HeldNote};
use crate::run::ledger::{IssuedCall, Ledger};
use crate::run::protocol::{Event, HostFailure};
use std::sync::Arc;

impl Cell {
    /// The ledger as a record written now keeps it: calls this process is running are
    /// held until `hold_until_ms`, and answers waiting for the next turn are outcomes.
    pub(super) fn ledger_to_keep(&self, durable: &Durable, hold_until_ms: Option<f64>) -> Ledger {
        let mut ledger = durable.journal.lock().ledger().clone();
        for event in self.inbox.lock().iter() {
            if let Event::HostReply { bridge_id, outcome } = event {
                ledger.answered(*bridge_id, outcome_of(outcome));
            }
        }
        if let Some(until) = hold_until_ms {
            let book = self.book.lock();
            let elsewhere = book.held_elsewhere();
            let running: Vec<u32> = book
                .calls
                .keys()
                .filter(|id| {
                    !book.replayed.contains_key(id)
                        && !elsewhere.contains(id)
                        && book.external_payload(**id).is_none()
                })
                .copied()
                .collect();
            drop(book);
            ledger.hold(&running, until);
        }
        ledger
    }

    /// A recorded call still out whose tool another process is running and will answer:
    /// the run waits for it. False when it is not held, or its hold has lapsed.
    pub(super) fn take_up_held(&self, call: &IssuedCall) -> bool {
        let held = !call.replay_safe && call.held_until_ms.is_some_and(|until| until > unix_ms());
        held && self.book.lock().hold_elsewhere(call.bridge_id)
    }

    /// The calls of this run's record another process holds (by call id).
    pub fn held_by_others(&self) -> Vec<String> {
        self.durable
            .as_ref()
            .map(|durable| durable.journal.lock().held_by_others())
            .unwrap_or_default()
    }

    /// Takes in the note the process holding call `call_id` wrote: a later hold, or the
    /// outcome, which a run already waiting on the call gets at its next turn (a replay
    /// delivers it when it takes up what its record left out).
    pub fn absorb_note(self: &Arc<Self>, call_id: &str, note: HeldNote) {
        let Some(durable) = &self.durable else {
            return;
        };
        let absorbed = durable.journal.lock().absorb(call_id, note);
        if let Absorbed::Outcome(bridge_id, outcome) = absorbed {
            let waiting = self.book.lock().held_elsewhere().contains(&bridge_id);
            if durable.is_live() && waiting {
                self.push(Event::HostReply {
                    bridge_id,
                    outcome: host_outcome(&outcome),
                });
            }
        }
    }

    /// Calls held elsewhere whose hold lapsed are lost: the process running them stopped
    /// before it recorded their outcome.
    pub(super) fn lapse_held(self: &Arc<Self>, durable: &Durable) {
        let elsewhere = self.book.lock().held_elsewhere();
        if elsewhere.is_empty() {
            return;
        }
        let now = unix_ms();
        let lapsed: Vec<u32> = {
            let journal = durable.journal.lock();
            let calls = &journal.ledger().calls;
            elsewhere
                .into_iter()
                .filter(|id| {
                    calls
                        .iter()
                        .find(|call| call.bridge_id == *id)
                        .is_none_or(|call| call.held_until_ms.is_none_or(|until| until <= now))
                })
                .collect()
        };
        for bridge_id in lapsed {
            self.push(Event::HostReply {
                bridge_id,
                outcome: Err(HostFailure {
                    message: EFFECT_UNKNOWN.to_string(),
                    code: "tool_error",
                }),
            });
        }
    }
}
