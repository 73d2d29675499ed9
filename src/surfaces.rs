//! Host surfaces beyond catalog tools (docs/contract.md, Host surfaces): each callable leaf
//! of a namespace, `nodes`, `skills` or Swarm maps a guest key (`ns/<Global>/<path…>`,
//! `nodes/list`, …) to an index in the host glue's surface table.

mod namespaces;

use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;

pub use namespaces::{LeafJson, NamespaceJson, NamespaceRead};

/// What the glue reports of the optional hosts: their surface indices by operation.
#[derive(Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct SurfacesJson {
    /// `None`: the option was not an array (absent reads as empty).
    #[serde(default = "no_namespaces")]
    pub namespaces: Option<Vec<Option<NamespaceRead>>>,
    pub nodes: Option<HashMap<String, usize>>,
    pub skills: Option<HashMap<String, usize>>,
    pub swarm: Option<HashMap<String, usize>>,
    #[serde(default)]
    pub mcp_servers: Vec<String>,
}

fn no_namespaces() -> Option<Vec<Option<NamespaceRead>>> {
    Some(Vec::new())
}

impl Default for SurfacesJson {
    fn default() -> Self {
        SurfacesJson {
            namespaces: no_namespaces(),
            nodes: None,
            skills: None,
            swarm: None,
            mcp_servers: Vec::new(),
        }
    }
}

/// One host surface as the engine dispatches it.
#[derive(Clone, Debug)]
pub struct Surface {
    pub host_index: usize,
    /// Shown to `beforeToolCall` and in events: `Repo.issues.list`, `nodes.invoke`.
    pub name: String,
}

#[derive(Default, Debug)]
pub struct Surfaces {
    by_key: HashMap<String, Surface>,
    namespaces: Vec<NamespaceJson>,
    nodes: bool,
    skills: bool,
    swarm: Option<(bool, bool)>,
}

impl Surfaces {
    /// Validates the namespaces (`namespaces::validate`) and indexes every leaf.
    pub fn build(json: SurfacesJson) -> Result<Surfaces, String> {
        let mut surfaces = Surfaces::default();
        let namespaces = namespaces::validate(json.namespaces)?;
        for ns in &namespaces {
            let name = ns.global_name.as_str();
            for leaf in &ns.leaves {
                let dotted = std::iter::once(name)
                    .chain(leaf.path.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(".");
                surfaces.insert(
                    namespace_key(name, &leaf.path),
                    Surface {
                        host_index: leaf.host_index,
                        name: dotted,
                    },
                );
            }
        }
        for (family, ops) in [
            ("nodes", &json.nodes),
            ("skills", &json.skills),
            ("swarm", &json.swarm),
        ] {
            for (op, index) in ops.iter().flatten() {
                surfaces.insert(
                    format!("{family}/{op}"),
                    Surface {
                        host_index: *index,
                        name: format!("{family}.{op}"),
                    },
                );
            }
        }
        surfaces.nodes = json.nodes.is_some();
        surfaces.skills = json.skills.is_some();
        surfaces.swarm = json
            .swarm
            .as_ref()
            .map(|ops| (ops.contains_key("phase"), ops.contains_key("log")));
        surfaces.namespaces = namespaces;
        Ok(surfaces)
    }

    fn insert(&mut self, key: String, surface: Surface) {
        self.by_key.insert(key, surface);
    }

    pub fn get(&self, key: &str) -> Option<&Surface> {
        self.by_key.get(key)
    }

    /// Whether some surface is shown as `name` (`Repo.issues.list`, `nodes.invoke`).
    pub fn has_name(&self, name: &str) -> bool {
        self.by_key.values().any(|surface| surface.name == name)
    }

    pub fn global_names(&self) -> Vec<String> {
        self.namespaces
            .iter()
            .map(|n| n.global_name.clone())
            .collect()
    }

    pub fn namespaces(&self) -> &[NamespaceJson] {
        &self.namespaces
    }

    pub fn has_nodes(&self) -> bool {
        self.nodes
    }

    /// No namespace, nodes, skills or Swarm host.
    pub fn is_empty(&self) -> bool {
        self.namespaces.is_empty() && !self.nodes && !self.skills && self.swarm.is_none()
    }

    pub fn has_skills(&self) -> bool {
        self.skills
    }

    pub fn has_swarm(&self) -> bool {
        self.swarm.is_some()
    }

    /// The guest's view for the prelude.
    pub fn prelude_json(&self) -> Value {
        let namespaces: Vec<Value> = self
            .namespaces
            .iter()
            .map(|ns| {
                let leaves: Vec<Value> = ns
                    .leaves
                    .iter()
                    .map(|l| json!({ "path": l.path, "key": namespace_key(&ns.global_name, &l.path) }))
                    .collect();
                json!({ "name": ns.global_name, "leaves": leaves })
            })
            .collect();
        json!({
            "namespaces": namespaces,
            "nodes": self.nodes,
            "skills": self.skills,
            "swarm": self.swarm.map(|(phase, log)| json!({ "phase": phase, "log": log })),
        })
    }
}

fn namespace_key(global: &str, path: &[String]) -> String {
    format!("ns/{global}/{}", path.join("/"))
}

/// `agents.d.ts`, present when a Swarm host is configured.
pub const AGENTS_DTS: &str = "\
/** Swarm: fan work out to sub-agents. Results are whatever the gateway's swarm host returns. */
declare namespace agents {
  /** Runs one sub-agent with the given spec (task, role, inputs…) and resolves with its result. */
  function run(spec: { task: string; [key: string]: unknown }): Promise<unknown>;
}
/** Marks the start of a named phase in the run's trajectory. */
declare function phase(title: string): Promise<void>;
/** Adds a progress message to the run's trajectory. */
declare function log(message: string): Promise<void>;
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_leaves_are_indexed_by_key_and_dotted_name() {
        let json: SurfacesJson = serde_json::from_value(json!({
            "namespaces": [{ "globalName": "Repo", "leaves": [{ "path": ["issues", "list"], "hostIndex": 3 }] }],
        }))
        .unwrap_or_default();
        let surfaces = Surfaces::build(json).unwrap_or_default();
        let leaf = surfaces.get("ns/Repo/issues/list");
        let leaf = leaf.map(|l| (l.host_index, l.name.as_str()));
        assert_eq!(leaf, Some((3, "Repo.issues.list")));
        assert_eq!(surfaces.global_names(), ["Repo"]);
        // A durable run's ledger names a surface call so: adoption checks it still exists.
        assert!(surfaces.has_name("Repo.issues.list"));
        assert!(!surfaces.has_name("Repo.issues"));
    }

    #[test]
    fn absent_namespaces_read_as_none() {
        let json: SurfacesJson = serde_json::from_value(json!({})).unwrap_or_default();
        assert_eq!(json.namespaces.as_ref().map(Vec::len), Some(0));
        assert!(Surfaces::build(json).is_ok_and(|s| s.is_empty()));
    }
}
