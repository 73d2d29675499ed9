//! The core of a `CodeModeSession`, free of napi: scope ids, limits, the catalog and
//! counters, the host, and exec/wait/close orchestration over cells and the store.

use crate::catalog::{Catalog, ToolSpec};
use crate::error::{messages, CodeModeError};
use crate::limits::Limits;
use crate::mcp::McpCatalog;
use crate::run::cell::{Cell, CellSource, DurableStart, Responder};
use crate::run::contracts::ContractCache;
use crate::run::protocol::Event;
use crate::run::protocol::Host;
use crate::run::result::{self, SessionTelemetry, Telemetry, ToolSources};
use crate::runtime::timer;
use crate::sandbox::isolation::{Isolation, Sandbox};
use crate::session::pending_starts::PendingStarts;
use crate::session::store::{self, ParkedInfo, Scope};
use crate::source::redact::Redactor;
use crate::source::{self, ExecRequest, RawExecInput};
use crate::surfaces::{Surfaces, SurfacesJson};
use parking_lot::{Mutex, RwLock};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Ids and limits a session is created with.
pub struct SessionConfig {
    pub scope: Scope,
    pub limits: Limits,
    pub tools: Vec<ToolSpec>,
    /// Headless scripts: the most tool calls one run may make.
    pub max_tool_calls: Option<u64>,
    /// Namespaces, nodes, skills, Swarm and the configured MCP server names.
    pub surfaces: SurfacesJson,
    /// Where this session's guests run.
    pub isolation: Isolation,
    /// `sandboxGroup`: sessions naming the same group may share sandbox processes.
    pub sandbox_group: Option<String>,
    /// `durableRuns`: runs keep a ledger and can be adopted from their record.
    pub durable: bool,
}

#[derive(Default)]
pub(super) struct Counters {
    pub(super) search: AtomicU64,
    pub(super) describe: AtomicU64,
    pub(super) call: AtomicU64,
}

pub struct SessionCore {
    pub(super) scope: Scope,
    pub(super) limits: Limits,
    pub(super) catalog: RwLock<Catalog>,
    /// Catalog entry → host tool index, and how many host tools were ever registered.
    pub(super) host_indices: RwLock<(HostIndices, usize)>,
    pub(super) direct_only: RwLock<Vec<ToolSpec>>,
    pub(super) prelude_config: RwLock<Arc<str>>,
    pub(super) counter_scope: String,
    pub(super) counters: Counters,
    pub(super) host: Arc<dyn Host>,
    pub(super) max_tool_calls: Option<u64>,
    pub(super) contracts: ContractCache,
    pub(super) closed: AtomicBool,
    /// Live cells, owned here until they settle (a cell awaiting the host has no other owner).
    pub(super) cells: Mutex<HashMap<String, Arc<Cell>>>,
    pub(super) surfaces: Surfaces,
    pub(super) mcp: RwLock<McpCatalog>,
    /// Masks secrets in nested-call previews and events (`redaction` option).
    pub(super) redactor: Arc<Redactor>,
    /// The way to its group's sandbox processes, in `isolation: "process"`.
    pub(super) sandbox: Option<Sandbox>,
    /// Exec and wait calls waiting for the MCP tools to load.
    pub(super) pending_starts: PendingStarts<SessionCore>,
    pub(super) durable: bool,
}

impl SessionCore {
    /// Fails only on invalid namespace definitions (the message names the field).
    pub fn new(config: SessionConfig, host: Arc<dyn Host>) -> Result<Arc<SessionCore>, String> {
        Self::with_redactor(config, host, Arc::default())
    }

