//! The state of one run: everything its natives record while it runs (output, host calls
//! in flight and queued, timers, yield, completion, nested-call records). Data only; the
//! bridge fills it and the cell's turn reads and clears it.

pub mod external;

use super::contracts::ToolContracts;
use super::nested_calls::NestedCall;
use super::output::OutputBudget;
use super::protocol::HostCall;
use crate::error::CodeModeError;
use crate::runtime::timer;
use crate::source::redact::Redactor;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

/// In-VM queue bound (docs/contract.md, Tool calls and ids).
pub const MAX_QUEUED: usize = 128;
/// Most bytes of tool input that queued calls (not yet dispatched) may hold, unless
/// four inputs of the session's `maxToolInputBytes` are more.
pub const MAX_QUEUED_INPUT_BYTES: u64 = 8 << 20;
/// Nested-call records kept per run (a result shows at most these, newest last). A cell
/// looping over a fast tool makes ~20,000 calls a second: keeping every record would
/// grow host memory without bound, outside the VM's memory limit.
pub const KEPT_RECORDS: usize = 100;

/// How the top-level promise ended: value JSON, or error JSON from the prelude.
#[derive(Debug)]
pub enum Completion {
    Value(String),
    Error(String),
}

/// Work waiting for an in-flight slot.
pub(super) enum Queued {
    Tool {
        bridge_id: u32,
        call: HostCall,
        contracts: Arc<ToolContracts>,
        /// The size of an input over `maxToolInputBytes`, which is refused at dispatch and
        /// so not kept (`call.input_json` is empty).
        oversize: Option<u64>,
        /// A durable run's replay: the call is in its ledger and is not dispatched again.
        recorded: bool,
    },
    Timer {
        id: u32,
        delay_ms: u64,
        /// A durable run's replay: the fire comes from the ledger, not the timer thread.
        recorded: bool,
    },
}

pub struct InFlight {
    pub call_id: String,
    /// The guest's name for the tool (host ids never reach the guest).
    pub callable_name: String,
    /// The called tool's contracts, for its output; `None` for internal replies.
    pub contracts: Option<Arc<ToolContracts>>,
    pub tool_name: String,
    pub started: Instant,
    /// Index into `nested`; `None` for internal replies (a released yield).
    pub record: Option<usize>,
}

pub struct RunBook {
    pub output: OutputBudget,
    pub(super) console_bytes: usize,
    pub(super) console_truncated: bool,
    pub(super) next_bridge_id: u32,
    pub(super) next_timer_id: u32,
    pub(super) next_call_seq: u32,
    /// Host calls dispatched and not yet answered, by bridge id.
    pub calls: HashMap<u32, InFlight>,
    /// Guest timers started and not yet fired or cleared, with their timer-thread keys.
    pub timers: HashMap<u32, Option<timer::TimerKey>>,
    pub(super) queue: VecDeque<Queued>,
    pub yield_request: Option<(u32, Option<String>)>,
    pub completion: Option<Completion>,
    /// A failure decided by a native (queue overflow, throwing timer callback).
    pub fatal: Option<CodeModeError>,
    /// A guest error thrown outside the top-level promise (a timer callback), as error JSON.
    pub thrown: Option<String>,
    /// The newest `KEPT_RECORDS` nested-call records; `nested_base` is the sequence
    /// number of the first one kept, `nested_total` how many were ever made.
    pub(super) nested: VecDeque<NestedCall>,
    pub(super) nested_base: usize,
    pub max_pending: usize,
    pub max_output: usize,
    /// The session's redaction, for previews.
    pub(super) redactor: Arc<Redactor>,
    /// Calls parked by `ctx.suspend` for `resolveCall` (run/external.rs).
    pub(super) external: external::ExternalCalls,
    /// A durable run's replay: the recorded calls not dispatched again, for the ones
    /// still out when the record was written (run/cell/journal.rs).
    pub replayed: HashMap<u32, HostCall>,
}

impl RunBook {
    pub fn new(max_output_bytes: usize, max_pending: usize) -> Self {
        RunBook {
            output: OutputBudget::new(max_output_bytes),
            console_bytes: 0,
            console_truncated: false,
            next_bridge_id: 0,
            next_timer_id: 0,
            next_call_seq: 0,
            calls: HashMap::new(),
            timers: HashMap::new(),
            queue: VecDeque::new(),
            yield_request: None,
            completion: None,
            fatal: None,
            thrown: None,
            nested: VecDeque::new(),
            nested_base: 0,
            max_pending,
            max_output: max_output_bytes,
            redactor: Arc::default(),
            external: Default::default(),
            replayed: HashMap::new(),
        }
    }

    /// Uses the session's redaction for this run's previews.
    pub fn with_redactor(mut self, redactor: Arc<Redactor>) -> Self {
        self.redactor = redactor;
        self
    }

    pub(super) fn in_flight(&self) -> usize {
        self.calls.len() + self.timers.len()
    }

    /// Host work the guest may still be waiting for.
    pub fn outstanding(&self) -> usize {
        self.in_flight() + self.queue.len()
    }

