//! The `CodeModeResult` union of index.d.ts as Rust types. Fields serialise in declaration
//! order, which is the key order results have always had; absent optionals are skipped.

use crate::error::ErrorCode;
use crate::run::nested_calls::NestedCall;
use crate::run::output::OutputEntry;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// One exec/wait result, tagged by `status`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "status",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum CodeModeResult {
    Completed {
        value: Value,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        output: Vec<OutputEntry>,
        telemetry: Telemetry,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        nested_calls: Vec<NestedCall>,
    },
    Failed {
        error: String,
        code: ErrorCode,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        output: Vec<OutputEntry>,
        telemetry: Telemetry,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        nested_calls: Vec<NestedCall>,
    },
    Waiting {
        run_id: String,
        reason: String,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        pending_tool_calls: Vec<PendingToolCall>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        output: Vec<OutputEntry>,
        telemetry: Telemetry,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        nested_calls: Vec<NestedCall>,
    },
}

impl CodeModeResult {
    /// The result as JSON, for the binding edge and the model result budget.
    pub fn into_value(self) -> Value {
        // Every field serialises infallibly (string keys, finite or null floats).
        serde_json::to_value(&self).unwrap_or(Value::Null)
    }
}

/// A tool call a `waiting` run is parked on.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingToolCall {
    /// The call's one id: the same as its ctx.callId, nestedCalls record and events.
    pub id: String,
    pub method: CallMethod,
    pub tool_name: String,
    /// Its tool called `ctx.suspend(payload)`: only `resolveCall` settles it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub external: bool,
    /// What the tool passed to `ctx.suspend` (present exactly when `external`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<Value>,
}

/// How a pending call reaches the host; only tools park today.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CallMethod {
    Tool,
}

/// The `telemetry` block: the session's counters (absent only when no session answered)
/// and, on results of a run, that run's metering.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Telemetry {
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionTelemetry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<RunTelemetry>,
}

impl Telemetry {
    /// The block as JSON (`CodeModeSession.telemetry()`).
    pub fn into_value(self) -> Value {
        serde_json::to_value(&self).unwrap_or(Value::Null)
    }
}

/// `CodeModeTelemetry`: catalog sizes and cumulative counters of one session.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionTelemetry {
    pub catalog_size: usize,
    pub sources: ToolSources,
    pub counter_scope: String,
    pub search_count: u64,
    pub describe_count: u64,
    pub call_count: u64,
    pub visible_tools: Vec<String>,
}

/// Catalog entries by where they came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolSources {
    pub core: usize,
    /// The old name of `core`, kept for readers of earlier telemetry: always equal to it.
    pub openclaw: usize,
    pub mcp: usize,
    pub client: usize,
}

/// `telemetry.run`: one run's metering, milliseconds rounded to microseconds.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunTelemetry {
    pub wall_ms: f64,
    pub guest_cpu_ms: f64,
    pub peak_heap_bytes: u64,
    pub nested_calls: usize,
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}