    /// Like `new`, with the session's `redaction` secrets and patterns.
    pub fn with_redactor(
        config: SessionConfig,
        host: Arc<dyn Host>,
        redactor: Arc<Redactor>,
    ) -> Result<Arc<SessionCore>, String> {
        let direct_only = direct_only_names(&config.tools);
        let host_tool_count = config.tools.len();
        let sandbox = match config.isolation {
            Isolation::Process if !Isolation::process_supported() => {
                return Err(
                    "isolation \"process\" is not supported on this platform; use \"thread\""
                        .into(),
                )
            }
            Isolation::Process => Some(Sandbox::for_session(config.sandbox_group.as_deref())),
            Isolation::Thread => None,
        };
        let mcp = McpCatalog::pending(config.surfaces.mcp_servers.clone());
        let surfaces = Surfaces::build(config.surfaces)?;
        let catalog = Catalog::build(config.tools, &surfaces.global_names());
        let host_indices = HostIndices::of(&catalog);
        let prelude_config = super::prelude_config::prelude_config_for(&catalog, &surfaces, &mcp);
        Ok(Arc::new(SessionCore {
            scope: config.scope,
            limits: config.limits,
            catalog: RwLock::new(catalog),
            host_indices: RwLock::new((host_indices, host_tool_count)),
            direct_only: RwLock::new(direct_only),
            prelude_config: RwLock::new(prelude_config),
            counter_scope: crate::ids::random_hex(8),
            counters: Counters::default(),
            host,
            max_tool_calls: config.max_tool_calls,
            contracts: ContractCache::default(),
            closed: AtomicBool::new(false),
            cells: Mutex::new(HashMap::new()),
            surfaces,
            mcp: RwLock::new(mcp),
            redactor,
            sandbox,
            pending_starts: PendingStarts::default(),
            durable: config.durable,
        }))
    }

    /// The MCP tools the host glue loaded (or reloaded): identifiers, declarations and
    /// the guest's `MCP` tree follow.
    pub fn set_mcp(&self, report: &Value) {
        let mcp = McpCatalog::from_report(report);
        *self.prelude_config.write() =
            super::prelude_config::prelude_config_for(&self.catalog.read(), &self.surfaces, &mcp);
        *self.mcp.write() = mcp;
    }

    /// Whether MCP servers are configured whose tools are not loaded yet.
    pub fn mcp_loading(&self) -> bool {
        !self.mcp.read().loading.is_empty()
    }

    pub fn redactor(&self) -> &Arc<Redactor> {
        &self.redactor
    }

