//! Host surfaces beyond catalog tools (docs/contract.md, Host surfaces): each callable leaf
//! of a namespace, `nodes`, `skills` or Swarm maps a guest key (`ns/<Global>/<path…>`,
//! `nodes/list`, …) to an index in the host glue's surface table. Validates namespace names.

use crate::catalog::reserved_kind;
use crate::mcp::check_segment;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;

#[derive(Deserialize, Default, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceJson {
    pub global_name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub prompt: String,
    #[serde(default)]
    pub leaves: Vec<LeafJson>,
}

#[derive(Deserialize, Default, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct LeafJson {
    pub path: Vec<String>,
    pub host_index: usize,
}

/// What the glue reports of the optional hosts: their surface indices by operation.
#[derive(Deserialize, Default, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct SurfacesJson {
    #[serde(default)]
    pub namespaces: Vec<NamespaceJson>,
    pub nodes: Option<HashMap<String, usize>>,
    pub skills: Option<HashMap<String, usize>>,
    pub swarm: Option<HashMap<String, usize>>,
    #[serde(default)]
    pub mcp_servers: Vec<String>,
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

fn identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

impl Surfaces {
    /// Validates namespace names (identifier, not reserved, not a built-in, unique) and
    /// path segments, and indexes every leaf.
    pub fn build(json: SurfacesJson) -> Result<Surfaces, String> {
        let mut surfaces = Surfaces::default();
        let mut seen: Vec<&str> = Vec::new();
        for (i, ns) in json.namespaces.iter().enumerate() {
            let name = ns.global_name.as_str();
            let at = format!("namespaces[{i}].globalName");
            if !identifier(name) {
                return Err(format!("{at} \"{name}\" must be a JavaScript identifier."));
            }
            if let Some(kind) = reserved_kind(name) {
                return Err(format!(
                    "{at} \"{name}\" is {kind} and cannot be a namespace."
                ));
            }
            if seen.contains(&name) {
                return Err(format!(
                    "{at} \"{name}\" is used by more than one namespace."
                ));
            }
            seen.push(name);
            for leaf in &ns.leaves {
                for segment in &leaf.path {
                    check_segment(segment)?;
                }
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
        surfaces.namespaces = json.namespaces;
        Ok(surfaces)
    }

    fn insert(&mut self, key: String, surface: Surface) {
        self.by_key.insert(key, surface);
    }

    pub fn get(&self, key: &str) -> Option<&Surface> {
        self.by_key.get(key)
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

    fn ns(name: &str) -> NamespaceJson {
        NamespaceJson {
            global_name: name.into(),
            leaves: vec![LeafJson {
                path: vec!["issues".into(), "list".into()],
                host_index: 3,
            }],
            ..NamespaceJson::default()
        }
    }

    fn build(list: Vec<NamespaceJson>) -> Result<Surfaces, String> {
        Surfaces::build(SurfacesJson {
            namespaces: list,
            ..SurfacesJson::default()
        })
    }

    #[test]
    fn namespace_names_are_validated_with_clear_messages() {
        assert_eq!(
            build(vec![ns("my-repo")]).unwrap_err(),
            "namespaces[0].globalName \"my-repo\" must be a JavaScript identifier."
        );
        assert_eq!(
            build(vec![ns("class")]).unwrap_err(),
            "namespaces[0].globalName \"class\" is a JavaScript reserved word and cannot be a namespace."
        );
        assert_eq!(
            build(vec![ns("MCP")]).unwrap_err(),
            "namespaces[0].globalName \"MCP\" is a code mode runtime global and cannot be a namespace."
        );
        assert_eq!(
            build(vec![ns("Math")]).unwrap_err(),
            "namespaces[0].globalName \"Math\" is a JavaScript built-in and cannot be a namespace."
        );
        assert_eq!(
            build(vec![ns("Repo"), ns("Repo")]).unwrap_err(),
            "namespaces[1].globalName \"Repo\" is used by more than one namespace."
        );
    }

    #[test]
    fn leaves_are_indexed_by_key_and_unsafe_segments_refused() {
        let s = build(vec![ns("Repo")]).unwrap();
        let leaf = s.get("ns/Repo/issues/list").unwrap();
        assert_eq!(
            (leaf.host_index, leaf.name.as_str()),
            (3, "Repo.issues.list")
        );
        let mut bad = ns("Repo");
        bad.leaves[0].path = vec!["constructor".into()];
        assert_eq!(
            build(vec![bad]).unwrap_err(),
            "Invalid code mode namespace path segment: constructor"
        );
    }
}
