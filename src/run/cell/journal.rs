//! A durable run's turns: recorded deliveries are applied to a fresh VM in ledger order
//! until the record is used up, then what was still out when it was written is taken up
//! live; live deliveries are applied one per job drain and appended, so the order a guest
//! saw is the order a replay gives it.

use super::{Cell, Verdict};
use crate::error::{messages, CodeModeError, ErrorCode};
use crate::guest::vm::Determinism;
use crate::run::ledger::{Delivery, Journal, Ledger, Outcome};
use crate::run::protocol::{Event, HostFailure};
use crate::sandbox::handle::VmHandle;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What a durable cell starts from: its determinism and the ledger to replay (empty for
/// a new run).
#[derive(Clone, Debug)]
pub struct DurableStart {
    pub determinism: Determinism,
    pub ledger: Ledger,
}

impl DurableStart {
    /// A new durable run: its clock starts now, its random numbers from a fresh seed.
    pub fn fresh() -> DurableStart {
        let mut seed = [0u8; 8];
        if getrandom::fill(&mut seed).is_err() {
            seed = crate::guest::control::now_ns().to_le_bytes();
        }
        DurableStart {
            determinism: Determinism {
                seed: u64::from_le_bytes(seed),
                origin_ms: unix_ms(),
            },
            ledger: Ledger::fresh(),
        }
    }
}

/// A durable cell's journal and whether it has taken up what its record left out.
pub(super) struct Durable {
    pub(super) journal: Arc<Mutex<Journal>>,
    pub(super) determinism: Determinism,
    /// The run's source and `restartSafe`, as its record keeps them.
    code: String,
    restart_safe: bool,
    /// Set once the record is used up and its calls still out were taken up.
    live: AtomicBool,
    /// Set once the fresh VM's first jobs ran: the run drained them before anything was
    /// delivered, so a replay must too (an `await` before the first call).
    drained: AtomicBool,
}

impl Durable {
    pub(super) fn new(start: DurableStart, code: &str, restart_safe: bool) -> Durable {
        let fresh = start.ledger.deliveries.is_empty()
            && start.ledger.calls.is_empty()
            && start.ledger.timers.is_empty();
        Durable {
            journal: Arc::new(Mutex::new(Journal::replay(
                start.ledger,
                start.determinism.origin_ms,
            ))),
            determinism: start.determinism,
            code: code.to_string(),
            restart_safe,
            live: AtomicBool::new(fresh),
            drained: AtomicBool::new(false),
        }
    }
}

impl Durable {
    /// The record is used up and what it left out was taken up: the run goes on live.
    pub(super) fn is_live(&self) -> bool {
        self.live.load(Ordering::SeqCst)
    }
}

/// A guest-facing failure for a call whose outcome was lost with the process that
/// dispatched it.
pub const EFFECT_UNKNOWN: &str = "this tool call was dispatched before the gateway process running it stopped, and its outcome was lost: it may or may not have taken effect. Check its effect before calling it again.";

impl Cell {
    /// The step of a durable turn before its job drain: one recorded delivery while
    /// replaying, else (after taking up what the record left out) one live delivery.
    pub(super) fn durable_step(self: &Arc<Self>, durable: &Durable, vm: &VmHandle) {
        if durable.journal.lock().replaying() {
            if durable.drained.swap(true, Ordering::SeqCst) {
                self.replay(durable, vm);
            }
            return;
        }
        if !durable.live.swap(true, Ordering::SeqCst) {
            self.take_up(durable);
        } else {
            self.lapse_held(durable);
        }
        self.apply_one_live(durable, vm);
    }

    /// Whether a durable turn has more to do before it may idle: a record not used up, or
    /// live events waiting (each gets a drain of its own).
    pub(super) fn durable_more(&self, durable: &Durable) -> bool {
        durable.journal.lock().replaying()
            || !durable.live.load(Ordering::SeqCst)
            || !self.inbox.lock().is_empty()
    }

    /// A verdict seen through the record: a replay cannot park (the record goes on), and
    /// a program that ends before its record is used up diverged.
    pub(super) fn durable_verdict(&self, durable: &Durable, verdict: Verdict) -> Verdict {
        if durable.live.load(Ordering::SeqCst) && !durable.journal.lock().replaying() {
            return verdict;
        }
        match verdict {
            Verdict::Park(_) => Verdict::Idle,
            // A timeout, an abort or a lost sandbox says nothing about the program.
            Verdict::Finish(Err(error)) if ends_any_run(error.code) => Verdict::Finish(Err(error)),
            Verdict::Finish(_) => Verdict::Finish(Err(divergence(
                "the program ended before its record was used up",
            ))),
            verdict => verdict,
        }
    }

    /// Applies the first host reply or timer fire waiting (the rest wait for their own
    /// drain) and appends it to the ledger with the clock the guest reads from then on.
    fn apply_one_live(&self, durable: &Durable, vm: &VmHandle) {
        self.arrivals.store(0, Ordering::SeqCst);
        loop {
            let Some(event) = self.inbox.lock().pop_front() else {
                return;
            };
            let clock_ms = unix_ms();
            let delivery = match event {
                Event::HostReply { bridge_id, outcome } => {
                    let outcome = self.admit_outcome(bridge_id, outcome);
                    self.record_reply(bridge_id, &outcome).map(|(ok, payload)| {
                        vm.set_clock(clock_ms);
                        vm.settle(bridge_id, ok, &payload);
                        Delivery::Reply {
                            bridge_id,
                            outcome: Outcome { ok, payload },
                            clock_ms,
                        }
                    })
                }
                Event::Timer { id } => {
                    let started = self.book.lock().timers.remove(&id).is_some();
                    started.then(|| {
                        vm.set_clock(clock_ms);
                        vm.fire_timer(id);
                        Delivery::Timer { id, clock_ms }
                    })
                }
                Event::Abort | Event::Deadline | Event::CallSuspended => None,
            };
            if let Some(delivery) = delivery {
                let bytes = {
                    let mut journal = durable.journal.lock();
                    journal.applied_live(delivery);
                    journal.bytes()
                };
                let max = self.owner.limits().max_snapshot_bytes;
                if bytes as u64 > max {
                    self.book.lock().fatal.get_or_insert_with(|| {
                        CodeModeError::new(
                            ErrorCode::SnapshotLimitExceeded,
                            messages::ledger_too_large(max),
                        )
                    });
                }
                if let Some(bridge) = self.bridge.get() {
                    bridge.admit();
                }
                return;
            }
        }
    }

    pub(super) fn diverge(&self, why: &str) {
        self.book
            .lock()
            .fatal
            .get_or_insert_with(|| divergence(why));
    }
}

fn divergence(why: &str) -> CodeModeError {
    CodeModeError::new(
        ErrorCode::ReplayDivergence,
        messages::replay_divergence(why),
    )
}

/// Ends that say nothing about the program: a replay may meet them like any run.
fn ends_any_run(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::Timeout
            | ErrorCode::Aborted
            | ErrorCode::MemoryLimitExceeded
            | ErrorCode::InternalError
            | ErrorCode::ReplayDivergence
            | ErrorCode::RuntimeUnavailable
    )
}

