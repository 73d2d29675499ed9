//! How a call of a cell ends: finishing or parking the run, and the watchdog that answers
//! a call whose turn is stuck in a built-in that never reaches the interrupt handler.

use super::{Cell, Phase};
use crate::error::CodeModeError;
use crate::run::protocol::Event;
use crate::run::result;
use crate::runtime::watchdog;
use crate::runtime::{pool, timer};
use crate::sandbox::handle::VmHandle;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

impl Cell {
    /// Checks after `watchdog::GRACE` that the turn running now (if any) has returned.
    /// One check at a time: an earlier one stays, and hands over to a later turn.
    pub(super) fn arm_watchdog(self: &Arc<Self>) {
        self.arm_watchdog_with(self.watch.arming());
    }

    fn arm_watchdog_with(self: &Arc<Self>, arming: watchdog::Arming) {
        let mut slot = self.watchdog_timer.lock();
        if slot.is_some() {
            return;
        }
        let epoch = self.call_epoch();
        let weak = Arc::downgrade(self);
        *slot = Some(timer::schedule(
            Instant::now() + watchdog::GRACE,
            move || {
                if let Some(cell) = weak.upgrade() {
                    cell.watchdog_timer.lock().take();
                    cell.answer_if_stuck(epoch, arming);
                }
            },
        ));
    }

    /// The watchdog's check (timer thread). If the call `epoch` is still unanswered and
    /// the turn it watched computed through the grace without returning, the guest is
    /// inside something that never reaches the interrupt handler: the call is answered
    /// now, without the VM, and the worker replaced; the turn retires the VM on return.
    fn answer_if_stuck(self: &Arc<Self>, epoch: u64, arming: watchdog::Arming) {
        if !self.is_running() || self.call_epoch() != epoch {
            return;
        }
        match self.watch.judge(arming) {
            watchdog::Judgement::Idle => self.answer_if_never_started(),
            watchdog::Judgement::Again(next) => self.arm_watchdog_with(next),
            judgement @ (watchdog::Judgement::Stuck | watchdog::Judgement::Starved) => {
                let error = if self.control.is_aborted() {
                    CodeModeError::aborted()
                } else {
                    CodeModeError::timeout(self.control.budget_ms())
                };
                let starved = matches!(judgement, watchdog::Judgement::Starved);
                if self.watch.is_remote() {
                    // A guest in a sandbox process ends with it. The answer goes first:
                    // the kill wakes the turn, which would report a lost sandbox. A starved
                    // one may only be slow, and its process holds the session's other runs:
                    // it is killed only once it is seen computing.
                    self.finish(Err(error));
                    if starved {
                        self.kill_if_computing(self.watch.abandoned_arming());
                    } else {
                        self.watch.kill_remote();
                    }
                } else {
                    // One on our worker cannot be stopped: the worker is replaced and
                    // retires when the built-in returns.
                    pool::global().replace_stuck_worker();
                    self.finish(Err(error));
                }
            }
        }
    }

    /// The watchdog found no turn running, yet the call is unanswered past its deadline or
    /// abort: its turn is still queued. Behind a busy pool it is looked at again; when no
    /// worker is left to run it, the call is answered without the guest, and a turn that
    /// starts later finds the run over.
    fn answer_if_never_started(self: &Arc<Self>) {
        if !self.scheduled.load(Ordering::SeqCst) {
            return;
        }
        let Some(refused) = pool::no_free_worker() else {
            self.arm_watchdog();
            return;
        };
        // A turn that began since the judgement holds the state: it is judged on its own.
        let Some(mut state) = self.state.try_lock() else {
            self.arm_watchdog();
            return;
        };
        let retired = std::mem::replace(&mut state.phase, Phase::Done);
        drop(state);
        self.finish(Err(if self.control.is_aborted() {
            CodeModeError::aborted()
        } else {
            super::refused_error(refused)
        }));
        discard(retired);
    }

    /// Watches a remote turn given up while starved until it returns, and kills its
    /// process once it computes through a grace period.
    fn kill_if_computing(self: &Arc<Self>, arming: watchdog::Arming) {
        let weak = Arc::downgrade(self);
        // Not kept: the check ends by itself once the turn returns or the cell is gone.
        let _check = timer::schedule(Instant::now() + watchdog::GRACE, move || {
            let Some(cell) = weak.upgrade() else {
                return;
            };
            match cell.watch.still_computing(arming) {
                Some(true) => {
                    cell.watch.kill_remote();
                }
                Some(false) => cell.kill_if_computing(arming),
                None => {}
            }
        });
    }

