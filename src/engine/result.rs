//! Builds `CodeModeResult` JSON (API.md): the status union, output through the shared
//! budget, telemetry with per-run metering, and nested-call records.

use super::book::RunBook;
use super::output::Overflow;
use crate::error::{CodeModeError, ErrorCode};
use crate::guest::control::now_ns;
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
        .map(|(id, tool)| json!({ "id": format!("bridge:tool:{id}"), "method": "tool", "toolName": tool }))
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
    let records: Vec<Value> = book.records().map(|r| r.to_json(None)).collect();
    if !records.is_empty() {
        out.insert("nestedCalls".into(), Value::Array(records));
    }
}
