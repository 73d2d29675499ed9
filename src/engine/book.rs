//! The run book of one cell: everything the guest's natives record while it runs
//! (output, host calls in flight and queued, timers, yield, completion) and the
//! `Bridge` implementation that fills it. The cell's turn reads and clears it.

use super::cell::{Cell, Event};
use super::contracts::ToolContracts;
use super::host::{HostCall, Reply};
use super::output::{OutputBudget, OutputEntry};
use super::session::SessionCore;
use super::timer;
use super::trajectory::{preview, NestedCall};
use crate::error::{CodeModeError, ErrorCode};
use crate::guest::natives::Bridge;
use crate::source::redact::Redactor;
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// In-VM queue bound (docs/contract.md, Tool calls and ids).
pub const MAX_QUEUED: usize = 128;
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
enum Queued {
    Tool {
        bridge_id: u32,
        call: HostCall,
        contracts: Arc<ToolContracts>,
    },
    Timer {
        id: u32,
        delay_ms: u64,
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
    console_bytes: usize,
    console_truncated: bool,
    next_bridge_id: u32,
    next_timer_id: u32,
    next_call_seq: u32,
    /// Host calls dispatched and not yet answered, by bridge id.
    pub calls: HashMap<u32, InFlight>,
    /// Guest timers started and not yet fired or cleared, with their timer-thread keys.
    pub timers: HashMap<u32, Option<timer::TimerKey>>,
    queue: VecDeque<Queued>,
    pub yield_request: Option<(u32, Option<String>)>,
    pub completion: Option<Completion>,
    /// A failure decided by a native (queue overflow, throwing timer callback).
    pub fatal: Option<CodeModeError>,
    /// A guest error thrown outside the top-level promise (a timer callback), as error JSON.
    pub thrown: Option<String>,
    /// The newest `KEPT_RECORDS` nested-call records; `nested_base` is the sequence
    /// number of the first one kept, `nested_total` how many were ever made.
    nested: VecDeque<NestedCall>,
    nested_base: usize,
    pub max_pending: usize,
    pub max_output: usize,
    /// The session's redaction, for previews.
    redactor: Arc<Redactor>,
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
        }
    }

    /// Uses the session's redaction for this run's previews.
    pub fn with_redactor(mut self, redactor: Arc<Redactor>) -> Self {
        self.redactor = redactor;
        self
    }

    fn in_flight(&self) -> usize {
        self.calls.len() + self.timers.len()
    }

    /// Host work the guest may still be waiting for.
    pub fn outstanding(&self) -> usize {
        self.in_flight() + self.queue.len()
    }

    /// Unsettled calls as (call id, tool name), in dispatch order, for `pendingToolCalls`
    /// of a waiting result.
    pub fn pending_calls(&self) -> Vec<(String, String)> {
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
            .map(|(_, call_id, tool)| (call_id.clone(), tool.clone()))
            .collect()
    }

    /// Host-side bytes held for this run (part of the parked size).
    pub fn host_bytes(&self) -> usize {
        self.output.stored_bytes()
            + self.calls.len() * 256
            + self.nested.len() * 512
            + self.queue.len() * 256
    }

    /// Marks a host reply as delivered; false if the call is unknown (cancelled, or a
    /// late duplicate), in which case the reply must not reach the guest.
    pub fn settle_call(
        &mut self,
        bridge_id: u32,
        outcome: &Result<String, super::host::HostFailure>,
    ) -> bool {
        let Some(call) = self.calls.remove(&bridge_id) else {
            return false;
        };
        let redactor = self.redactor.clone();
        if let Some(record) = call.record.and_then(|i| self.record_mut(i)) {
            record.duration_ms =
                Some((call.started.elapsed().as_secs_f64() * 1e6).round() / 1000.0);
            match outcome {
                Ok(json) => {
                    record.status = "ok";
                    record.output_preview = Some(preview(&redactor, json));
                }
                Err(failure) => {
                    record.status = "error";
                    record.error = Some(preview(&redactor, &failure.message));
                }
            }
        }
        true
    }

    /// Drops every call, timer and queued item; returns the host call ids to cancel.
    pub fn cancel_all(&mut self) -> Vec<String> {
        let mut ids = Vec::new();
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
    fn add_record(&mut self, record: NestedCall) -> usize {
        let sequence = self.nested_base + self.nested.len();
        self.nested.push_back(record);
        if self.nested.len() > KEPT_RECORDS {
            self.nested.pop_front();
            self.nested_base += 1;
        }
        sequence
    }

    fn record_mut(&mut self, sequence: usize) -> Option<&mut NestedCall> {
        let index = sequence.checked_sub(self.nested_base)?;
        self.nested.get_mut(index)
    }

    /// Nested calls made over the whole run, including records no longer kept.
    pub fn nested_total(&self) -> usize {
        self.nested_base + self.nested.len()
    }

    /// The kept nested-call records, oldest first.
    pub fn records(&self) -> impl Iterator<Item = &NestedCall> {
        self.nested.iter()
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

    fn bridge_id(&mut self) -> u32 {
        self.next_bridge_id = self.next_bridge_id.wrapping_add(1);
        self.next_bridge_id
    }
}

/// The `Bridge` the guest's natives call. Holds the cell weakly: a cell owns its VM, the
/// VM owns the natives, so a strong reference here would be a cycle.
pub struct CellBridge {
    pub book: Arc<Mutex<RunBook>>,
    pub session: Arc<SessionCore>,
    pub cell: Weak<Cell>,
    pub run_id: String,
    pub parent_call_id: Option<String>,
    /// A `restartSafe` cell may only call tools marked `replaySafe`.
    pub restart_safe: bool,
}

pub const RESTART_SAFE_NAMESPACE_REFUSAL: &str =
    "restart-safe code mode cannot call namespace tools.";
pub const RESTART_SAFE_REFUSAL: &str = "restart-safe code mode cannot call tool surfaces that are not proven replay-safe; use audited read, grep, or find tools.";

impl CellBridge {
    /// Starts queued work while slots are free. Called after anything frees a slot.
    pub fn admit(&self) {
        loop {
            let next = {
                let mut book = self.book.lock();
                if book.in_flight() >= book.max_pending {
                    return;
                }
                match book.queue.pop_front() {
                    Some(next) => next,
                    None => return,
                }
            };
            match next {
                Queued::Tool {
                    bridge_id,
                    call,
                    contracts,
                } => self.dispatch(bridge_id, call, &contracts),
                Queued::Timer { id, delay_ms } => self.start_timer(id, delay_ms),
            }
        }
    }

    fn dispatch(&self, bridge_id: u32, call: HostCall, contracts: &Arc<ToolContracts>) {
        let refused = contracts
            .check_input(&call.callable_name, &call.input_json)
            .err();
        {
            let mut book = self.book.lock();
            let started = NestedCall::started(&call, &book.redactor);
            let record = book.add_record(started);
            book.calls.insert(
                bridge_id,
                InFlight {
                    call_id: call.call_id.clone(),
                    callable_name: call.callable_name.clone(),
                    contracts: Some(contracts.clone()),
                    tool_name: call.tool_name.clone(),
                    started: Instant::now(),
                    record: Some(record),
                },
            );
        }
        let reply = Reply::new(self.cell.clone(), bridge_id);
        match refused {
            // The contract failed: the host never sees the call, the guest gets the error.
            Some(failure) => reply.fail(failure),
            None => {
                self.session.count_call();
                self.session.host().call_tool(call, reply);
            }
        }
    }

    fn start_timer(&self, id: u32, delay_ms: u64) {
        self.book.lock().timers.insert(id, None);
        let cell = self.cell.clone();
        let key = timer::schedule(
            Instant::now() + Duration::from_millis(delay_ms),
            move || {
                if let Some(cell) = cell.upgrade() {
                    cell.push(Event::Timer { id });
                }
            },
        );
        if let Some(slot) = self.book.lock().timers.get_mut(&id) {
            *slot = Some(key);
        }
    }

    fn enqueue_or_run(&self, item: Queued) -> Result<(), String> {
        let mut book = self.book.lock();
        if book.in_flight() < book.max_pending && book.queue.is_empty() {
            drop(book);
            match item {
                Queued::Tool {
                    bridge_id,
                    call,
                    contracts,
                } => self.dispatch(bridge_id, call, &contracts),
                Queued::Timer { id, delay_ms } => self.start_timer(id, delay_ms),
            }
            return Ok(());
        }
        if book.queue.len() >= MAX_QUEUED {
            let message = format!(
                "code mode bridge queue limit exceeded ({} ordinary requests queued; {} in-flight slots). Await smaller batches before creating more tool calls or timers.",
                book.queue.len() + 1,
                book.max_pending
            );
            book.fatal.get_or_insert_with(|| {
                CodeModeError::new(ErrorCode::InvalidInput, message.clone())
            });
            return Err(message);
        }
        book.queue.push_back(item);
        Ok(())
    }
}

impl CellBridge {
    fn emit_output(&self, entry: &OutputEntry) {
        self.session.emit(|| {
            let entry = match entry {
                OutputEntry::Text(text) => {
                    serde_json::json!({ "type": "text", "text": preview(self.session.redactor(), text) })
                }
                OutputEntry::Json(value) => serde_json::json!({ "type": "json", "value": value }),
            };
            serde_json::json!({ "type": "output", "runId": self.run_id, "entry": entry })
        });
    }
}

impl Bridge for CellBridge {
    fn call(&self, method: &str, target: &str, input_json: String) -> Result<u32, String> {
        super::panic_probe::maybe_panic(target, super::panic_probe::BRIDGE_MARKER);
        let (tool, input_json) = match method {
            "tool" => (self.session.resolve_tool(target)?, input_json),
            "surface" => self.session.resolve_surface(target, input_json)?,
            _ => return Err(format!("Unknown bridge method: {method}.")),
        };
        if self.restart_safe && !tool.replay_safe {
            let message = if tool.surface {
                RESTART_SAFE_NAMESPACE_REFUSAL
            } else {
                RESTART_SAFE_REFUSAL
            }
            .to_string();
            self.book
                .lock()
                .fatal
                .get_or_insert_with(|| CodeModeError::invalid_input(message.clone()));
            return Err(message);
        }
        let (bridge_id, seq) = {
            let mut book = self.book.lock();
            if let Some(max) = self.session.max_tool_calls() {
                if u64::from(book.next_call_seq) >= max {
                    let message =
                        format!("code mode script exceeded its tool-call budget of {max} calls.");
                    book.fatal.get_or_insert_with(|| {
                        CodeModeError::new(ErrorCode::ToolBudgetExceeded, message.clone())
                    });
                    return Err(message);
                }
            }
            book.next_call_seq += 1;
            (book.bridge_id(), book.next_call_seq)
        };
        let call = HostCall {
            call_id: format!("{}:{seq}", self.run_id),
            parent_call_id: self.parent_call_id.clone(),
            run_id: self.run_id.clone(),
            session_id: self.session.session_id().to_string(),
            tool_index: tool.host_index,
            surface: tool.surface,
            tool_name: tool.tool_name,
            callable_name: tool.callable_name,
            input_json,
        };
        self.enqueue_or_run(Queued::Tool {
            bridge_id,
            call,
            contracts: tool.contracts,
        })?;
        Ok(bridge_id)
    }

    fn output(&self, kind: u8, text: String) {
        let entry = if kind == 0 {
            OutputEntry::Text(text)
        } else {
            OutputEntry::Json(serde_json::from_str(&text).unwrap_or(serde_json::Value::Null))
        };
        self.emit_output(&entry);
        self.book.lock().output.push(entry);
    }

    fn console(&self, line: String) {
        let mut book = self.book.lock();
        if book.console_truncated {
            return;
        }
        let cap = book.max_output;
        book.console_bytes += line.len();
        if book.console_bytes > cap {
            book.console_truncated = true;
            book.output
                .push(OutputEntry::Text("[console output truncated]".to_string()));
            return;
        }
        drop(book);
        let entry = OutputEntry::Text(line);
        self.emit_output(&entry);
        self.book.lock().output.push(entry);
    }

    fn timer(&self, delay_ms: u64) -> Result<u32, String> {
        let id = {
            let mut book = self.book.lock();
            book.next_timer_id += 1;
            book.next_timer_id
        };
        self.enqueue_or_run(Queued::Timer { id, delay_ms })?;
        Ok(id)
    }

    fn clear_timer(&self, id: u32) {
        let freed = {
            let mut book = self.book.lock();
            let removed = book.timers.remove(&id);
            if let Some(Some(key)) = removed {
                timer::cancel(key);
            }
            let was_running = removed.is_some();
            book.queue
                .retain(|q| !matches!(q, Queued::Timer { id: queued, .. } if *queued == id));
            was_running
        };
        if freed {
            self.admit();
        }
    }

    fn yield_control(&self, reason: Option<String>) -> u32 {
        let mut book = self.book.lock();
        let id = book.bridge_id();
        book.yield_request = Some((id, reason));
        id
    }

    fn finish(&self, ok: bool, payload: String) {
        let mut book = self.book.lock();
        if book.completion.is_none() {
            book.completion = Some(if ok {
                Completion::Value(payload)
            } else {
                Completion::Error(payload)
            });
        }
    }

    fn fail(&self, payload: String) {
        let mut book = self.book.lock();
        if book.thrown.is_none() {
            book.thrown = Some(payload);
        }
    }

    fn search(&self, query: &str, limit: u32) -> Result<String, String> {
        let budget = self.book.lock().output.max_bytes();
        self.session.search(query, limit, budget)
    }

    fn describe(&self, callable: &str) -> Result<String, String> {
        self.session.describe(callable)
    }

    fn tool_meta(&self, callable: &str) -> Result<String, String> {
        self.session.tool_meta(callable)
    }

    fn api_list(&self, prefix: &str) -> String {
        self.session.api_list(prefix)
    }

    fn mcp_api(&self, server: &str, tool: Option<&str>, schema: bool) -> Result<String, String> {
        self.session.mcp_api(server, tool, schema)
    }

    fn api_read(&self, path: &str) -> Result<String, String> {
        self.session.api_read(path)
    }
}
