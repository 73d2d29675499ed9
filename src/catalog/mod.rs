//! The hidden tool catalog: which host tools become guest globals, under which callable
//! names, with which hints. Built once per tool set; `append` (addTools) only ever adds
//! or replaces entries in place, so existing callable names and indexes never move.

pub mod api_files;
mod describe;
mod dts;
mod entry;
mod hints;
pub mod model_tools;
mod names;
mod quick_index;
mod render;
mod reserved;
mod schema_check;
mod search;
pub mod strict_schema;
mod tokenize;
mod ts_text;

#[cfg(test)]
mod test_support;

use std::collections::HashMap;

use serde_json::Value;

pub use describe::{describe_json, metadata_json};
pub use dts::{declaration_type, param_docs, push_doc_line, tool_dts, tool_dts_path};
pub use entry::CatalogEntry;
pub use hints::{input_hint, output_hint};
pub use names::{is_keyword, is_reserved, reserved_kind};
pub use quick_index::quick_index;
pub use schema_check::check_tool_schemas;
pub use search::SearchIndex;

/// Names the code-mode machinery itself answers to; a host tool with one of these names is
/// never cataloged. A host tool named `exec` is the shell tool and *is* cataloged unless
/// the host marks it `control`.
const CONTROL_NAMES: [&str; 5] = [
    "wait",
    "tool_search_code",
    "tool_search",
    "tool_describe",
    "tool_call",
];

/// Where a tool comes from. Only `Core` (the gateway's own and plugin) tools are trusted enough to
/// get schema-derived hints in the model-visible index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Source {
    #[default]
    Core,
    Client,
}

impl Source {
    /// The spelling used in guest metadata and telemetry.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Core => "core",
            Source::Client => "client",
        }
    }
}

/// One host tool as the host passed it in (`ToolDefinition` in index.d.ts, minus `execute`).
#[derive(Clone, Debug, Default)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub label: Option<String>,
    pub parameters: Option<Value>,
    pub output_schema: Option<Value>,
    pub source: Source,
    pub direct_only: bool,
    pub replay_safe: bool,
    /// Set by the host for its own code-mode control tools (the control `exec`).
    pub control: bool,
}

/// Number of cataloged tools per source (telemetry `sources`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SourceCounts {
    pub core: usize,
    pub client: usize,
}

/// What an `append` changed: new entries at the end, and entries replaced in place
/// (exact-name shadows keep the old callable name and index).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Appended {
    pub added: std::ops::Range<usize>,
    pub replaced: Vec<usize>,
}

/// The catalog of one session: entries in catalog order plus lookups and a search index.
#[derive(Clone, Debug)]
pub struct Catalog {
    entries: Vec<CatalogEntry>,
    by_callable: HashMap<String, usize>,
    by_tool: HashMap<String, usize>,
    extra_reserved: Vec<String>,
    index: SearchIndex,
}

impl Catalog {
    /// Applies the eligibility rules, orders core before client tools, resolves
    /// exact-name clashes (the later tool wins) and assigns callable names.
    /// `extra_reserved` holds further guest global names (namespace globals).
    pub fn build(tools: Vec<ToolSpec>, extra_reserved: &[String]) -> Catalog {
        let mut catalog = Catalog {
            entries: Vec::new(),
            by_callable: HashMap::new(),
            by_tool: HashMap::new(),
            extra_reserved: extra_reserved.to_vec(),
            index: SearchIndex::default(),
        };
        catalog.insert(tools);
        catalog
    }

    /// addTools: new tools get names that avoid every existing name; a tool whose exact
    /// name is already cataloged replaces that entry in place (a later tool wins).
    pub fn append(&mut self, more: Vec<ToolSpec>) -> Appended {
        self.insert(more)
    }