    /// Unsettled calls as (call id, tool name, the payload of an external call waiting for
    /// `resolveCall`), in dispatch order, for `pendingToolCalls` of a waiting result.
    pub fn pending_calls(&self) -> Vec<(String, String, Option<String>)> {
        let in_flight = self
            .calls
            .iter()
            .filter(|(_, call)| call.record.is_some())
            .map(|(id, call)| (*id, &call.call_id, &call.tool_name));
        let queued = self.queue.iter().filter_map(|queued| match queued {
            Queued::Tool {
                bridge_id, call, ..
            } => Some((*bridge_id, &call.call_id, &call.tool_name)),
            Queued::Timer { .. } => None,
        });
        let mut pending: Vec<_> = in_flight.chain(queued).collect();
        pending.sort_by_key(|(id, _, _)| *id);
        pending
            .into_iter()
            .map(|(id, call_id, tool)| {
                let payload = self.external_payload(id).map(str::to_string);
                (call_id.clone(), tool.clone(), payload)
            })
            .collect()
    }

    /// How many entries `pending_calls` lists, without copying them.
    pub fn pending_count(&self) -> usize {
        let in_flight = self.calls.values().filter(|c| c.record.is_some()).count();
        let queued = self.queue.iter();
        in_flight + queued.filter(|q| matches!(q, Queued::Tool { .. })).count()
    }

    /// Host-side bytes held for this run (part of the parked size).
    pub fn host_bytes(&self) -> usize {
        self.output.stored_bytes()
            + self.external_bytes()
            + self.calls.len() * 256
            + self.nested.len() * 512
            + self.queue.len() * 256
    }

    /// Marks a host reply as delivered; false if the call is unknown (cancelled, or a
    /// late duplicate), in which case the reply must not reach the guest.
    pub fn settle_call(
        &mut self,
        bridge_id: u32,
        outcome: &Result<String, crate::run::protocol::HostFailure>,
    ) -> bool {
        let Some(call) = self.calls.remove(&bridge_id) else {
            return false;
        };
        self.forget_external(bridge_id);
        let index = call.record.and_then(|i| i.checked_sub(self.nested_base));
        if let Some(record) = index.and_then(|i| self.nested.get_mut(i)) {
            let redactor = &self.redactor;
            record.duration_ms =
                Some((call.started.elapsed().as_secs_f64() * 1e6).round() / 1000.0);
            match outcome {
                Ok(json) => record.succeeded(redactor, json),
                Err(failure) => record.failed(redactor, &failure.message),
            }
        }
        true
    }

    /// Drops every call, timer and queued item; returns the host call ids to cancel.
    pub fn cancel_all(&mut self) -> Vec<String> {
        let mut ids = Vec::new();
        self.clear_external();
        let calls: Vec<InFlight> = self.calls.drain().map(|(_, call)| call).collect();
        for call in calls {
            if let Some(record) = call.record.and_then(|i| self.record_mut(i)) {
                record.status = "cancelled";
            }
            if call.record.is_some() {
                ids.push(call.call_id);
            }
        }
        for (_, key) in self.timers.drain() {
            if let Some(key) = key {
                timer::cancel(key);
            }
        }
        self.queue.clear();
        ids
    }

    /// Records a dispatched call; returns its sequence number for `record_mut`. The oldest
    /// record is dropped beyond `KEPT_RECORDS` (a late settle of it then updates nothing).
    pub(super) fn add_record(&mut self, record: NestedCall) -> usize {
        let sequence = self.nested_base + self.nested.len();
        self.nested.push_back(record);
        if self.nested.len() > KEPT_RECORDS {
            self.nested.pop_front();
            self.nested_base += 1;
        }
        sequence
    }

    pub(super) fn record_mut(&mut self, sequence: usize) -> Option<&mut NestedCall> {
        let index = sequence.checked_sub(self.nested_base)?;
        self.nested.get_mut(index)
    }

    /// Nested calls made over the whole run, including records no longer kept.
    pub fn nested_total(&self) -> usize {
        self.nested_base + self.nested.len()
    }

    /// The kept nested-call records, oldest first, redacted (once: a record keeps its
    /// short texts unredacted until it is first read here).
    pub fn records(&mut self) -> impl Iterator<Item = &NestedCall> {
        let redactor = &self.redactor;
        self.nested.iter_mut().map(|record| {
            record.redact(redactor);
            &*record
        })
    }

    /// Registers an internal reply the next turn will deliver (a released yield).
    pub fn expect_reply(&mut self, bridge_id: u32) {
        self.calls.insert(
            bridge_id,
            InFlight {
                call_id: String::new(),
                callable_name: String::new(),
                contracts: None,
                tool_name: "yield_control".into(),
                started: Instant::now(),
                record: None,
            },
        );
    }

    pub(super) fn bridge_id(&mut self) -> u32 {
        self.next_bridge_id = self.next_bridge_id.wrapping_add(1);
        self.next_bridge_id
    }
}
