//! The MCP servers of a session as the guest sees them: identifiers, tools and the
//! operations each client supports, built from what the host glue loaded with
//! `listTools`. Servers whose loading failed are kept aside, named in the exec description.

use super::identifiers::{check_segment, Identifiers, ROOT_RESERVED, SERVER_RESERVED};
use serde_json::{Map, Value};

/// One MCP tool: its guest identifier, MCP name, metadata and host-side surface index.
#[derive(Clone, Debug)]
pub struct McpTool {
    pub identifier: String,
    pub name: String,
    pub description: String,
    pub input_schema: Option<Value>,
    pub host_index: usize,
}

/// One reachable server.
#[derive(Clone, Debug)]
pub struct McpServer {
    pub identifier: String,
    pub name: String,
    pub tools: Vec<McpTool>,
    /// `resources.list`, `resources.read`, `prompts.list`, `prompts.get`: the ones the
    /// client implements, with their surface index.
    pub ops: Vec<(String, usize)>,
}

#[derive(Clone, Debug, Default)]
pub struct McpCatalog {
    pub servers: Vec<McpServer>,
    /// Servers left out: name and why.
    pub unavailable: Vec<(String, String)>,
    /// Server names configured but not loaded yet (before the first `listTools` ends).
    pub loading: Vec<String>,
}

pub const OPS: [&str; 4] = [
    "resources.list",
    "resources.read",
    "prompts.list",
    "prompts.get",
];

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn index_field(v: &Value, key: &str) -> Option<usize> {
    v.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
}

impl McpCatalog {
    /// Configured servers, none loaded yet.
    pub fn pending(names: Vec<String>) -> Self {
        McpCatalog {
            loading: names,
            ..McpCatalog::default()
        }
    }

    /// From the glue's load report: `{ servers: [{ name, error?, tools: [{ name,
    /// description, inputSchema, hostIndex }], ops: { "resources.list": index, … } }] }`.
    /// Malformed entries are skipped rather than trusted.
    pub fn from_report(report: &Value) -> Self {
        let mut catalog = McpCatalog::default();
        let mut server_ids = Identifiers::new(&ROOT_RESERVED);
        let servers = report.get("servers").and_then(Value::as_array);
        for server in servers.into_iter().flatten() {
            let name = str_field(server, "name").to_string();
            if let Some(error) = server.get("error").and_then(Value::as_str) {
                catalog.unavailable.push((name, error.to_string()));
                continue;
            }
            let mut tool_ids = Identifiers::new(&SERVER_RESERVED);
            let tools = server
                .get("tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|tool| {
                    let host_index = index_field(tool, "hostIndex")?;
                    let tool_name = str_field(tool, "name");
                    if tool_name.is_empty() {
                        return None;
                    }
                    Some(McpTool {
                        identifier: tool_ids.assign(tool_name),
                        name: tool_name.to_string(),
                        description: str_field(tool, "description").to_string(),
                        input_schema: tool.get("inputSchema").filter(|s| s.is_object()).cloned(),
                        host_index,
                    })
                })
                .collect();
            let ops = OPS
                .iter()
                .filter_map(|op| {
                    index_field(server.get("ops")?, op).map(|index| (op.to_string(), index))
                })
                .collect();
            catalog.servers.push(McpServer {
                identifier: server_ids.assign(&name),
                name,
                tools,
                ops,
            });
        }
        catalog
    }

    pub fn tool_count(&self) -> usize {
        self.servers.iter().map(|s| s.tools.len()).sum()
    }

    pub fn is_configured(&self) -> bool {
        !self.servers.is_empty() || !self.unavailable.is_empty() || !self.loading.is_empty()
    }

    pub fn server(&self, identifier: &str) -> Result<&McpServer, String> {
        check_segment(identifier)?;
        self.servers
            .iter()
            .find(|s| s.identifier == identifier)
            .ok_or_else(|| format!("Unknown MCP server: MCP.{identifier}"))
    }

    /// The guest's view for the prelude: `[{ id, tools: [id…], ops: [op…] }]`.
    pub fn prelude_tree(&self) -> Value {
        Value::Array(
            self.servers
                .iter()
                .map(|s| {
                    serde_json::json!({
                        "id": s.identifier,
                        "tools": s.tools.iter().map(|t| t.identifier.as_str()).collect::<Vec<_>>(),
                        "ops": s.ops.iter().map(|(op, _)| op.as_str()).collect::<Vec<_>>(),
                    })
                })
                .collect(),
        )
    }
}

