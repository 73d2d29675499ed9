//! A small `RunOwner` for cells run without a session: a fixed tool list, limits and a
//! host. Like a session, it owns its cells from start until `forget` (a cell awaiting the
//! host has no other owner); it records every park and forget, and can refuse to park
//! (as a full store would).

use codemode_native::error::CodeModeError;
use codemode_native::limits::Limits;
use codemode_native::run::cell::{Cell, CellSource, Responder};
use codemode_native::run::contracts::ToolContracts;
use codemode_native::run::owner::{Directory, RunContext, RunOwner, ToolRef};
use codemode_native::run::protocol::Host;
use codemode_native::run::result::{SessionTelemetry, Telemetry, ToolSources};
use codemode_native::source::redact::Redactor;
use codemode_native::source::Language;
use parking_lot::Mutex;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub struct FakeOwner {
    tools: Vec<String>,
    limits: Limits,
    redactor: Arc<Redactor>,
    host: Arc<dyn Host>,
    /// Refuse every park with this message (`invalid_input`).
    refuse_park: Option<&'static str>,
    /// Cells started and not yet forgotten, running or parked.
    pub cells: Mutex<HashMap<String, Arc<Cell>>>,
    /// `(run id, reason, pending calls)` of every park, accepted or not.
    pub parks: Mutex<Vec<(String, &'static str, usize)>>,
    pub forgotten: Mutex<Vec<String>>,
    calls: AtomicU64,
}

impl FakeOwner {
    pub fn new(tools: &[&str], limits: Value, host: Arc<dyn Host>) -> FakeOwner {
        FakeOwner {
            tools: tools.iter().map(|t| t.to_string()).collect(),
            limits: Limits::from_json(Some(&limits)),
            redactor: Arc::default(),
            host,
            refuse_park: None,
            cells: Mutex::new(HashMap::new()),
            parks: Mutex::new(Vec::new()),
            forgotten: Mutex::new(Vec::new()),
            calls: AtomicU64::new(0),
        }
    }

    pub fn refusing_to_park(mut self, message: &'static str) -> FakeOwner {
        self.refuse_park = Some(message);
        self
    }

    /// Starts a JavaScript cell owned by `owner` with its default budget.
    pub fn start(
        owner: &Arc<FakeOwner>,
        run_id: &str,
        code: &str,
        responder: Responder,
    ) -> Arc<Cell> {
        let cell = Cell::new(
            owner.clone(),
            run_id.into(),
            CellSource {
                code: code.into(),
                language: Language::JavaScript,
                restart_safe: false,
                durable: None,
            },
            None,
        );
        owner.cells.lock().insert(run_id.into(), cell.clone());
        let budget = std::time::Duration::from_millis(owner.limits.timeout_ms);
        if cell.begin_call(budget, responder, true).is_err() {
            panic!("a new cell always begins");
        }
        cell
    }

    pub fn call_count(&self) -> u64 {
        self.calls.load(Ordering::SeqCst)
    }
}

impl Directory for FakeOwner {
    fn resolve_tool(&self, callable: &str) -> Result<ToolRef, String> {
        let index = self
            .tools
            .iter()
            .position(|t| t == callable)
            .ok_or_else(|| format!("Unknown tool: {callable}"))?;
        Ok(ToolRef {
            host_index: index,
            tool_name: callable.into(),
            callable_name: callable.into(),
            replay_safe: false,
            contracts: Arc::new(ToolContracts::new(false, None, None)),
            surface: false,
        })
    }
    fn resolve_surface(&self, key: &str, _: String) -> Result<(ToolRef, String), String> {
        Err(format!("Unknown surface: {key}"))
    }
    fn search(&self, query: &str, limit: u32, _: usize) -> Result<String, String> {
        let found: Vec<&String> = self
            .tools
            .iter()
            .filter(|t| t.contains(query))
            .take(limit as usize)
            .collect();
        Ok(json!(found).to_string())
    }
    fn describe(&self, callable: &str) -> Result<String, String> {
        self.resolve_tool(callable)
            .map(|t| json!({ "name": t.tool_name }).to_string())
    }
    fn tool_meta(&self, callable: &str) -> Result<String, String> {
        self.resolve_tool(callable)
            .map(|t| json!({ "name": t.tool_name, "callableName": t.callable_name }).to_string())
    }
    fn api_list(&self, _: &str) -> String {
        json!({ "files": [] }).to_string()
    }
    fn mcp_api(&self, _: &str, _: Option<&str>, _: bool) -> Result<String, String> {
        Err("no MCP servers".into())
    }
    fn api_read(&self, _: &str) -> Result<String, String> {
        Err("no such file".into())
    }
}

impl RunContext for FakeOwner {
    fn session_id(&self) -> &str {
        "fake-owner"
    }
    fn limits(&self) -> &Limits {
        &self.limits
    }
    fn redactor(&self) -> &Arc<Redactor> {
        &self.redactor
    }
    fn host(&self) -> &Arc<dyn Host> {
        &self.host
    }
    fn prelude_config(&self) -> Arc<str> {
        Arc::from(json!({ "tools": self.tools, "surfaces": null, "mcp": null }).to_string())
    }
    fn telemetry(&self) -> Telemetry {
        let session = SessionTelemetry {
            catalog_size: self.tools.len(),
            sources: ToolSources {
                core: 0,
                openclaw: 0,
                mcp: 0,
                client: self.tools.len(),
            },
            counter_scope: "fake-owner".into(),
            search_count: 0,
            describe_count: 0,
            call_count: self.call_count(),
            visible_tools: Vec::new(),
        };
        Telemetry {
            session: Some(session),
            run: None,
        }
    }
    fn max_tool_calls(&self) -> Option<u64> {
        None
    }
    fn count_call(&self) {
        self.calls.fetch_add(1, Ordering::SeqCst);
    }
}

impl RunOwner<Cell> for FakeOwner {
    fn park(
        &self,
        run: &Arc<Cell>,
        reason: &'static str,
        _bytes: u64,
        pending: usize,
    ) -> Result<(), CodeModeError> {
        self.parks
            .lock()
            .push((run.run_id.clone(), reason, pending));
        if let Some(message) = self.refuse_park {
            return Err(CodeModeError::invalid_input(message));
        }
        Ok(())
    }

    fn forget(&self, run_id: &str) {
        self.cells.lock().remove(run_id);
        self.forgotten.lock().push(run_id.into());
    }
}
