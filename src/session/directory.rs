//! The catalog questions a session's runs ask (`Directory`): tools and surfaces by
//! callable name, search, descriptions and the virtual API files.

use super::core::SessionCore;
use crate::catalog::{describe_json, metadata_json, Source};
use crate::mcp::OPS;
use crate::run::contracts::ToolContracts;
use crate::run::owner::{Directory, ToolRef};
use serde_json::json;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl Directory for SessionCore {
    fn resolve_tool(&self, callable: &str) -> Result<ToolRef, String> {
        let catalog = self.catalog.read();
        let entry = catalog
            .by_callable_name(callable)
            .ok_or_else(|| format!("Unknown catalog function: {callable}."))?;
        let host_index = catalog
            .index_of(callable)
            .and_then(|i| self.host_indices.read().0.get(i))
            .unwrap_or_else(|| entry.spec_index());
        let contracts = self.contracts.get_or_compile(host_index, || {
            ToolContracts::new(
                entry.source() == Source::Core,
                entry.parameters(),
                entry.output_schema(),
            )
        });
        Ok(ToolRef {
            host_index,
            tool_name: entry.tool_name().to_string(),
            callable_name: entry.callable_name().to_string(),
            replay_safe: entry.replay_safe(),
            contracts,
            surface: false,
        })
    }

    /// A namespace, MCP, nodes, skills or Swarm call by its guest key, with the input
    /// the host receives (MCP inputs get schema defaults and required checks).
    fn resolve_surface(&self, key: &str, input_json: String) -> Result<(ToolRef, String), String> {
        let surface = |host_index: usize, tool_name: String, callable_name: String| ToolRef {
            host_index,
            contracts: Arc::new(ToolContracts::new(false, None, None)),
            tool_name,
            callable_name,
            replay_safe: false,
            surface: true,
        };
        if let Some(rest) = key.strip_prefix("mcp/") {
            let (server_id, member) = rest.split_once('/').unwrap_or((rest, ""));
            let mcp = self.mcp.read();
            let server = mcp.server(server_id)?;
            if OPS.contains(&member) {
                let index = server.op(member)?;
                let name = format!("MCP.{}.{member}", server.identifier);
                return Ok((surface(index, name.clone(), name), input_json));
            }
            let tool = server.tool(member)?;
            let input = tool.prepare_input(input_json)?;
            let callable = format!("MCP.{}.{}", server.identifier, tool.identifier);
            return Ok((surface(tool.host_index, tool.name.clone(), callable), input));
        }
        let found = self
            .surfaces
            .get(key)
            .ok_or_else(|| format!("Unknown code mode surface: {key}."))?;
        Ok((
            surface(found.host_index, found.name.clone(), found.name.clone()),
            input_json,
        ))
    }

    /// `MCP.$api()` (empty server) and `MCP.<server>.$api(tool?, { schema })`.
    fn mcp_api(&self, server: &str, tool: Option<&str>, schema: bool) -> Result<String, String> {
        let mcp = self.mcp.read();
        if server.is_empty() {
            return Ok(crate::mcp::root_api(&mcp).to_string());
        }
        crate::mcp::server_api(mcp.server(server)?, tool, schema).map(|v| v.to_string())
    }

    fn search(&self, query: &str, limit: u32, budget_bytes: usize) -> Result<String, String> {
        self.counters.search.fetch_add(1, Ordering::Relaxed);
        let max = self.limits.max_search_limit.max(1) as usize;
        let limit = if limit == 0 {
            self.limits.search_default_limit as usize
        } else {
            limit as usize
        }
        .clamp(1, max);
        let catalog = self.catalog.read();
        let names: Vec<&str> = catalog
            .search(query, limit)
            .into_iter()
            .filter_map(|i| catalog.get(i).map(|e| e.callable_name()))
            .collect();
        let text = serde_json::to_string(&names).unwrap_or_else(|_| "[]".into());
        if text.len() > budget_bytes {
            return Err(
                "catalog.search results do not fit the output budget; narrow the query or lower limit."
                    .into(),
            );
        }
        Ok(text)
    }

    fn tool_meta(&self, callable: &str) -> Result<String, String> {
        let catalog = self.catalog.read();
        let entry = catalog
            .by_callable_name(callable)
            .ok_or_else(|| format!("Unknown catalog function: {callable}."))?;
        Ok(metadata_json(entry).to_string())
    }

    fn describe(&self, callable: &str) -> Result<String, String> {
        self.counters.describe.fetch_add(1, Ordering::Relaxed);
        let catalog = self.catalog.read();
        let entry = catalog
            .by_callable_name(callable)
            .ok_or_else(|| format!("Unknown catalog function: {callable}."))?;
        Ok(describe_json(entry).to_string())
    }

    fn api_list(&self, prefix: &str) -> String {
        let catalog = self.catalog.read();
        let files = crate::catalog::api_files::list(
            &catalog,
            &self.mcp.read(),
            self.surfaces.has_swarm(),
            prefix,
        );
        json!({ "files": files }).to_string()
    }

    fn api_read(&self, path: &str) -> Result<String, String> {
        let catalog = self.catalog.read();
        crate::catalog::api_files::read(&catalog, &self.mcp.read(), self.surfaces.has_swarm(), path)
            .map(|file| file.to_string())
    }
}
