//! The MCP servers of a session as the guest sees them: identifiers, tools and supported
//! operations, built from what the host glue listed. Failed servers are kept aside and
//! named in the exec description; a server's own tool names also resolve (`tool_aliases`).

use super::identifiers::{aliases, check_segment, Identifiers, ROOT_RESERVED, SERVER_RESERVED};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

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
    /// `resources.list`, `resources.read`, `resources.templates`, `prompts.list`,
    /// `prompts.get`: the ones the client implements, with their surface index.
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

pub const OPS: [&str; 5] = [
    "resources.list",
    "resources.read",
    "resources.templates",
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
        let servers = report.get("servers").and_then(Value::as_array);
        let mut loaded = Vec::new();
        for server in servers.into_iter().flatten() {
            let name = str_field(server, "name").to_string();
            match server.get("error").and_then(Value::as_str) {
                Some(error) => catalog.unavailable.push((name, error.to_string())),
                None => loaded.push((name, server)),
            }
        }
        let names: Vec<&str> = loaded.iter().map(|(name, _)| name.as_str()).collect();
        let server_ids = Identifiers::new(&ROOT_RESERVED).assign_all(&names);
        for ((name, server), identifier) in loaded.into_iter().zip(server_ids) {
            let ops = OPS
                .iter()
                .filter_map(|op| {
                    index_field(server.get("ops")?, op).map(|index| (op.to_string(), index))
                })
                .collect();
            catalog.servers.push(McpServer {
                identifier,
                name,
                tools: tools_of(server),
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

    /// The guest's view for the prelude: `[{ id, aliases, tools: [id…], toolAliases,
    /// required: { id: [property…] }, ops: [op…] }]`; aliases map a server's own name to
    /// the identifier it stands for, `required` lists what a tool's caller must pass.
    /// Unavailable servers follow as `{ id, aliases, name, down }`, with identifiers that
    /// never take one a reachable server holds.
    pub fn prelude_tree(&self) -> Value {
        let mut entries = self.reachable_tree();
        entries.extend(self.unavailable_tree());
        Value::Array(entries)
    }

    fn unavailable_tree(&self) -> Vec<Value> {
        let mut taken: Vec<&str> = ROOT_RESERVED.to_vec();
        for server in &self.servers {
            taken.push(&server.identifier);
            taken.push(&server.name);
        }
        let names: Vec<&str> = self.unavailable.iter().map(|(n, _)| n.as_str()).collect();
        let ids = Identifiers::new(&taken).assign_all(&names);
        let own = aliases(
            names.iter().copied().zip(ids.iter().map(String::as_str)),
            &taken,
        );
        self.unavailable
            .iter()
            .zip(&ids)
            .map(|((name, reason), id)| {
                serde_json::json!({
                    "id": id,
                    "aliases": own.get_key_value(name).map(|(a, _)| a).into_iter().collect::<Vec<_>>(),
                    "name": name,
                    "down": reason,
                })
            })
            .collect()
    }

    fn reachable_tree(&self) -> Vec<Value> {
        let server_aliases = aliases(
            self.servers
                .iter()
                .map(|s| (s.name.as_str(), s.identifier.as_str())),
            &ROOT_RESERVED,
        );
        self.servers
            .iter()
            .map(|s| {
                serde_json::json!({
                    "id": s.identifier,
                    "aliases": server_aliases.get_key_value(&s.name).map(|(a, _)| a).into_iter().collect::<Vec<_>>(),
                    "tools": s.tools.iter().map(|t| t.identifier.as_str()).collect::<Vec<_>>(),
                    "toolAliases": s.tool_aliases(),
                    "required": s.required_arguments(),
                    "ops": s.ops.iter().map(|(op, _)| op.as_str()).collect::<Vec<_>>(),
                })
            })
            .collect()
    }
}

/// A server's tools from its report entry: malformed entries skipped, one tool per MCP
/// name (the first listed), identifiers independent of the listing order.
fn tools_of(server: &Value) -> Vec<McpTool> {
    let mut seen = HashSet::new();
    let listed: Vec<(&Value, &str, usize)> = server
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|tool| {
            let host_index = index_field(tool, "hostIndex")?;
            let name = str_field(tool, "name");
            (!name.is_empty() && seen.insert(name)).then_some((tool, name, host_index))
        })
        .collect();
    let names: Vec<&str> = listed.iter().map(|(_, name, _)| *name).collect();
    let ids = Identifiers::new(&SERVER_RESERVED).assign_all(&names);
    listed
        .into_iter()
        .zip(ids)
        .map(|((tool, name, host_index), identifier)| McpTool {
            identifier,
            name: name.to_string(),
            description: str_field(tool, "description").to_string(),
            input_schema: tool.get("inputSchema").filter(|s| s.is_object()).cloned(),
            host_index,
        })
        .collect()
}

impl McpServer {
    /// A tool by its identifier, or else by the server's own name for it.
    pub fn tool(&self, identifier: &str) -> Result<&McpTool, String> {
        check_segment(identifier)?;
        self.tools
            .iter()
            .find(|t| t.identifier == identifier)
            .or_else(|| self.tools.iter().find(|t| t.name == identifier))
            .ok_or_else(|| format!("Unknown MCP tool: MCP.{}.{identifier}", self.identifier))
    }

    /// `{ ownName: identifier }` for the tools whose MCP name differs from their identifier.
    pub fn tool_aliases(&self) -> BTreeMap<String, String> {
        aliases(
            self.tools
                .iter()
                .map(|t| (t.name.as_str(), t.identifier.as_str())),
            &SERVER_RESERVED,
        )
    }

    /// `{ identifier: [property…] }` for the tools with required properties that have no
    /// default, so the guest can refuse a call missing one where it is made.
    pub fn required_arguments(&self) -> BTreeMap<&str, Vec<&str>> {
        self.tools
            .iter()
            .map(|t| (t.identifier.as_str(), t.required_without_default()))
            .filter(|(_, required)| !required.is_empty())
            .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report() -> Value {
        json!({ "servers": [
            { "name": "file-system", "tools": [
                { "name": "read_file", "description": "Read", "hostIndex": 0,
                  "inputSchema": { "type": "object", "required": ["path"] } },
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
        assert_eq!(
            c.prelude_tree()[0]["required"],
            json!({ "readFile": ["path"] })
        );
    }

    #[test]
    fn one_tool_per_name_and_own_names_resolve_as_aliases() {
        let c = McpCatalog::from_report(&json!({ "servers": [{ "name": "crm", "tools": [
            { "name": "get_user", "hostIndex": 0 },
            { "name": "get_user", "hostIndex": 1 },
            { "name": "getUser2", "hostIndex": 2 },
            { "name": "getUser", "hostIndex": 3 },
            { "name": "delete", "hostIndex": 4 },
            { "name": "constructor", "hostIndex": 5 },
            { "name": "resources", "hostIndex": 6 }
        ] }] }));
        let s = &c.servers[0];
        let ids: Vec<(&str, usize)> = s
            .tools
            .iter()
            .map(|t| (t.identifier.as_str(), t.host_index))
            .collect();
        assert_eq!(
            ids,
            [
                ("getUser3", 0),
                ("getUser2", 2),
                ("getUser", 3),
                ("delete2", 4),
                ("constructor2", 5),
                ("resources2", 6)
            ]
        );
        let aliases: Vec<(String, String)> = s.tool_aliases().into_iter().collect();
        assert_eq!(
            aliases,
            [
                ("delete".to_string(), "delete2".to_string()),
                ("get_user".to_string(), "getUser3".to_string())
            ]
        );
        assert_eq!(s.tool("get_user").map(|t| t.host_index), Ok(0));
        assert_eq!(s.tool("getUser").map(|t| t.host_index), Ok(3));
        let tree = c.prelude_tree();
        assert_eq!(tree[0]["toolAliases"]["delete"], "delete2");
        assert_eq!(tree[0]["required"], json!({}));
        assert_eq!(tree[0]["aliases"], json!([]));
    }

    #[test]
    fn unavailable_servers_get_identifiers_no_reachable_server_holds() {
        let c = McpCatalog::from_report(&json!({ "servers": [
            { "name": "files", "tools": [] },
            { "name": "files", "error": "spawn ENOENT" },
            { "name": "git-hub", "error": "exited with code 1" },
            { "name": "$api", "error": "refused" }
        ]}));
        let tree = c.prelude_tree();
        assert_eq!(tree[0]["id"], "files");
        assert_eq!(
            tree[1],
            json!({ "id": "files2", "aliases": [], "name": "files", "down": "spawn ENOENT" })
        );
        assert_eq!(
            tree[2],
            json!({ "id": "gitHub", "aliases": ["git-hub"], "name": "git-hub", "down": "exited with code 1" })
        );
        assert_eq!(tree[3]["id"], "$api2");
        assert_eq!(tree[3]["aliases"], json!([]));
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
