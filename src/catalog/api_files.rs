//! The guest's virtual `API` files (docs/contract.md, Catalog and search): tool, MCP and
//! agents declarations, rendered on read (a listing renders too, for exact `bytes`).
//! Paths are validated before anything is looked up.

use crate::catalog::{tool_dts, tool_dts_path, Catalog, CatalogEntry};
use crate::mcp::{self, McpCatalog};
use crate::surfaces::AGENTS_DTS;
use serde_json::{json, Value};

const AGENTS_PATH: &str = "agents.d.ts";
const AGENTS_DESCRIPTION: &str = "Declarations of the Swarm globals agents.run, phase and log";

/// Normalises a guest path: trimmed, one leading `/` dropped, no empty/`.`/`..` segment.
pub fn normalize(path: &str) -> Result<String, String> {
    let trimmed = path.trim();
    let trimmed = trimmed.strip_prefix('/').unwrap_or(trimmed);
    if trimmed.is_empty()
        || trimmed
            .split('/')
            .any(|seg| seg.is_empty() || seg == "." || seg == "..")
    {
        return Err("invalid API file path".to_string());
    }
    Ok(trimmed.to_string())
}

fn description(entry: &CatalogEntry) -> String {
    let first_line = entry.description().lines().next().unwrap_or("");
    let text: String = first_line.chars().take(160).collect();
    if text.is_empty() {
        format!("Declaration of {}", entry.callable_name())
    } else {
        format!("Declaration of {}: {text}", entry.callable_name())
    }
}

fn file_json(path: String, entry: &CatalogEntry, with_content: bool) -> Value {
    virtual_file(path, description(entry), tool_dts(entry), with_content)
}

fn virtual_file(path: String, description: String, content: String, with_content: bool) -> Value {
    let mut file = json!({ "path": path, "description": description, "bytes": content.len() });
    if with_content {
        if let Some(map) = file.as_object_mut() {
            map.insert("content".into(), json!(content));
        }
    }
    file
}

/// A non-tool file: path, description, and its renderer (run only when it is read).
type ExtraFile<'a> = (String, String, Box<dyn Fn() -> String + 'a>);

/// The non-tool files.
fn extra_files<'a>(mcp: &'a McpCatalog, swarm: bool) -> Vec<ExtraFile<'a>> {
    let mut files: Vec<ExtraFile<'a>> = Vec::new();
    if swarm {
        files.push((
            AGENTS_PATH.into(),
            AGENTS_DESCRIPTION.into(),
            Box::new(|| AGENTS_DTS.to_string()),
        ));
    }
    if !mcp.servers.is_empty() {
        files.push((
            mcp::INDEX_PATH.into(),
            mcp::INDEX_DESCRIPTION.into(),
            Box::new(|| mcp::index_dts(mcp)),
        ));
        for server in &mcp.servers {
            files.push((
                mcp::server_path(server),
                mcp::server_description(server),
                Box::new(move || mcp::server_dts(server, None)),
            ));
        }
    }
    files
}

/// Every file whose path starts with `prefix` (after normalising a leading `/`).
pub fn list(catalog: &Catalog, mcp: &McpCatalog, swarm: bool, prefix: &str) -> Vec<Value> {
    let prefix = prefix.trim();
    let prefix = prefix.strip_prefix('/').unwrap_or(prefix);
    let mut files: Vec<Value> = extra_files(mcp, swarm)
        .into_iter()
        .filter(|(path, _, _)| path.starts_with(prefix))
        .map(|(path, description, render)| virtual_file(path, description, render(), false))
        .collect();
    files.extend(
        catalog
            .entries()
            .iter()
            .map(|entry| (tool_dts_path(entry), entry))
            .filter(|(path, _)| path.starts_with(prefix))
            .map(|(path, entry)| file_json(path, entry, false)),
    );
    files
}

pub fn read(catalog: &Catalog, mcp: &McpCatalog, swarm: bool, path: &str) -> Result<Value, String> {
    let path = normalize(path)?;
    if let Some((path, description, render)) = extra_files(mcp, swarm)
        .into_iter()
        .find(|(p, _, _)| *p == path)
    {
        return Ok(virtual_file(path, description, render(), true));
    }
    let callable = path
        .strip_prefix("tools/")
        .and_then(|rest| rest.strip_suffix(".d.ts"))
        .ok_or_else(|| format!("Unknown API file: {path}"))?;
    let entry = catalog
        .by_callable_name(callable)
        .ok_or_else(|| format!("Unknown API file: {path}"))?;
    Ok(file_json(path.clone(), entry, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_segments_and_empty_paths_are_invalid() {
        for bad in [
            "",
            "  ",
            "/",
            "tools//x.d.ts",
            "tools/../x",
            "./tools/x.d.ts",
        ] {
            assert_eq!(
                normalize(bad),
                Err("invalid API file path".to_string()),
                "{bad:?}"
            );
        }
        assert_eq!(normalize(" /tools/a.d.ts "), Ok("tools/a.d.ts".to_string()));
    }
}