    fn insert(&mut self, tools: Vec<ToolSpec>) -> Appended {
        let winners = eligible_winners(tools);
        let start = self.entries.len();
        let mut replaced = Vec::new();
        let mut fresh = Vec::new();
        for (spec_index, spec) in winners {
            match self.by_tool.get(&spec.name) {
                Some(&at) => {
                    let name = self.entries[at].callable_name().to_owned();
                    self.entries[at] = CatalogEntry::new(spec, name, spec_index);
                    replaced.push(at);
                }
                None => fresh.push((spec_index, spec)),
            }
        }
        let host_names: Vec<&str> = fresh.iter().map(|(_, s)| s.name.as_str()).collect();
        let callable = names::assign_callable_names(
            &host_names,
            &|name| self.by_callable.contains_key(name),
            &self.extra_reserved,
        );
        for ((spec_index, spec), name) in fresh.into_iter().zip(callable) {
            let at = self.entries.len();
            self.by_callable.insert(name.clone(), at);
            self.by_tool.insert(spec.name.clone(), at);
            self.entries.push(CatalogEntry::new(spec, name, spec_index));
        }
        replaced.sort_unstable();
        // Rebuilding is cheap (well under a millisecond per hundred tools) and keeps
        // document statistics exact after replacements.
        self.index = SearchIndex::build(&self.entries);
        Appended {
            added: start..self.entries.len(),
            replaced,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    pub fn entries(&self) -> &[CatalogEntry] {
        &self.entries
    }
    pub fn get(&self, index: usize) -> Option<&CatalogEntry> {
        self.entries.get(index)
    }
    /// Index of the entry with this exact callable name.
    pub fn index_of(&self, callable_name: &str) -> Option<usize> {
        self.by_callable.get(callable_name).copied()
    }
    pub fn by_callable_name(&self, callable_name: &str) -> Option<&CatalogEntry> {
        self.index_of(callable_name)
            .and_then(|i| self.entries.get(i))
    }
    pub fn counts(&self) -> SourceCounts {
        let client = self
            .entries
            .iter()
            .filter(|e| e.source() == Source::Client)
            .count();
        SourceCounts {
            core: self.entries.len() - client,
            client,
        }
    }
    /// Ranked entry indexes for `catalog.search(query)`; see `SearchIndex::search`.
    pub fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        self.index.search(query, limit)
    }
}

/// Drops ineligible tools, orders core before client (stable), and keeps only the
/// last tool of each exact name at its own position. Keeps each spec's input index.
fn eligible_winners(tools: Vec<ToolSpec>) -> Vec<(usize, ToolSpec)> {
    let eligible: Vec<(usize, ToolSpec)> = tools
        .into_iter()
        .enumerate()
        .filter(|(_, t)| !t.direct_only && !t.control && !CONTROL_NAMES.contains(&t.name.as_str()))
        .collect();
    let (mut ordered, clients): (Vec<_>, Vec<_>) = eligible
        .into_iter()
        .partition(|(_, t)| t.source == Source::Core);
    ordered.extend(clients);
    let mut last: HashMap<&str, usize> = HashMap::new();
    for (pos, (_, t)) in ordered.iter().enumerate() {
        last.insert(t.name.as_str(), pos);
    }
    let keep: Vec<bool> = ordered
        .iter()
        .enumerate()
        .map(|(pos, (_, t))| last.get(t.name.as_str()) == Some(&pos))
        .collect();
    ordered
        .into_iter()
        .zip(keep)
        .filter_map(|(item, k)| k.then_some(item))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::test_support::{client, tool};
    use super::*;

    fn names(c: &Catalog) -> Vec<&str> {
        c.entries().iter().map(|e| e.callable_name()).collect()
    }

    #[test]
    fn direct_only_and_control_tools_are_not_cataloged() {
        let mut direct = tool("computer");
        direct.direct_only = true;
        let mut control_exec = tool("exec");
        control_exec.control = true;
        let tools = vec![
            direct,
            control_exec,
            tool("wait"),
            tool("tool_search_code"),
            tool("tool_search"),
            tool("tool_describe"),
            tool("tool_call"),
            tool("read"),
        ];
        assert_eq!(names(&Catalog::build(tools, &[])), ["read"]);
    }

    #[test]
    fn a_host_shell_tool_named_exec_is_cataloged_as_exec() {
        let c = Catalog::build(vec![tool("exec")], &[]);
        assert_eq!(names(&c), ["exec"]);
    }

    #[test]
    fn core_tools_come_before_client_tools() {
        let tools = vec![client("zeta"), tool("beta"), client("alpha"), tool("gamma")];
        let c = Catalog::build(tools, &[]);
        assert_eq!(names(&c), ["beta", "gamma", "zeta", "alpha"]);
        assert_eq!(c.counts(), SourceCounts { core: 2, client: 2 });
        assert_eq!(c.get(2).map(|e| e.spec_index()), Some(0));
    }

    #[test]
    fn a_later_client_tool_wins_an_exact_name_clash() {
        let mut shadow = client("read");
        shadow.description = "client read".into();
        let c = Catalog::build(vec![tool("read"), shadow, tool("write")], &[]);
        assert_eq!(names(&c), ["write", "read"]);
        let read = c.by_callable_name("read");
        assert_eq!(read.map(|e| e.source()), Some(Source::Client));
        assert_eq!(read.map(|e| e.description()), Some("client read"));
    }

    #[test]
    fn client_tools_show_unknown_input_and_no_output_hint() {
        let mut t = client("send");
        t.parameters =
            Some(serde_json::json!({"type":"object","properties":{"to":{"type":"string"}}}));
        t.output_schema = Some(serde_json::json!({"type":"string"}));
        let c = Catalog::build(vec![t], &[]);
        let e = &c.entries()[0];
        assert_eq!((e.input_hint(), e.output_hint()), ("unknown", None));
    }

    #[test]
    fn extra_reserved_names_are_suffixed() {
        let c = Catalog::build(vec![tool("Files")], &["Files".to_owned()]);
        assert!(names(&c)[0].starts_with("Files_"));
    }

    #[test]
    fn append_keeps_existing_names_and_avoids_them() {
        let mut c = Catalog::build(vec![tool("a_b")], &[]);
        let outcome = c.append(vec![client("a-b"), client("c")]);
        assert_eq!(
            outcome,
            Appended {
                added: 1..3,
                replaced: vec![]
            }
        );
        assert_eq!(c.entries()[0].callable_name(), "a_b");
        assert!(c.entries()[1].callable_name().starts_with("a_b_"));
        assert_eq!(c.index_of("c"), Some(2));
    }

    #[test]
    fn append_replaces_a_shadowed_tool_in_place_under_its_old_name() {
        let mut c = Catalog::build(vec![tool("delete"), tool("x")], &[]);
        let old = c.entries()[0].callable_name().to_owned();
        let outcome = c.append(vec![client("delete")]);
        assert_eq!(
            outcome,
            Appended {
                added: 2..2,
                replaced: vec![0]
            }
        );
        assert_eq!(c.entries()[0].callable_name(), old);
        assert_eq!(c.entries()[0].source(), Source::Client);
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn append_keeps_search_correct() {
        let mut c = Catalog::build(vec![tool("read_file")], &[]);
        c.append(vec![client("send_email")]);
        assert_eq!(c.search("email", 5), vec![1]);
    }
}
