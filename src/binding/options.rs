//! Parses the JSON the host glue produces from JS arguments into engine types.

use crate::catalog::{check_tool_schemas, Source, ToolSpec};
use crate::limits::{check_session_limits, Limits};
use crate::sandbox::isolation::{self, Isolation};
use crate::session::core::SessionConfig;
use crate::session::store::Scope;
use crate::source::redact::Redactor;
use crate::source::{Field, RawExecInput};
use crate::surfaces::SurfacesJson;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OptionsJson {
    #[serde(default)]
    events: bool,
    session_id: String,
    session_key: Option<String>,
    agent_id: Option<String>,
    agent_run_id: Option<String>,
    limits: Option<Value>,
    isolation: Option<Value>,
    sandbox_group: Option<Value>,
    #[serde(default)]
    tools: Vec<ToolJson>,
    #[serde(default)]
    surfaces: SurfacesJson,
    /// `durableRuns`, as the glue passes it: the keys for binding/durable.rs.
    durable_runs: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolJson {
    name: String,
    #[serde(default)]
    description: String,
    label: Option<String>,
    parameters: Option<Value>,
    output_schema: Option<Value>,
    source: String,
    direct_only: bool,
    replay_safe: bool,
}

impl From<ToolJson> for ToolSpec {
    fn from(tool: ToolJson) -> ToolSpec {
        ToolSpec {
            name: tool.name,
            description: tool.description,
            label: tool.label,
            parameters: tool.parameters,
            output_schema: tool.output_schema,
            source: if tool.source == "client" {
                Source::Client
            } else {
                Source::Core
            },
            direct_only: tool.direct_only,
            replay_safe: tool.replay_safe,
            control: false,
        }
    }
}

/// The session config and whether the host wants trajectory events.
pub fn parse_options(json: &str) -> Result<(SessionConfig, bool), String> {
    let options: OptionsJson =
        serde_json::from_str(json).map_err(|e| format!("invalid CodeModeSession options: {e}"))?;
    let events = options.events;
    if let Some(limits) = options.limits.as_ref().filter(|l| !l.is_null()) {
        check_session_limits(limits)?;
    }
    if let Some(isolation) = options.isolation.as_ref().filter(|i| !i.is_null()) {
        check_isolation(isolation, "isolation")?;
    }
    let sandbox_group = match options.sandbox_group.filter(|g| !g.is_null()) {
        Some(group) => Some(check_sandbox_group(&group, "sandboxGroup")?),
        None => None,
    };
    let tools: Vec<ToolSpec> = options.tools.into_iter().map(ToolSpec::from).collect();
    check_tool_schemas(&tools, "tools")?;
    Ok((
        SessionConfig {
            scope: Scope {
                session_id: options.session_id,
                session_key: options.session_key,
                agent_id: options.agent_id,
                agent_run_id: options.agent_run_id,
            },
            limits: Limits::from_json(options.limits.as_ref()),
            tools,
            max_tool_calls: None,
            surfaces: options.surfaces,
            isolation: options
                .isolation
                .as_ref()
                .and_then(Value::as_str)
                .and_then(Isolation::parse)
                .unwrap_or_else(isolation::addon_default),
            sandbox_group,
            durable: options.durable_runs.is_some_and(|d| !d.is_null()),
        },
        events,
    ))
}

#[derive(Deserialize)]
struct RedactionJson {
    redaction: Option<Value>,
}

/// The session's `redaction: { secrets?, patterns? }`, compiled; `Err` names the bad entry.
pub fn parse_redaction(json: &str) -> Result<Redactor, String> {
    let options: RedactionJson =
        serde_json::from_str(json).map_err(|e| format!("invalid CodeModeSession options: {e}"))?;
    Redactor::from_json(options.redaction.as_ref(), "redaction").map_err(|e| e.message)
}

pub fn parse_tool_specs(json: &str) -> Result<Vec<ToolSpec>, String> {
    let tools: Vec<ToolJson> =
        serde_json::from_str(json).map_err(|e| format!("invalid tool definitions: {e}"))?;
    let tools: Vec<ToolSpec> = tools.into_iter().map(ToolSpec::from).collect();
    check_tool_schemas(&tools, "tools")?;
    Ok(tools)
}

/// `isolation` (a session's or the runtime's): `"process"` or `"thread"`.
pub fn check_isolation(value: &Value, path: &str) -> Result<(), String> {
    match value.as_str() {
        Some("process" | "thread") => Ok(()),
        _ => Err(format!(
            "{path} must be \"process\" or \"thread\" (got {value})."
        )),
    }
}

/// The longest `sandboxGroup` name.
const MAX_GROUP_CHARS: usize = 256;

/// `sandboxGroup` (a session's or the runtime's default): a name of 1 to 256 characters.
pub fn check_sandbox_group(value: &Value, path: &str) -> Result<String, String> {
    match value.as_str() {
        Some(name) if !name.is_empty() && name.chars().count() <= MAX_GROUP_CHARS => {
            Ok(name.to_owned())
        }
        _ => Err(format!(
            "{path} must be a string of 1 to {MAX_GROUP_CHARS} characters naming the sessions that may share sandbox processes (got {value})."
        )),
    }
}

#[derive(Deserialize)]
struct FieldJson {
    kind: String,
    value: Option<Value>,
}

fn string_field(field: Option<FieldJson>) -> Field<String> {
    match field {
        None => Field::Absent,
        Some(f) if f.kind == "absent" => Field::Absent,
        Some(FieldJson {
            kind,
            value: Some(Value::String(s)),
        }) if kind == "string" => Field::Value(s),
        Some(_) => Field::Invalid,
    }
}

fn bool_field(field: Option<FieldJson>) -> Field<bool> {
    match field {
        None => Field::Absent,
        Some(f) if f.kind == "absent" => Field::Absent,
        Some(FieldJson {
            kind,
            value: Some(Value::Bool(b)),
        }) if kind == "boolean" => Field::Value(b),
        Some(_) => Field::Invalid,
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ExecInputJson {
    #[serde(default)]
    not_an_object: bool,
    code: Option<FieldJson>,
    command: Option<FieldJson>,
    language: Option<FieldJson>,
    restart_safe: Option<FieldJson>,
}

pub fn parse_exec_input(json: &str) -> RawExecInput {
    let input: ExecInputJson = serde_json::from_str(json).unwrap_or_default();
    RawExecInput {
        not_an_object: input.not_an_object,
        code: string_field(input.code),
        command: string_field(input.command),
        language: string_field(input.language),
        restart_safe: bool_field(input.restart_safe),
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct CallOptions {
    pub call_id: Option<String>,
    #[serde(default)]
    pub aborted: bool,
    /// As the caller gave it; checked by `model_budget::parse_budget`.
    pub result_budget_chars: Option<Value>,
}

pub fn parse_call_options(json: &str) -> CallOptions {
    serde_json::from_str(json).unwrap_or_default()
}