/// A recorded outcome as the host's: a failure's payload is the `{ message, code }` the
/// guest was given.
pub(super) fn host_outcome(outcome: &Outcome) -> Result<String, HostFailure> {
    if outcome.ok {
        return Ok(outcome.payload.clone());
    }
    let value: serde_json::Value = serde_json::from_str(&outcome.payload).unwrap_or_default();
    let message = value["message"].as_str().unwrap_or_default().to_string();
    let code = match value["code"].as_str() {
        Some("invalid_input") => "invalid_input",
        Some("input_contract") => "input_contract",
        Some("output_contract") => "output_contract",
        _ => "tool_error",
    };
    Err(HostFailure { message, code })
}

/// A host outcome as a record keeps it: a failure's payload is the `{ message, code }`
/// the guest is given.
pub(super) fn outcome_of(outcome: &Result<String, HostFailure>) -> Outcome {
    match outcome {
        Ok(json) => Outcome {
            ok: true,
            payload: json.clone(),
        },
        Err(failure) => Outcome {
            ok: false,
            payload: serde_json::json!({ "message": failure.message, "code": failure.code })
                .to_string(),
        },
    }
}

/// Wall-clock time in milliseconds since the Unix epoch.
pub fn unix_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |since| since.as_secs_f64() * 1000.0)
}

impl Cell {
    /// A durable run's record as of now, holding the calls this process runs until
    /// `hold_until_ms`; `None` for a run that is not durable.
    pub fn durable_record(
        &self,
        hold_until_ms: Option<f64>,
    ) -> Option<crate::run::record::RunRecord> {
        let durable = self.durable.as_ref()?;
        Some(crate::run::record::RunRecord {
            format: crate::run::record::RECORD_FORMAT,
            code: durable.code.clone(),
            language: self.language,
            restart_safe: durable.restart_safe,
            determinism: durable.determinism,
            limits: crate::run::record::RecordedLimits::of(self.owner.limits()),
            ledger: self.ledger_to_keep(durable, hold_until_ms),
            claimed_until_ms: None,
        })
    }

    /// Whether the cell has not started its VM yet (a run adopted from a record).
    pub fn is_new(&self) -> bool {
        self.bridge.get().is_none()
    }

    /// A durable run's call suspended itself: its record says so, with the payload.
    pub(super) fn journal_external(&self, bridge_id: u32, payload: &str) {
        if let Some(durable) = &self.durable {
            durable.journal.lock().mark_external(bridge_id, payload);
        }
    }

    /// A durable run's external call was resolved: its record keeps the outcome until a
    /// turn delivers it.
    pub(super) fn journal_resolved(&self, bridge_id: u32, outcome: &Result<String, HostFailure>) {
        if let Some(durable) = &self.durable {
            let outcome = outcome_of(outcome);
            durable.journal.lock().resolve_external(bridge_id, outcome);
        }
    }
}
