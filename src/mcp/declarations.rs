//! TypeScript-style declarations of the MCP namespace (docs/contract.md, MCP): `mcp/index.d.ts`,
//! `mcp/<server>.d.ts` and the `$api()` headers. Rendered from tool metadata only when
//! asked for, so schemas cost nothing until a guest reads them.

use super::servers::{McpCatalog, McpServer, McpTool};
use crate::catalog::{declaration_type, param_docs, push_doc_line};
use serde_json::{json, Map, Value};

/// Interfaces, not type aliases: every server file repeats them so each reads on its own,
/// and identical interfaces merge where `mcp/index.d.ts` brings the files together.
const RESULT_TYPES: &str = "\
interface McpToolResult { content: Array<{ type: string; [key: string]: unknown }>; structuredContent?: unknown; isError: boolean }
interface McpResourcesListResult { resources: unknown[]; nextCursor?: string }
interface McpResourcesReadResult { contents: unknown[] }
interface McpResourceTemplatesResult { resourceTemplates: Array<{ uriTemplate: string; name: string; [key: string]: unknown }> }
interface McpPromptsListResult { prompts: unknown[]; nextCursor?: string }
interface McpPromptsGetResult { messages: unknown[]; description?: string }
interface McpApiHeader { header: string; tools: Array<{ name: string; toolName: string; description: string }>; schemas?: { [method: string]: unknown } }
";

pub fn server_path(server: &McpServer) -> String {
    format!("mcp/{}.d.ts", server.identifier)
}

pub fn server_description(server: &McpServer) -> String {
    format!(
        "Declarations of MCP.{} (MCP server \"{}\", {} tools)",
        server.identifier,
        server.name,
        server.tools.len()
    )
}

pub const INDEX_PATH: &str = "mcp/index.d.ts";
pub const INDEX_DESCRIPTION: &str = "Index of the MCP namespace: one file per server";

pub fn index_dts(catalog: &McpCatalog) -> String {
    let mut out = String::from(
        "// The MCP namespace: call `MCP.<server>.<tool>({ ...input })`; each server's tools are\n\
         // declared in its own file below. `API.read(\"mcp/<server>.d.ts\")` shows them.\n",
    );
    for server in &catalog.servers {
        out.push_str(&format!(
            "/// <reference path=\"./{}.d.ts\" />\n",
            server.identifier
        ));
    }
    out.push_str("declare namespace MCP {\n");
    out.push_str("  /** Lists the servers: identifier, MCP server name and tool count. */\n");
    out.push_str("  function $api(): Promise<{ header: string; servers: Array<{ identifier: string; serverName: string; toolCount: number }> }>;\n");
    for server in &catalog.servers {
        out.push_str(&format!(
            "  /** MCP server \"{}\": {} tools. */\n  namespace {} {{}}\n",
            escape_doc(&server.name),
            server.tools.len(),
            server.identifier
        ));
    }
    out.push_str("}\n");
    out
}

/// The server's declaration file; `only` restricts it to one tool (for `$api(tool)`).
pub fn server_dts(server: &McpServer, only: Option<&McpTool>) -> String {
    let mut out = String::from(RESULT_TYPES);
    out.push_str(&format!("declare namespace MCP.{} {{\n", server.identifier));
    out.push_str("  /** Return this TypeScript-style API header. */\n");
    out.push_str(
        "  function $api(toolName?: string, options?: { schema?: boolean }): Promise<McpApiHeader>;\n",
    );
    let tools: Vec<&McpTool> = match only {
        Some(tool) => vec![tool],
        None => server.tools.iter().collect(),
    };
    for tool in tools {
        out.push_str(&tool_declaration(tool));
    }
    if only.is_none() {
        out.push_str(&ops_declaration(server));
    }
    out.push_str("}\n");
    out
}

fn escape_doc(text: &str) -> String {
    text.replace("*/", "*\\/")
}

