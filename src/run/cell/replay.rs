//! A durable cell catching up with its record: in a sandbox, the recorded deliveries go in
//! batches (one command each, see `sandbox::remote::replay`), else one per job drain; the
//! run's book takes each in ledger order after the guest did, stopping at a divergence.

use super::journal::{host_outcome, Durable};
use super::Cell;
use crate::guest::control::Interrupt;
use crate::run::ledger::Delivery;
use crate::run::state::RunBook;
use crate::sandbox::handle::{ReplayStep, VmHandle};
use crate::sandbox::remote::BatchRoom;
use std::collections::HashMap;

/// Why a recorded delivery did not apply.
const UNMADE: &str = "its record answers a call or timer the program has not made";

impl Cell {
    /// The replay step of a durable turn: a batch where the VM and the record allow one,
    /// else one delivery (its job drain follows in the turn).
    pub(super) fn replay(&self, durable: &Durable, vm: &VmHandle) {
        if !self.replay_batch(durable, vm) {
            self.replay_one(durable, vm);
        }
    }

    /// Sends the next recorded deliveries in one command and books them: false if none
    /// may go that way.
    fn replay_batch(&self, durable: &Durable, vm: &VmHandle) -> bool {
        if !vm.batches_replay() {
            return false;
        }
        let steps = batch(durable);
        if steps.is_empty() {
            return false;
        }
        let Some(replayed) = vm.replay_batch(&steps) else {
            // The VM is lost: the verdict ends the run.
            return true;
        };
        if replayed.sent == 0 {
            return false;
        }
        // An interrupted guest stopped part-way, and a run that already failed or threw
        // needs nothing booked: the verdict ends it as one delivery per drain would.
        let ended = {
            let book = self.book.lock();
            book.fatal.is_some() || book.thrown.is_some()
        };
        if ended || self.control.interrupt() != Interrupt::None {
            return true;
        }
        for (index, step) in steps[..replayed.sent].iter().enumerate() {
            // The guest ended where one delivery per drain would have seen it end: the
            // verdict says so.
            if index == replayed.landed && ended_early(&self.book.lock()) {
                return true;
            }
            let booked = index < replayed.landed
                && match step {
                    ReplayStep::Reply {
                        bridge_id,
                        ok,
                        payload,
                        ..
                    } => {
                        let outcome = crate::run::ledger::Outcome {
                            ok: *ok,
                            payload: payload.clone(),
                        };
                        self.book
                            .lock()
                            .settle_call(*bridge_id, &host_outcome(&outcome))
                    }
                    ReplayStep::Timer { id, .. } => self.book.lock().timers.remove(id).is_some(),
                };
            if !booked {
                self.diverge(UNMADE);
                return true;
            }
            self.applied_recorded(durable);
        }
        true
    }

    /// Applies the next recorded delivery; the turn drains the jobs it lets run.
    fn replay_one(&self, durable: &Durable, vm: &VmHandle) {
        let Some(next) = durable.journal.lock().next_recorded().cloned() else {
            return;
        };
        let applied = match &next {
            Delivery::Reply {
                bridge_id, outcome, ..
            } => {
                let mut book = self.book.lock();
                if matches!(book.yield_request, Some((id, _)) if id == *bridge_id) {
                    book.yield_request = None;
                    book.expect_reply(*bridge_id);
                }
                let settled = book.settle_call(*bridge_id, &host_outcome(outcome));
                drop(book);
                if settled {
                    vm.set_clock(next.clock_ms());
                    vm.settle(*bridge_id, outcome.ok, &outcome.payload);
                }
                settled
            }
            Delivery::Timer { id, .. } => {
                let started = self.book.lock().timers.remove(id).is_some();
                if started {
                    vm.set_clock(next.clock_ms());
                    vm.fire_timer(*id);
                }
                started
            }
        };
        if !applied {
            self.diverge(UNMADE);
            return;
        }
        self.applied_recorded(durable);
    }

    /// A recorded delivery reached the guest and the book: the next may follow, and what
    /// it freed may start.
    fn applied_recorded(&self, durable: &Durable) {
        durable.journal.lock().applied_recorded();
        if let Some(bridge) = self.bridge.get() {
            bridge.admit();
        }
    }
}

/// The guest's program settled with nothing left for it to wait for: the turn's verdict
/// ends the run (a replay with more recorded diverged there).
fn ended_early(book: &RunBook) -> bool {
    book.completion.is_some() && book.outstanding() == 0
}

/// The next recorded deliveries that may go in one batch, within a command's caps: only
/// for a record whose every call was accepted (else a call's position among the guest's
/// calls is unknown), up to the first reply to a yield (the book must see the yield
/// first) and leaving out the last delivery (the jobs it lets run are live: they may
/// dispatch, which no batch may).
fn batch(durable: &Durable) -> Vec<ReplayStep> {
    let journal = durable.journal.lock();
    if !journal.all_accepted() {
        return Vec::new();
    }
    let ahead = journal.recorded_ahead();
    let ahead = &ahead[..ahead.len().saturating_sub(1)];
    if ahead.is_empty() {
        return Vec::new();
    }
    let positions: HashMap<u32, u32> = journal
        .ledger()
        .calls
        .iter()
        .zip(0u32..)
        .map(|(call, position)| (call.bridge_id, position))
        .collect();
    let mut steps = Vec::new();
    let mut room = BatchRoom::default();
    for delivery in ahead {
        let step = match delivery {
            Delivery::Reply {
                bridge_id,
                outcome,
                clock_ms,
            } => {
                let Some(&position) = positions.get(bridge_id) else {
                    break;
                };
                ReplayStep::Reply {
                    position,
                    bridge_id: *bridge_id,
                    ok: outcome.ok,
                    payload: outcome.payload.clone(),
                    clock_ms: *clock_ms,
                }
            }
            Delivery::Timer { id, clock_ms } => ReplayStep::Timer {
                id: *id,
                clock_ms: *clock_ms,
            },
        };
        if !room.admits(step.bytes()) {
            break;
        }
        steps.push(step);
    }
    steps
}
