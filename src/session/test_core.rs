//! Unit tests' session cores: no tools, a host that never answers.

use super::core::{SessionConfig, SessionCore};
use super::store::Scope;
use crate::limits::Limits;
use crate::run::protocol::{Host, HostCall, Reply};
use crate::surfaces::SurfacesJson;
use std::sync::Arc;

struct SilentHost;

impl Host for SilentHost {
    fn call_tool(&self, _call: HostCall, _reply: Reply) {}
    fn cancel(&self, _call_id: &str) {}
}

/// A session with no tools whose MCP servers `mcp_servers` have not listed theirs yet.
pub fn core_loading_mcp(mcp_servers: &[&str]) -> Arc<SessionCore> {
    let config = SessionConfig {
        scope: Scope {
            session_id: crate::ids::random_hex(8),
            session_key: None,
            agent_id: None,
            agent_run_id: None,
        },
        limits: Limits::from_json(None),
        tools: Vec::new(),
        max_tool_calls: None,
        surfaces: SurfacesJson {
            mcp_servers: mcp_servers.iter().map(|name| name.to_string()).collect(),
            ..SurfacesJson::default()
        },
        isolation: crate::sandbox::isolation::Isolation::Thread,
        sandbox_group: None,
        durable: false,
    };
    match SessionCore::new(config, Arc::new(SilentHost)) {
        Ok(core) => core,
        Err(message) => panic!("a session without namespaces builds: {message}"),
    }
}
