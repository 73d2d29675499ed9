//! Nested-call records (`nestedCalls` in results; docs/contract.md, Telemetry and
//! trajectory): bounded, redacted, display-only. A short text is kept as it came and
//! redacted when the record is first read ([`NestedCall::redact`]); nothing reads a record
//! before that, and most records of a long loop are dropped unread.

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
/// Read it only after [`NestedCall::redact`] (`RunBook::records` does).
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
    /// Which of the three texts still hold their unredacted source.
    #[serde(skip)]
    pub unredacted: Unredacted,
}

/// Texts of a record kept as they came, still to be redacted (all short: at most
/// [`PREVIEW_BYTES`], so a record holds no more than its previews would).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Unredacted {
    input: bool,
    output: bool,
    error: bool,
}

/// `text` as a record keeps it: a short one as it came (true: redact it on first read),
/// a longer one redacted and cut now, which also bounds what the record holds.
pub fn deferred_preview(redactor: &Redactor, text: &str) -> (String, bool) {
    if text.len() <= PREVIEW_BYTES {
        (text.to_string(), true)
    } else {
        (preview(redactor, text), false)
    }
}

impl NestedCall {
    pub fn started(call: &HostCall, redactor: &Redactor) -> Self {
        let (input_preview, input) = deferred_preview(redactor, &call.input_json);
        NestedCall {
            call_id: call.call_id.clone(),
            parent_call_id: call.parent_call_id.clone(),
            tool_name: call.tool_name.clone(),
            callable_name: call.callable_name.clone(),
            status: "pending",
            duration_ms: None,
            input_preview,
            output_preview: None,
            error: None,
            unredacted: Unredacted {
                input,
                ..Unredacted::default()
            },
        }
    }

    /// Settles the record with the tool's result JSON.
    pub fn succeeded(&mut self, redactor: &Redactor, json: &str) {
        self.status = "ok";
        let (text, raw) = deferred_preview(redactor, json);
        self.output_preview = Some(text);
        self.unredacted.output = raw;
    }

    /// Settles the record with the call's failure message.
    pub fn failed(&mut self, redactor: &Redactor, message: &str) {
        self.status = "error";
        let (text, raw) = deferred_preview(redactor, message);
        self.error = Some(text);
        self.unredacted.error = raw;
    }

    /// Redacts (and cuts) whichever texts are still as they came; idempotent.
    pub fn redact(&mut self, redactor: &Redactor) {
        let pending = std::mem::take(&mut self.unredacted);
        if pending.input {
            self.input_preview = preview(redactor, &self.input_preview);
        }
        if pending.output {
            if let Some(text) = self.output_preview.as_mut() {
                *text = preview(redactor, text);
            }
        }
        if pending.error {
            if let Some(text) = self.error.as_mut() {
                *text = preview(redactor, text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(input_json: &str) -> HostCall {
        HostCall {
            call_id: "run:1".into(),
            parent_call_id: None,
            run_id: "run".into(),
            session_id: "s".into(),
            tool_index: 0,
            surface: false,
            tool_name: "t".into(),
            callable_name: "t".into(),
            input_json: input_json.into(),
        }
    }

    const TOKEN: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

    #[test]
    fn a_record_read_after_redact_equals_the_eager_previews() {
        let redactor = Redactor::new(vec!["hunter2".into()], &[], "redaction").unwrap();
        let short = format!(r#"{{"q":"{TOKEN} hunter2"}}"#);
        let long = format!(r#"{{"q":"{}{TOKEN}"}}"#, "x".repeat(600));
        for (input, output) in [(&short, &long), (&long, &short)] {
            let mut record = NestedCall::started(&call(input), &redactor);
            record.succeeded(&redactor, output);
            record.redact(&redactor);
            assert_eq!(record.input_preview, preview(&redactor, input));
            assert_eq!(
                record.output_preview.as_deref(),
                Some(preview(&redactor, output).as_str())
            );
            assert!(!record.input_preview.contains("hunter2"));
            assert!(!format!("{:?}", record.output_preview).contains(TOKEN));
            let once = record.clone();
            record.redact(&redactor);
            assert_eq!(record, once, "redacting twice changes nothing");
        }
        let mut failed = NestedCall::started(&call("{}"), &redactor);
        failed.failed(&redactor, "bad hunter2");
        failed.redact(&redactor);
        assert_eq!(failed.error.as_deref(), Some("bad [REDACTED]"));
    }

    #[test]
    fn a_record_holds_no_more_than_a_preview_of_a_long_text() {
        let redactor = Redactor::default();
        let record = NestedCall::started(&call(&"y".repeat(100_000)), &redactor);
        assert!(record.input_preview.len() <= PREVIEW_BYTES + "…".len());
    }
}
