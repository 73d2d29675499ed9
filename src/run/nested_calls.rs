//! Nested-call records (`nestedCalls` in results; docs/contract.md, Telemetry and
//! trajectory): bounded, redacted, display-only.

use crate::run::protocol::HostCall;
use crate::source::redact::Redactor;
use serde_json::{json, Value};

/// Previews are cut to about this many bytes (on a char boundary).
pub const PREVIEW_BYTES: usize = 512;

/// The session's redaction applied to `text`, then cut to [`PREVIEW_BYTES`].
pub fn preview(redactor: &Redactor, text: &str) -> String {
    redactor.preview(text, PREVIEW_BYTES)
}

#[derive(Clone, Debug)]
pub struct NestedCall {
    pub call_id: String,
    pub parent_call_id: Option<String>,
    pub tool_name: String,
    /// The name the guest called (`MCP.docs.echo`): host ids alone cannot tell two
    /// servers' `echo` apart.
    pub callable_name: String,
    pub status: &'static str,
    pub duration_ms: Option<f64>,
    pub input_preview: String,
    pub output_preview: Option<String>,
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

    pub fn to_json(&self) -> Value {
        let mut record = json!({
            "callId": self.call_id,
            "toolName": self.tool_name,
            "callableName": self.callable_name,
            "status": self.status,
            "inputPreview": self.input_preview,
        });
        if let Some(map) = record.as_object_mut() {
            if let Some(parent) = &self.parent_call_id {
                map.insert("parentCallId".into(), json!(parent));
            }
            if let Some(ms) = self.duration_ms {
                map.insert("durationMs".into(), json!(ms));
            }
            if let Some(out) = &self.output_preview {
                map.insert("outputPreview".into(), json!(out));
            }
            if let Some(err) = &self.error {
                map.insert("error".into(), json!(err));
            }
        }
        record
    }
}