impl McpServer {
    pub fn tool(&self, identifier: &str) -> Result<&McpTool, String> {
        check_segment(identifier)?;
        self.tools
            .iter()
            .find(|t| t.identifier == identifier)
            .ok_or_else(|| format!("Unknown MCP tool: MCP.{}.{identifier}", self.identifier))
    }

    pub fn op(&self, op: &str) -> Result<usize, String> {
        self.ops
            .iter()
            .find(|(name, _)| name == op)
            .map(|(_, index)| *index)
            .ok_or_else(|| {
                let family = op.split('.').next().unwrap_or(op);
                format!("MCP server {} does not support {family}.", self.name)
            })
    }
}

impl McpTool {
    /// The arguments sent to the server: one object, top-level schema defaults added as
    /// own properties, every required property present.
    pub fn prepare_input(&self, input_json: &str) -> Result<String, String> {
        const ONE_OBJECT: &str = "MCP namespace tools accept one object argument.";
        let mut input: Map<String, Value> = match serde_json::from_str(input_json) {
            Ok(Value::Object(map)) => map,
            Ok(Value::Null) => Map::new(),
            _ => return Err(ONE_OBJECT.to_string()),
        };
        let schema = self.input_schema.as_ref();
        if let Some(props) = schema
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
        {
            for (key, prop) in props {
                if let Some(default) = prop.get("default") {
                    if !input.contains_key(key) {
                        input.insert(key.clone(), default.clone());
                    }
                }
            }
        }
        let missing: Vec<&str> = schema
            .and_then(|s| s.get("required"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|key| !input.contains_key(*key))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "Missing required MCP namespace argument(s): {}",
                missing.join(", ")
            ));
        }
        Ok(Value::Object(input).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report() -> Value {
        json!({ "servers": [
            { "name": "file-system", "tools": [
                { "name": "read_file", "description": "Read", "hostIndex": 0,
                  "inputSchema": { "type": "object", "required": ["path"],
                    "properties": { "path": { "type": "string" }, "encoding": { "type": "string", "default": "utf8" } } } },
                { "name": "delete", "hostIndex": 1 },
                { "name": "", "hostIndex": 2 },
                { "name": "no-index" }
              ], "ops": { "resources.list": 3, "prompts.get": 4 } },
            { "name": "broken", "error": "connection refused" }
        ]})
    }

    #[test]
    fn a_report_becomes_servers_with_identifiers_and_unavailable_servers() {
        let c = McpCatalog::from_report(&report());
        assert_eq!(c.servers.len(), 1);
        let s = &c.servers[0];
        assert_eq!(s.identifier, "fileSystem");
        let ids: Vec<&str> = s.tools.iter().map(|t| t.identifier.as_str()).collect();
        assert_eq!(ids, ["readFile", "delete2"]);
        assert_eq!(c.tool_count(), 2);
        assert_eq!(s.op("resources.list"), Ok(3));
        assert_eq!(
            s.op("prompts.list"),
            Err("MCP server file-system does not support prompts.".into())
        );
        assert_eq!(
            c.unavailable,
            vec![("broken".to_string(), "connection refused".to_string())]
        );
    }

    #[test]
    fn inputs_get_defaults_and_required_checks() {
        let c = McpCatalog::from_report(&report());
        let tool = c.servers[0].tool("readFile").unwrap();
        assert_eq!(
            tool.prepare_input(r#"{"path":"a"}"#),
            Ok(r#"{"path":"a","encoding":"utf8"}"#.into())
        );
        assert_eq!(
            tool.prepare_input(r#"{"path":"a","encoding":"base64"}"#),
            Ok(r#"{"path":"a","encoding":"base64"}"#.into())
        );
        assert_eq!(
            tool.prepare_input("null"),
            Err("Missing required MCP namespace argument(s): path".into())
        );
        assert_eq!(
            tool.prepare_input("[1]"),
            Err("MCP namespace tools accept one object argument.".into())
        );
    }

    #[test]
    fn lookups_refuse_prototype_segments() {
        let c = McpCatalog::from_report(&report());
        assert!(c
            .server("__proto__")
            .unwrap_err()
            .starts_with("Invalid code mode namespace path segment"));
        assert_eq!(
            c.server("nope").unwrap_err(),
            "Unknown MCP server: MCP.nope"
        );
        assert!(c.servers[0].tool("constructor").is_err());
    }
}
