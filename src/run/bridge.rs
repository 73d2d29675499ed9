//! The `Bridge` a cell's natives call: records into the run's state, starts host calls
//! and timers as in-flight slots free up, and answers catalog questions through the
//! run's context.

mod journal;
use super::contracts::ToolContracts;
use super::ledger::{Journal, ReadKind};
use super::nested_calls::{preview, NestedCall};
use super::output::OutputEntry;
use super::owner::{self, RunContext};
use super::protocol::{Event, HostCall, HostFailure, Inbox, Reply};
use super::state::{Completion, InFlight, Queued, RunBook, MAX_QUEUED, MAX_QUEUED_INPUT_BYTES};
use crate::error::{messages, CodeModeError, ErrorCode};
use crate::guest::natives::Bridge;
use crate::runtime::timer;
use parking_lot::Mutex;
use serde_json::json;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// The `Bridge` the guest's natives call. Holds the cell weakly: a cell owns its VM, the
/// VM owns the natives, so a strong reference here would be a cycle.
pub struct CellBridge {
    pub book: Arc<Mutex<RunBook>>,
    pub context: Arc<dyn RunContext>,
    pub cell: Weak<dyn Inbox>,
    pub run_id: String,
    pub parent_call_id: Option<String>,
    /// A `restartSafe` cell may only call tools marked `replaySafe`.
    pub restart_safe: bool,
    /// A durable run's journal: what it issues is checked against (replay) or added to it.
    pub journal: Option<Arc<Mutex<Journal>>>,
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
            self.run(next);
        }
    }

    /// Sends a tool call to the host or starts a timer.
    fn run(&self, item: Queued) {
        match item {
            Queued::Tool {
                bridge_id,
                call,
                contracts,
                oversize,
                recorded,
            } => self.dispatch(bridge_id, call, &contracts, oversize, recorded),
            Queued::Timer {
                id,
                delay_ms,
                recorded,
            } => self.start_timer(id, delay_ms, recorded),
        }
    }

    fn dispatch(
        &self,
        bridge_id: u32,
        call: HostCall,
        contracts: &Arc<ToolContracts>,
        oversize: Option<u64>,
        recorded: bool,
    ) {
        let max = self.context.limits().max_tool_input_bytes;
        let size =
            oversize.unwrap_or_else(|| u64::try_from(call.input_json.len()).unwrap_or(u64::MAX));
        let refused = match size {
            size if size > max => Some(HostFailure {
                message: messages::tool_input_too_large(&call.callable_name, size, max),
                code: "input_contract",
            }),
            _ => contracts
                .check_input(&call.callable_name, &call.input_json)
                .err(),
        };
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
            if recorded {
                // Its answer is in the ledger; the host sees it again only if it was still
                // out when the record was written (run/cell/journal.rs).
                book.replayed.insert(bridge_id, call);
                return;
            }
        }
        let reply = Reply::new(self.cell.clone(), bridge_id);
        match refused {
            // The contract failed: the host never sees the call, the guest gets the error.
            Some(failure) => reply.fail(failure),
            None => {
                self.context.count_call();
                self.context.host().call_tool(call, reply);
            }
        }
    }

    fn start_timer(&self, id: u32, delay_ms: u64, recorded: bool) {
        self.book.lock().timers.insert(id, None);
        if recorded {
            return;
        }
        let cell = self.cell.clone();
        let key = timer::schedule(
            Instant::now() + Duration::from_millis(delay_ms),
            move || {
                if let Some(cell) = cell.upgrade() {
                    cell.deliver(Event::Timer { id });
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
            self.run(item);
            return Ok(());
        }
        let max_bytes = MAX_QUEUED_INPUT_BYTES
            .max(self.context.limits().max_tool_input_bytes.saturating_mul(4));
        let queued_bytes = || {
            book.queue
                .iter()
                .chain(std::iter::once(&item))
                .map(|queued| match queued {
                    Queued::Tool { call, .. } => call.input_json.len() as u64,
                    Queued::Timer { .. } => 0,
                })
                .sum::<u64>()
        };
        // A replay's calls and timers are the record's, bounded by its size: a sandbox that
        // gets many recorded answers in one command makes them all before the run's book
        // frees the slots those answers free (run/cell/replay.rs).
        let recorded = matches!(
            item,
            Queued::Tool { recorded: true, .. } | Queued::Timer { recorded: true, .. }
        );
        let over = if recorded {
            None
        } else if book.queue.len() >= MAX_QUEUED {
            Some(format!("{} ordinary requests queued", book.queue.len() + 1))
        } else {
            let bytes = queued_bytes();
            (bytes > max_bytes)
                .then(|| format!("{bytes} bytes of tool input queued, over {max_bytes}"))
        };
        if let Some(over) = over {
            let message = format!(
                "code mode bridge queue limit exceeded ({over}; {} in-flight slots). Await smaller batches before creating more tool calls or timers.",
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
        owner::emit(&*self.context, || {
            let entry = match entry {
                OutputEntry::Text(text) => {
                    serde_json::json!({ "type": "text", "text": preview(self.context.redactor(), text) })
                }
                OutputEntry::Json(value) => serde_json::json!({ "type": "json", "value": value }),
            };
            serde_json::json!({ "type": "output", "runId": self.run_id, "entry": entry })
        });
    }
}

impl CellBridge {
    fn call_contained(
        &self,
        method: &str,
        target: &str,
        input_json: String,
    ) -> Result<u32, String> {
        crate::runtime::panic_probe::maybe_panic(
            target,
            crate::runtime::panic_probe::BRIDGE_MARKER,
        );
        let (tool, input_json) = match method {
            "tool" => (self.context.resolve_tool(target)?, input_json),
            "surface" => self.context.resolve_surface(target, input_json)?,
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
            if let Some(max) = self.context.max_tool_calls() {
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
        let max_input = self.context.limits().max_tool_input_bytes;
        let size = u64::try_from(input_json.len()).unwrap_or(u64::MAX);
        // Refused at dispatch by its size alone: the input itself need not wait in the queue.
        let (oversize, input_json) = if size > max_input {
            (Some(size), String::new())
        } else {
            (None, input_json)
        };
        let call_id = format!("{}:{seq}", self.run_id);
        let recorded = self.journal_call(bridge_id, &call_id, &tool, &input_json)?;
        let call = HostCall {
            call_id,
            parent_call_id: self.parent_call_id.clone(),
            run_id: self.run_id.clone(),
            session_id: self.context.session_id().to_string(),
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
            oversize,
            recorded,
        })?;
        Ok(bridge_id)
    }
}

impl Bridge for CellBridge {
    fn call(&self, method: &str, target: &str, input_json: String) -> Result<u32, String> {
        // The guest VM would turn a panic here into a guest exception; a bug of the addon
        // must fail the cell as `internal_error` whatever the guest does with it.
        let called = catch_unwind(AssertUnwindSafe(|| {
            self.call_contained(method, target, input_json)
        }));
        let called = called.unwrap_or_else(|_| {
            let message = "internal error: the code mode engine hit a bug and contained it; the cell was stopped.";
            self.book
                .lock()
                .fatal
                .get_or_insert_with(|| CodeModeError::internal(message));
            Err(message.to_string())
        });
        if called.is_err() {
            self.journal_refusal();
        }
        called
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
        let recorded = match &self.journal {
            None => false,
            Some(journal) => {
                let mut journal = journal.lock();
                let clock = journal.clock_ms();
                let issued = journal
                    .reads_done_before(false, "a timer")
                    .and_then(|()| journal.issue_timer(id, delay_ms, clock));
                let bytes = journal.bytes();
                drop(journal);
                self.within_record(bytes)?;
                self.issued(issued)?
            }
        };
        self.enqueue_or_run(Queued::Timer {
            id,
            delay_ms,
            recorded,
        })?;
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
        self.read(ReadKind::Search, json!([query, limit]), || {
            let budget = self.book.lock().output.max_bytes();
            self.context.search(query, limit, budget)
        })
    }

    fn describe(&self, callable: &str) -> Result<String, String> {
        self.read(ReadKind::Describe, json!([callable]), || {
            self.context.describe(callable)
        })
    }

    fn tool_meta(&self, callable: &str) -> Result<String, String> {
        self.read(ReadKind::ToolMeta, json!([callable]), || {
            self.context.tool_meta(callable)
        })
    }

    fn api_list(&self, prefix: &str) -> String {
        self.read(ReadKind::ApiList, json!([prefix]), || {
            Ok(self.context.api_list(prefix))
        })
        // Only a divergence (which fails the run) gets here: the guest sees no files.
        .unwrap_or_else(|_| r#"{"files":[]}"#.to_string())
    }

    fn mcp_api(&self, server: &str, tool: Option<&str>, schema: bool) -> Result<String, String> {
        self.read(ReadKind::McpApi, json!([server, tool, schema]), || {
            self.context.mcp_api(server, tool, schema)
        })
    }

    fn api_read(&self, path: &str) -> Result<String, String> {
        self.read(ReadKind::ApiRead, json!([path]), || {
            self.context.api_read(path)
        })
    }
}