    pub fn session_id(&self) -> &str {
        &self.scope.session_id
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn host(&self) -> &Arc<dyn Host> {
        &self.host
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    pub fn prelude_config(&self) -> Arc<str> {
        self.prelude_config.read().clone()
    }

    pub fn with_catalog<R>(&self, f: impl FnOnce(&Catalog) -> R) -> R {
        f(&self.catalog.read())
    }

    pub fn direct_only(&self) -> Vec<String> {
        self.direct_only
            .read()
            .iter()
            .map(|t| t.name.clone())
            .collect()
    }

    /// `modelTools()`: exec (with the quick index), wait, then direct-only tools.
    pub fn model_tools(&self) -> Value {
        let direct: Vec<Value> = self
            .direct_only
            .read()
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters.clone().unwrap_or_else(|| json!({ "type": "object" })),
                })
            })
            .collect();
        let extras = crate::catalog::model_tools::Extras {
            mcp: &self.mcp.read(),
            surfaces: &self.surfaces,
        };
        crate::catalog::model_tools::model_tools(
            &self.catalog.read(),
            &self.limits,
            &extras,
            &direct,
        )
    }

    /// `addTools()`: appends keep names, counters and `counterScope`.
    pub fn add_tools(&self, tools: Vec<ToolSpec>) {
        let more_direct = direct_only_names(&tools);
        let mut catalog = self.catalog.write();
        let batch = tools.len();
        let appended = catalog.append(tools);
        {
            // Host indices count every tool ever registered (the host glue appends its
            // definitions in the same order); catalog spec indices are per batch.
            let mut indices = self.host_indices.write();
            let offset = indices.1;
            for entry in appended
                .added
                .clone()
                .chain(appended.replaced.iter().copied())
            {
                if let Some(spec) = catalog.get(entry).map(|e| e.spec_index()) {
                    indices.0.set(entry, offset + spec);
                }
            }
            indices.1 += batch;
        }
        *self.prelude_config.write() =
            super::prelude_config::prelude_config_for(&catalog, &self.surfaces, &self.mcp.read());
        self.direct_only.write().extend(more_direct);
    }

    /// Cataloged tools whose guest-callable name differs from their own name, as
    /// `(tool name, callable name)` in catalog order.
    pub fn renamed_tools(&self) -> Vec<(String, String)> {
        let catalog = self.catalog.read();
        let renamed = catalog
            .entries()
            .iter()
            .filter(|e| e.callable_name() != e.tool_name());
        renamed
            .map(|e| (e.tool_name().to_string(), e.callable_name().to_string()))
            .collect()
    }

    /// MCP tools whose path in cells differs from their server's and their own names:
    /// (server name, tool name, `MCP.<server identifier>.<tool identifier>`).
    pub fn renamed_mcp_tools(&self) -> Vec<(String, String, String)> {
        let mcp = self.mcp.read();
        let mut renamed = Vec::new();
        for server in &mcp.servers {
            for tool in &server.tools {
                if server.identifier != server.name || tool.identifier != tool.name {
                    let path = format!("MCP.{}.{}", server.identifier, tool.identifier);
                    renamed.push((server.name.clone(), tool.name.clone(), path));
                }
            }
        }
        renamed
    }

    pub fn telemetry(&self) -> Telemetry {
        let catalog = self.catalog.read();
        let counts = catalog.counts();
        let mut visible = vec!["exec".to_string(), "wait".to_string()];
        visible.extend(self.direct_only.read().iter().map(|t| t.name.clone()));
        let session = SessionTelemetry {
            catalog_size: catalog.len(),
            sources: ToolSources {
                core: counts.core,
                openclaw: counts.core,
                mcp: self.mcp.read().tool_count(),
                client: counts.client,
            },
            counter_scope: self.counter_scope.clone(),
            search_count: self.counters.search.load(Ordering::Relaxed),
            describe_count: self.counters.describe.load(Ordering::Relaxed),
            call_count: self.counters.call.load(Ordering::Relaxed),
            visible_tools: visible,
        };
        Telemetry {
            session: Some(session),
            run: None,
        }
    }

    /// Runs a cell. The responder is always called exactly once with the result.
    /// Returns the cell (for abort wiring) when one was started.
    pub fn exec(
        self: &Arc<Self>,
        input: RawExecInput,
        parent_call_id: Option<String>,
        responder: Responder,
    ) -> Option<Arc<Cell>> {
        let request: ExecRequest = match source::validate_exec_input(&input, &self.limits) {
            Ok(request) => request,
            Err(error) => {
                responder(result::early_failure(&error, self.telemetry()));
                return None;
            }
        };
        let run_id = crate::ids::run_id();
        let cell = Cell::new(
            self.clone(),
            run_id.clone(),
            CellSource {
                code: request.code,
                language: request.language,
                restart_safe: request.restart_safe,
                durable: self.durable.then(DurableStart::fresh),
            },
            parent_call_id,
        );
        self.cells.lock().insert(run_id, cell.clone());
        let budget = Duration::from_millis(self.limits.timeout_ms);
        if let Err(responder) = cell.begin_call(budget, responder, true) {
            responder(result::early_failure(
                &CodeModeError::internal("cell could not start"),
                self.telemetry(),
            ));
        }
        Some(cell)
    }

    /// Resumes a parked run of this session's scope.
    pub fn wait(
        self: &Arc<Self>,
        run_id: Option<String>,
        responder: Responder,
    ) -> Option<Arc<Cell>> {
        let run_id = run_id.map(|r| r.trim().to_string()).unwrap_or_default();
        if run_id.is_empty() {
            responder(result::early_failure(
                &CodeModeError::invalid_input(messages::RUN_ID_INVALID),
                self.telemetry(),
            ));
            return None;
        }
        let cell = match store::global().claim(&run_id, &self.scope) {
            Ok(cell) => cell,
            Err(error) => {
                responder(result::early_failure(&error, self.telemetry()));
                return None;
            }
        };
        if let Some(why) = cell.sandbox_ended() {
            // Its VM died with its sandbox process: drop the run, answer as for any run
            // that is gone.
            cell.finish(Err(CodeModeError::aborted()));
            let message = format!("{} Its sandbox ended: {why}.", messages::RUN_UNAVAILABLE);
            let error = CodeModeError::invalid_input(message);
            responder(result::early_failure(&error, self.telemetry()));
            return None;
        }
        cell.release_yield();
        let budget = Duration::from_millis(self.limits.timeout_ms);
        // A run adopted from its record starts its VM here, as a first exec does.
        let first = cell.is_new();
        if let Err(responder) = cell.begin_call(budget, responder, first) {
            responder(result::early_failure(
                &CodeModeError::invalid_input("code mode run is already being resumed."),
                self.telemetry(),
            ));
        }
        Some(cell)
    }

    /// Parks a cell that is idle past its deadline or yielded.
    pub fn park(
        &self,
        cell: &Arc<Cell>,
        reason: &'static str,
        bytes: u64,
        pending: usize,
    ) -> Result<(), CodeModeError> {
        if bytes > self.limits.max_snapshot_bytes {
            return Err(store::snapshot_limit());
        }
        if self.is_closed() {
            return Err(CodeModeError::aborted());
        }
        let epoch = store::global().park(cell, &self.scope, reason, bytes, pending)?;
        let run_id = cell.run_id.clone();
        let ttl = Duration::from_secs(self.limits.snapshot_ttl_seconds);
        let expiring = run_id.clone();
        let key = timer::schedule(Instant::now() + ttl, move || {
            if let Some(cell) = store::global().expire(&expiring, epoch) {
                cell.finish(Err(CodeModeError::invalid_input(messages::RUN_UNAVAILABLE)));
            }
        });
        store::global().set_expiry(&run_id, epoch, key);
        Ok(())
    }

    /// A run settled or was dropped: it leaves the store and this session's list.
    pub fn forget(&self, run_id: &str) {
        // Only this session's own cell leaves the store: after a close, a durable run may
        // already be parked there again by another session that adopted it.
        let mine = self.cells.lock().remove(run_id);
        if let Some(cell) = mine {
            store::global().remove_cell(&cell);
        }
    }

    pub fn runs(&self) -> Vec<ParkedInfo> {
        store::global().list(&self.scope.session_id)
    }

    /// Drops one parked run of this session; false if there is none by that id.
    pub fn cancel_run(&self, run_id: &str) -> bool {
        let owned = self.cells.lock().contains_key(run_id);
        if !owned {
            return false;
        }
        match store::global().remove(run_id) {
            Some(cell) => {
                cell.finish(Err(CodeModeError::aborted()));
                true
            }
            None => false,
        }
    }

    /// Cancels active cells and drops parked ones. Idempotent.
    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        // The process ends once the last of its VMs is released below.
        if let Some(sandbox) = &self.sandbox {
            sandbox.release();
        }
        let cells: Vec<Arc<Cell>> = self.cells.lock().drain().map(|(_, cell)| cell).collect();
        for cell in cells {
            // Abort first, then look: a turn parking the cell either sees the abort and
            // finishes it, or stopped running before the abort, and the cell is dropped here.
            // A run a wait is resuming leaves the store now: its cell is no longer this
            // session's by the time its turn ends.
            cell.push(Event::Abort);
            store::global().remove_cell(&cell);
            if !cell.is_running() {
                cell.finish(Err(CodeModeError::aborted()));
            }
        }
    }
}

/// Catalog entry index → host tool index.
#[derive(Default)]
pub(super) struct HostIndices(Vec<usize>);

impl HostIndices {
    fn of(catalog: &Catalog) -> Self {
        HostIndices(catalog.entries().iter().map(|e| e.spec_index()).collect())
    }

    pub(super) fn get(&self, entry: usize) -> Option<usize> {
        self.0.get(entry).copied()
    }

    fn set(&mut self, entry: usize, host: usize) {
        if self.0.len() <= entry {
            self.0.resize(entry + 1, usize::MAX);
        }
        self.0[entry] = host;
    }
}

fn direct_only_names(tools: &[ToolSpec]) -> Vec<ToolSpec> {
    tools.iter().filter(|t| t.direct_only).cloned().collect()
}
