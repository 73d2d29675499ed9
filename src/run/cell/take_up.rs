//! A durable run whose record is used up takes up what was still out when the record was
//! written: external calls park again (or deliver an outcome resolved meanwhile),
//! `replaySafe` calls run again, calls another live process still runs are waited for,
//! others are lost, timers start again for what was left.

use super::journal::{host_outcome, Durable, EFFECT_UNKNOWN};
use super::Cell;
use crate::run::ledger::{IssuedCall, IssuedTimer};
use crate::run::protocol::{Event, HostFailure, Reply};
use crate::runtime::timer;
use std::sync::Arc;
use std::time::{Duration, Instant};

impl Cell {
    /// The record is used up: every recorded call must have been made again, and what was
    /// still out when it was written goes on live.
    pub(super) fn take_up(self: &Arc<Self>, durable: &Durable) {
        let (calls, timers, caught_up) = {
            let journal = durable.journal.lock();
            let (calls, timers) = journal.undelivered();
            (calls, timers, journal.caught_up())
        };
        if !caught_up {
            self.diverge("the program made fewer calls or timers than its record has");
            return;
        }
        for call in calls {
            self.take_up_call(call);
        }
        for pending in timers {
            self.take_up_timer(pending);
        }
    }

    fn take_up_call(self: &Arc<Self>, call: IssuedCall) {
        let host_call = self.book.lock().replayed.remove(&call.bridge_id);
        if let Some(outcome) = call.outcome {
            self.push(Event::HostReply {
                bridge_id: call.bridge_id,
                outcome: host_outcome(&outcome),
            });
        } else if let Some(payload) = call.external {
            self.book.lock().suspend_call(call.bridge_id, payload);
        } else if self.take_up_held(&call) {
            // Its outcome comes with the record once that process writes it.
        } else if let (true, Some(host_call)) = (call.replay_safe, host_call) {
            // Safe to run again: the same `callId` lets the tool see it is a repeat.
            self.owner.count_call();
            let cell: Arc<dyn crate::run::protocol::Inbox> = self.clone();
            let reply = Reply::new(Arc::downgrade(&cell), call.bridge_id);
            self.owner.host().call_tool(host_call, reply);
        } else {
            self.push(Event::HostReply {
                bridge_id: call.bridge_id,
                outcome: Err(HostFailure {
                    message: EFFECT_UNKNOWN.to_string(),
                    code: "tool_error",
                }),
            });
        }
    }

    fn take_up_timer(self: &Arc<Self>, pending: IssuedTimer) {
        let due_ms = pending.clock_ms + pending.delay_ms as f64 - super::journal::unix_ms();
        let wait = Duration::from_millis(due_ms.clamp(0.0, u32::MAX as f64) as u64);
        let weak = Arc::downgrade(self);
        let id = pending.id;
        let key = timer::schedule(Instant::now() + wait, move || {
            if let Some(cell) = weak.upgrade() {
                cell.push(Event::Timer { id });
            }
        });
        if let Some(slot) = self.book.lock().timers.get_mut(&id) {
            *slot = Some(key);
        }
    }
}