    /// Ends the run: drops the VM, cancels host work, answers the waiting call (if any).
    pub fn finish(self: &Arc<Self>, result: Result<String, CodeModeError>) {
        let first = !self.finished.swap(true, Ordering::SeqCst);
        let (responder, metrics) = {
            let mut call = self.call.lock();
            (call.responder.take(), call.metrics.clone())
        };
        if !first && responder.is_none() {
            return;
        }
        self.running.store(false, Ordering::SeqCst);
        self.cancel_deadline();
        self.control.abort();
        let (cancelled, resolved) = {
            let mut book = self.book.lock();
            (book.cancel_all(), book.take_resolved())
        };
        for call_id in cancelled {
            self.owner.host().cancel(&call_id);
        }
        if !resolved.is_empty() {
            self.owner.ended_with_resolved(&self.run_id, resolved);
        }
        self.owner.forget(&self.run_id);
        if responder.is_none() {
            self.owner.ended_unanswered(&self.run_id);
        }
        // Before the answer, so that a caller who starts a cell on hearing it finds this
        // VM's sandbox process idle (at `maxSandboxProcesses` that decides whether it
        // starts). Retiring hands the heap to the reaper or the sandbox; it frees nothing here.
        // A turn the watchdog gave up on still holds the VM; it retires it on return.
        if !self.watch.is_abandoned() {
            self.retire_vm();
        }
        if let Some(responder) = responder {
            let outcome = result::final_result(
                &mut self.book.lock(),
                result,
                &metrics,
                self.owner.telemetry(),
            );
            responder(outcome);
        }
    }

    /// Drops the VM: a thread VM's heap is freed by the reaper at guest priority, a
    /// sandbox VM's by its process.
    pub(super) fn retire_vm(&self) {
        discard(std::mem::replace(&mut self.state.lock().phase, Phase::Done));
    }

    fn cancel_deadline(&self) {
        if let Some(key) = self.deadline_timer.lock().take() {
            timer::cancel(key);
        }
        if let Some(key) = self.watchdog_timer.lock().take() {
            timer::cancel(key);
        }
    }

    pub(super) fn park(self: &Arc<Self>, reason: &'static str) {
        let heap = {
            let state = self.state.lock();
            match &state.phase {
                Phase::Live(vm) => vm.heap_bytes(),
                _ => 0,
            }
        };
        let (host_bytes, pending) = {
            let book = self.book.lock();
            (book.host_bytes() as u64, book.pending_count())
        };
        // The call stops running before the run enters the store, so a wait can only claim
        // it once it is parked; an abort (a close, a signal) until then is ours to honour,
        // one after finds the cell not running and drops the run itself.
        let parking = {
            let _state = self.state.lock();
            let _gate = self.call_gate.lock();
            self.running.store(false, Ordering::SeqCst);
            if self.control.is_aborted() {
                None
            } else {
                let mut call = self.call.lock();
                Some((call.responder.take(), call.metrics.clone()))
            }
        };
        let Some((responder, metrics)) = parking else {
            self.finish(Err(CodeModeError::aborted()));
            return;
        };
        let parked = self.owner.park(self, reason, heap + host_bytes, pending);
        // The run ended (closed, cancelled) while this turn was parking it: it must not
        // stay parked, and the caller gets the ending rather than a run id.
        let ended = parked.and_then(|()| {
            if self.finished.load(Ordering::SeqCst) {
                Err(CodeModeError::aborted())
            } else {
                Ok(())
            }
        });
        if let Err(error) = ended {
            if responder.is_none() {
                // A finish that already ran answers nothing more: the entry goes here.
                self.owner.forget(&self.run_id);
            }
            self.call.lock().responder = responder;
            self.finish(Err(error));
            return;
        }
        self.cancel_deadline();
        if let Some(responder) = responder {
            // Built first: the responder may cancel this run, which locks the book.
            let outcome = result::waiting_result(
                &mut self.book.lock(),
                &self.run_id,
                reason,
                &metrics,
                self.owner.telemetry(),
            );
            responder(outcome);
        }
        // Events that raced with parking stay buffered for the next wait.
    }

    /// Settles a pending `yield_control` so the guest continues after a wait.
    pub fn release_yield(&self) {
        let request = self.book.lock().yield_request.take();
        if let Some((id, reason)) = request {
            let payload = serde_json::json!({ "status": "yielded", "reason": reason }).to_string();
            self.inbox.lock().push_front(Event::HostReply {
                bridge_id: id,
                outcome: Ok(payload),
            });
            self.book.lock().expect_reply(id);
        }
    }
}

/// Frees a retired VM at guest priority; releasing a sandboxed one is one message.
fn discard(retired: Phase) {
    match retired {
        Phase::Live(VmHandle::Thread(vm)) => crate::runtime::reaper::discard(vm),
        other => drop(other),
    }
}
