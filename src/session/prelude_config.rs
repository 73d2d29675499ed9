//! The configuration a session binds each fresh VM with: every catalog handle's callable
//! name, the host surfaces and the MCP tree.

use crate::catalog::Catalog;
use crate::mcp::McpCatalog;
use crate::surfaces::Surfaces;
use serde_json::{json, Value};
use std::sync::Arc;

/// The prelude's configuration: every catalog handle's callable name, the host surfaces
/// and the MCP tree (null when no MCP server is configured).
pub(super) fn prelude_config_for(
    catalog: &Catalog,
    surfaces: &Surfaces,
    mcp: &McpCatalog,
) -> Arc<str> {
    let tools: Vec<&str> = catalog
        .entries()
        .iter()
        .map(|entry| entry.callable_name())
        .collect();
    let mcp_tree = if mcp.is_configured() {
        mcp.prelude_tree()
    } else {
        Value::Null
    };
    // Null keeps the surfaces code out of the VM altogether (it is loaded only when needed).
    let surfaces_json = if surfaces.is_empty() && !mcp.is_configured() {
        Value::Null
    } else {
        surfaces.prelude_json()
    };
    Arc::from(json!({ "tools": tools, "surfaces": surfaces_json, "mcp": mcp_tree }).to_string())
}