fn tool_declaration(tool: &McpTool) -> String {
    let mut doc = String::new();
    for line in tool.description.lines() {
        push_doc_line(&mut doc, line);
    }
    // Before the tags: JSDoc reads every line after `@param` as part of that tag.
    push_doc_line(&mut doc, &format!("MCP tool \"{}\".", tool.name));
    let params = param_docs(tool.input_schema.as_ref());
    if !params.is_empty() {
        doc.push_str(" *\n");
    }
    for (name, text) in params {
        push_doc_line(&mut doc, &format!("@param input.{name} {text}"));
    }
    let mut out = String::from("  /**\n");
    for line in doc.lines() {
        out.push_str("  ");
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("   */\n");
    let input = match &tool.input_schema {
        Some(schema) => declaration_type(Some(schema)),
        None => "{ [key: string]: unknown }".to_string(),
    };
    let optional = if has_required(tool) { "" } else { "?" };
    out.push_str(&format!(
        "  function {}(input{optional}: {input}): Promise<McpToolResult>;\n",
        tool.identifier
    ));
    out
}

fn has_required(tool: &McpTool) -> bool {
    tool.input_schema
        .as_ref()
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .is_some_and(|r| !r.is_empty())
}

fn ops_declaration(server: &McpServer) -> String {
    let has = |op: &str| server.ops.iter().any(|(name, _)| name == op);
    let mut out = String::new();
    if has("resources.list") || has("resources.read") || has("resources.templates") {
        out.push_str("  namespace resources {\n");
        if has("resources.list") {
            out.push_str("    function list(): Promise<McpResourcesListResult>;\n");
        }
        if has("resources.read") {
            out.push_str(
                "    function read(input: { uri: string }): Promise<McpResourcesReadResult>;\n",
            );
        }
        if has("resources.templates") {
            out.push_str("    /** Resource templates (RFC 6570 `uriTemplate`): fill one in, then `read({ uri })`. */\n");
            out.push_str("    function templates(): Promise<McpResourceTemplatesResult>;\n");
        }
        out.push_str("  }\n");
    }
    if has("prompts.list") || has("prompts.get") {
        out.push_str("  namespace prompts {\n");
        if has("prompts.list") {
            out.push_str("    function list(): Promise<McpPromptsListResult>;\n");
        }
        if has("prompts.get") {
            out.push_str("    function get(input: { name: string; arguments?: { [key: string]: string } }): Promise<McpPromptsGetResult>;\n");
        }
        out.push_str("  }\n");
    }
    out
}

/// `MCP.$api()`.
pub fn root_api(catalog: &McpCatalog) -> Value {
    let servers: Vec<Value> = catalog
        .servers
        .iter()
        .map(|s| json!({ "identifier": s.identifier, "serverName": s.name, "toolCount": s.tools.len() }))
        .collect();
    json!({ "header": index_dts(catalog), "servers": servers })
}

/// `MCP.<server>.$api(tool?, { schema? })`: never calls a tool.
pub fn server_api(server: &McpServer, tool: Option<&str>, schema: bool) -> Result<Value, String> {
    let only = tool.map(|t| server.tool(t)).transpose()?;
    let listed: Vec<&McpTool> = match only {
        Some(tool) => vec![tool],
        None => server.tools.iter().collect(),
    };
    let tools: Vec<Value> = listed
        .iter()
        .map(|t| json!({ "name": t.identifier, "toolName": t.name, "description": t.description }))
        .collect();
    let mut api = json!({ "header": server_dts(server, only), "tools": tools });
    if schema {
        let schemas: Map<String, Value> = listed
            .iter()
            .map(|t| {
                (
                    t.identifier.clone(),
                    t.input_schema
                        .clone()
                        .unwrap_or_else(|| json!({ "type": "object" })),
                )
            })
            .collect();
        if let Some(map) = api.as_object_mut() {
            map.insert("schemas".into(), Value::Object(schemas));
        }
    }
    Ok(api)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> McpCatalog {
        McpCatalog::from_report(&json!({ "servers": [{ "name": "docs", "tools": [
            { "name": "search_docs", "description": "Search the docs. Ends */ early", "hostIndex": 0,
              "inputSchema": { "type": "object", "required": ["query"], "properties": {
                "query": { "type": "string", "description": "What to find" },
                "mode": { "enum": ["fast", "deep"] },
                "filters": { "type": "array", "items": { "type": "array", "items": { "type": "string" } } },
                "where": { "anyOf": [{ "type": "string" }, { "type": "object", "properties": { "id": { "type": "integer" } }, "additionalProperties": false }] },
                "pick": { "oneOf": [{ "type": "number" }, { "type": "null" }] },
                "extra": { "type": "object", "properties": { "a": { "type": "boolean" } } }
              } } },
            { "name": "ping", "hostIndex": 1, "inputSchema": { "type": "object", "properties": {} } }
          ], "ops": { "resources.list": 2, "resources.read": 3, "resources.templates": 4 } }] }))
    }

    #[test]
    fn a_server_file_declares_typed_functions_with_docs() {
        let c = catalog();
        let text = server_dts(&c.servers[0], None);
        assert!(text.contains("declare namespace MCP.docs {"));
        assert!(text.contains("   * Search the docs. Ends *\\/ early\n"));
        assert!(text.contains("   * @param input.query What to find\n"));
        assert!(text.contains("function searchDocs(input: { query: string; "));
        assert!(text.contains("mode?: \"fast\" | \"deep\""));
        assert!(text.contains("filters?: Array<Array<string>>"));
        assert!(text.contains("where?: string | { id?: number /* integer */ }"));
        assert!(text.contains("pick?: number | null"));
        assert!(text.contains("extra?: { a?: boolean; [key: string]: unknown }"));
        assert!(text.contains("function ping(input?: {"));
        assert!(text.contains("Promise<McpToolResult>;"));
        assert!(text
            .contains("function read(input: { uri: string }): Promise<McpResourcesReadResult>;"));
        assert!(text.contains("function templates(): Promise<McpResourceTemplatesResult>;"));
        assert!(!text.contains("namespace prompts"));
        let closers = text
            .lines()
            .filter(|l| l.trim_end().ends_with("*/"))
            .count();
        assert_eq!(closers, text.matches("/**").count());
    }

    #[test]
    fn the_tool_line_comes_before_the_param_tags() {
        let text = server_dts(&catalog().servers[0], None);
        let tool_line = text.find("MCP tool \"search_docs\".").unwrap();
        let first_param = text.find("@param input.query").unwrap();
        assert!(tool_line < first_param, "{text}");
        assert!(text.starts_with("interface McpToolResult {"));
        assert!(!text.contains("type Mcp"));
    }

    #[test]
    fn the_index_references_every_server() {
        let text = index_dts(&catalog());
        assert!(text.contains("/// <reference path=\"./docs.d.ts\" />"));
        assert!(text.contains("namespace docs {}"));
    }

    #[test]
    fn server_api_lists_tools_and_optionally_schemas() {
        let c = catalog();
        let api = server_api(&c.servers[0], Some("ping"), true).unwrap();
        assert_eq!(
            api["tools"],
            json!([{ "name": "ping", "toolName": "ping", "description": "" }])
        );
        assert_eq!(
            api["schemas"]["ping"],
            json!({ "type": "object", "properties": {} })
        );
        assert!(!api["header"].as_str().unwrap().contains("searchDocs"));
        let all = server_api(&c.servers[0], None, false).unwrap();
        assert_eq!(all["tools"].as_array().unwrap().len(), 2);
        assert!(all.get("schemas").is_none());
        assert!(server_api(&c.servers[0], Some("nope"), false).is_err());
        assert_eq!(root_api(&c)["servers"][0]["toolCount"], 2);
    }
}
