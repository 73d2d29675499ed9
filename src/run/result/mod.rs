//! Builds `CodeModeResult` JSON (index.d.ts): the status union, output through the shared
//! budget, telemetry with per-run metering, and nested-call records.

use crate::error::{CodeModeError, ErrorCode};
use crate::guest::control::now_ns;
use crate::run::output::Overflow;
use crate::run::state::RunBook;
use serde_json::{json, Map, Value};

/// The finished JSON result handed to the caller of exec/wait.
pub type Outcome = Value;

#[derive(Clone, Debug, Default)]
pub struct RunMetrics {
    pub created_ns: u64,
    pub call_started_ns: u64,
    pub guest_ns: u64,
    pub peak_heap: u64,
}

impl RunMetrics {
    pub fn observe_heap(&mut self, bytes: u64) {
        self.peak_heap = self.peak_heap.max(bytes);
    }

    fn to_json(&self, nested_calls: usize) -> Value {
        let wall_ns = now_ns().saturating_sub(self.call_started_ns);
        json!({
            "wallMs": round3(wall_ns as f64 / 1e6),
            "guestCpuMs": round3(self.guest_ns as f64 / 1e6),
            "peakHeapBytes": self.peak_heap,
            "nestedCalls": nested_calls,
        })
    }
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// A failure that never reached a cell (bad input, closed session, busy pool).
pub fn early_failure(error: &CodeModeError, telemetry: Value) -> Outcome {
    json!({
        "status": "failed",
        "error": error.message,
        "code": error.code.as_str(),
        "telemetry": telemetry,
    })
}

/// The final result of a run: completed with its value, or failed with its error.
pub fn final_result(
    book: &mut RunBook,
    result: Result<String, CodeModeError>,
    metrics: &RunMetrics,
    mut telemetry: Value,
) -> Outcome {
    let mut out = Map::new();
    let projected = match result {
        Ok(value_json) => {
            let value: Value = serde_json::from_str(&value_json).unwrap_or(Value::Null);
            match book.output.finish_value(value) {
                Ok((output, value)) => {
                    out.insert("status".into(), json!("completed"));
                    out.insert("value".into(), value);
                    Ok(output)
                }
                Err(Overflow) => Err(()),
            }
        }
        Err(error) => match book.output.finish_error(&error.message) {
            Ok((output, message)) => {
                out.insert("status".into(), json!("failed"));
                out.insert("error".into(), json!(message));
                out.insert("code".into(), json!(error.code.as_str()));
                Ok(output)
            }
            Err(Overflow) => Err(()),
        },
    };
    match projected {
        Ok(output) => {
            if !output.is_empty() {
                out.insert("output".into(), Value::Array(output));
            }
        }
        Err(()) => {
            out.clear();
            out.insert("status".into(), json!("failed"));
            out.insert(
                "error".into(),
                json!("code mode output limit exceeded: the result cannot be projected into maxOutputBytes."),
            );
            out.insert(
                "code".into(),
                json!(ErrorCode::OutputLimitExceeded.as_str()),
            );
        }
    }
    attach_common(&mut out, book, metrics, &mut telemetry);
    Value::Object(out)
}

/// A `waiting` result: the run is parked and `wait` continues it.
pub fn waiting_result(
    book: &mut RunBook,
    run_id: &str,
    reason: &str,
    metrics: &RunMetrics,
    mut telemetry: Value,
) -> Outcome {
    let mut out = Map::new();
    out.insert("status".into(), json!("waiting"));
    out.insert("runId".into(), json!(run_id));
    out.insert("reason".into(), json!(reason));
    let pending: Vec<Value> = book
        .pending_calls()
        .into_iter()
        // The call's one id: the same as its ctx.callId, nestedCalls record and events.
        .map(|(call_id, tool)| json!({ "id": call_id, "method": "tool", "toolName": tool }))
        .collect();
    if !pending.is_empty() {
        out.insert("pendingToolCalls".into(), Value::Array(pending));
    }
    let output = book.output.take_partial();
    if !output.is_empty() {
        out.insert("output".into(), Value::Array(output));
    }
    attach_common(&mut out, book, metrics, &mut telemetry);
    Value::Object(out)
}

/// A `waiting` result that reaches the caller after its session closed. `close()` dropped
/// the run, so its run id could resume nothing: the caller gets the abort that close
/// promises, keeping the output and telemetry gathered until the run parked.
pub fn aborted_after_close(waiting: Outcome) -> Outcome {
    let error = CodeModeError::aborted();
    let Value::Object(mut out) = waiting else {
        return early_failure(&error, json!({}));
    };
    for field in ["runId", "reason", "pendingToolCalls"] {
        out.remove(field);
    }
    out.insert("status".into(), json!("failed"));
    out.insert("error".into(), json!(error.message));
    out.insert("code".into(), json!(error.code.as_str()));
    Value::Object(out)
}

fn attach_common(
    out: &mut Map<String, Value>,
    book: &RunBook,
    metrics: &RunMetrics,
    telemetry: &mut Value,
) {
    if let Some(t) = telemetry.as_object_mut() {
        t.insert("run".into(), metrics.to_json(book.nested_total()));
    }
    out.insert("telemetry".into(), telemetry.take());
    // The book keeps only the newest records (`KEPT_RECORDS`), which is what a result shows.
    let records: Vec<Value> = book.records().map(|r| r.to_json()).collect();
    if !records.is_empty() {
        out.insert("nestedCalls".into(), Value::Array(records));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waiting_result_after_close_becomes_aborted_and_keeps_its_output() {
        let waiting = json!({
            "status": "waiting", "runId": "cm_1", "reason": "pending_tools",
            "pendingToolCalls": [{ "id": "cm_1:1", "method": "tool", "toolName": "never" }],
            "output": [{ "type": "text", "text": "before" }],
            "telemetry": { "run": { "nestedCalls": 1 } },
        });
        let aborted = aborted_after_close(waiting);
        assert_eq!(
            aborted,
            json!({
                "status": "failed", "error": "code mode execution aborted", "code": "aborted",
                "output": [{ "type": "text", "text": "before" }],
                "telemetry": { "run": { "nestedCalls": 1 } },
            })
        );
    }

    #[test]
    fn an_unreadable_waiting_result_after_close_is_still_aborted() {
        let aborted = aborted_after_close(Value::Null);
        assert_eq!(aborted["status"], "failed");
        assert_eq!(aborted["code"], "aborted");
    }
}
