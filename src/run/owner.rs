//! What a run needs from whoever owns it: its limits, host and catalog directory
//! (`RunContext`), and where it reports parking and settling (`RunOwner`). The run core
//! depends on these traits only, never on the session.

use super::contracts::ToolContracts;
use super::protocol::Host;
use super::result::Telemetry;
use crate::error::CodeModeError;
use crate::limits::Limits;
use crate::source::redact::Redactor;
use serde_json::Value;
use std::sync::Arc;

/// What the guest calls a tool: the host-side index, the names and its contracts.
pub struct ToolRef {
    pub host_index: usize,
    pub tool_name: String,
    pub callable_name: String,
    pub replay_safe: bool,
    pub contracts: Arc<ToolContracts>,
    /// A host surface (namespace, MCP, nodes, skills, Swarm) rather than a catalog tool.
    pub surface: bool,
}

/// The read-only catalog questions a guest's natives ask.
pub trait Directory: Send + Sync {
    fn resolve_tool(&self, callable: &str) -> Result<ToolRef, String>;
    /// A namespace, MCP, nodes, skills or Swarm call by its guest key, with the input the
    /// host receives.
    fn resolve_surface(&self, key: &str, input_json: String) -> Result<(ToolRef, String), String>;
    fn search(&self, query: &str, limit: u32, budget_bytes: usize) -> Result<String, String>;
    fn describe(&self, callable: &str) -> Result<String, String>;
    fn tool_meta(&self, callable: &str) -> Result<String, String>;
    fn api_list(&self, prefix: &str) -> String;
    fn mcp_api(&self, server: &str, tool: Option<&str>, schema: bool) -> Result<String, String>;
    fn api_read(&self, path: &str) -> Result<String, String>;
}

/// Everything a running cell and its bridge read from their owner.
pub trait RunContext: Directory {
    fn session_id(&self) -> &str;
    fn limits(&self) -> &Limits;
    fn redactor(&self) -> &Arc<Redactor>;
    fn host(&self) -> &Arc<dyn Host>;
    /// The prelude configuration a fresh VM is bound with (tool names, surfaces).
    fn prelude_config(&self) -> Arc<str>;
    /// The `telemetry` block of every result.
    fn telemetry(&self) -> Telemetry;
    /// Headless scripts: the most tool calls one run may make.
    fn max_tool_calls(&self) -> Option<u64>;
    fn count_call(&self);
    /// The sandbox process guests run in (`isolation: "process"`); `None` runs them here.
    fn sandbox(&self) -> Option<&crate::sandbox::isolation::Sandbox> {
        None
    }
}

/// The owner's side of a run's lifecycle (tokio's `Schedule` is the model): generic over
/// the run type, so this module never names the cell. The owner holds every run it starts
/// until `forget`: a run awaiting the host has no other strong reference.
pub trait RunOwner<R>: RunContext {
    /// The run waits for `wait`; an error refuses it (the cell then fails with it).
    fn park(
        &self,
        run: &Arc<R>,
        reason: &'static str,
        bytes: u64,
        pending: usize,
    ) -> Result<(), CodeModeError>;
    /// The run settled or was dropped: it leaves every list its owner keeps.
    fn forget(&self, run_id: &str);
    /// The run ended after `resolveCall` resolved these of its calls (sequence numbers),
    /// so a later resolve of one can still answer `already_resolved`.
    fn ended_with_resolved(&self, _run_id: &str, _resolved: std::collections::HashSet<u32>) {}
    /// The run ended with nobody waiting for its result (cancelled, closed, expired).
    fn ended_unanswered(&self, _run_id: &str) {}
}

/// Streams a trajectory event to `onEvent`, building it only when someone listens.
pub fn emit(context: &dyn RunContext, build: impl FnOnce() -> Value) {
    let host = context.host();
    if host.wants_events() {
        host.event(build().to_string());
    }
}
