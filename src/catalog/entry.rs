//! One cataloged tool: the host's definition plus its final callable name and the hints
//! computed once at build time (client tools get `unknown` and no output hint).

use serde_json::Value;

use super::{hints, Source, ToolSpec};

/// A cataloged tool with its final callable name and precomputed hints.
#[derive(Clone, Debug)]
pub struct CatalogEntry {
    callable_name: String,
    tool_name: String,
    label: Option<String>,
    description: String,
    source: Source,
    input_hint: String,
    output_hint: Option<String>,
    parameters: Option<Value>,
    output_schema: Option<Value>,
    replay_safe: bool,
    spec_index: usize,
}

impl CatalogEntry {
    pub(super) fn new(spec: ToolSpec, callable_name: String, spec_index: usize) -> CatalogEntry {
        // Client schemas are untrusted: their hints stay deferred until describe().
        let (input_hint, output_hint) = match spec.source {
            Source::Core => (
                hints::input_hint(spec.parameters.as_ref()),
                hints::output_hint(spec.output_schema.as_ref()),
            ),
            Source::Client => (hints::UNKNOWN.to_owned(), None),
        };
        CatalogEntry {
            callable_name,
            tool_name: spec.name,
            label: spec.label,
            description: spec.description,
            source: spec.source,
            input_hint,
            output_hint,
            parameters: spec.parameters,
            output_schema: spec.output_schema,
            replay_safe: spec.replay_safe,
            spec_index,
        }
    }

    /// The guest global name (never the host id).
    pub fn callable_name(&self) -> &str {
        &self.callable_name
    }
    /// The exact host tool name.
    pub fn tool_name(&self) -> &str {
        &self.tool_name
    }
    pub fn label(&self) -> Option<&str> {
        self.label.as_deref()
    }
    pub fn description(&self) -> &str {
        &self.description
    }
    pub fn source(&self) -> Source {
        self.source
    }
    /// The model-visible input hint: `unknown` for client tools.
    pub fn input_hint(&self) -> &str {
        &self.input_hint
    }
    /// A declared output hint; only for core tools with a complete outputSchema.
    pub fn output_hint(&self) -> Option<&str> {
        self.output_hint.as_deref()
    }
    pub fn parameters(&self) -> Option<&Value> {
        self.parameters.as_ref()
    }
    pub fn output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }
    pub fn replay_safe(&self) -> bool {
        self.replay_safe
    }
    /// Index of this entry's `ToolSpec` in the Vec passed to the `build` or `append` call
    /// that created it, so the host can route calls to the right `execute`.
    pub fn spec_index(&self) -> usize {
        self.spec_index
    }
}
