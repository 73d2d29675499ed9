//! Nested-call records (`nestedCalls` in results; docs/contract.md, Telemetry and
//! trajectory): bounded, redacted, display-only.

use crate::run::protocol::HostCall;
use crate::source::redact::Redactor;
use serde::Serialize;

/// Previews are cut to about this many bytes (on a char boundary).
pub const PREVIEW_BYTES: usize = 512;

/// The session's redaction applied to `text`, then cut to [`PREVIEW_BYTES`].
pub fn preview(redactor: &Redactor, text: &str) -> String {
    redactor.preview(text, PREVIEW_BYTES)
}

/// One record of `nestedCalls`; fields serialise in this order, absent ones skipped.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NestedCall {
    pub call_id: String,
    pub tool_name: String,
    /// The name the guest called (`MCP.docs.echo`): host ids alone cannot tell two
    /// servers' `echo` apart.
    pub callable_name: String,
    pub status: &'static str,
    pub input_preview: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_call_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_preview: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl NestedCall {
    pub fn started(call: &HostCall, redactor: &Redactor) -> Self {
        NestedCall {
            call_id: call.call_id.clone(),
            parent_call_id: call.parent_call_id.clone(),
            tool_name: call.tool_name.clone(),
            callable_name: call.callable_name.clone(),
            status: "pending",
            duration_ms: None,
            input_preview: preview(redactor, &call.input_json),
            output_preview: None,
            error: None,
        }
    }
}
