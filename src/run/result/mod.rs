//! Builds `CodeModeResult`s (index.d.ts) as the typed [`CodeModeResult`]: the status
//! union, output through the shared budget, telemetry with per-run metering, nested calls.

mod types;

pub use types::{
    CallMethod, CodeModeResult, PendingToolCall, RunTelemetry, SessionTelemetry, Telemetry,
    ToolSources,
};

use crate::error::{CodeModeError, ErrorCode};
use crate::guest::control::now_ns;
use crate::run::output::Overflow;
use crate::run::state::RunBook;
use serde_json::{json, Value};

/// The finished result handed to the caller of exec/wait.
pub type Outcome = CodeModeResult;

/// What answers an exec or wait: called once, from any thread, with the run's result.
pub type Responder = Box<dyn FnOnce(Outcome) + Send + 'static>;

/// The binding's end of a result: its JSON, to settle a promise with.
pub type Delivery = Box<dyn FnOnce(Value) + Send + 'static>;

/// A responder that hands each result to `deliver` as JSON (no model result budget).
pub fn delivering(deliver: Delivery) -> Responder {
    Box::new(move |outcome: Outcome| deliver(outcome.into_value()))
}

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

    fn telemetry(&self, nested_calls: usize) -> RunTelemetry {
        let wall_ns = now_ns().saturating_sub(self.call_started_ns);
        RunTelemetry {
            wall_ms: round3(wall_ns as f64 / 1e6),
            guest_cpu_ms: round3(self.guest_ns as f64 / 1e6),
            peak_heap_bytes: self.peak_heap,
            nested_calls,
        }
    }
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

const OUTPUT_LIMIT: &str =
    "code mode output limit exceeded: the result cannot be projected into maxOutputBytes.";

/// A failure that never reached a cell (bad input, closed session, busy pool).
pub fn early_failure(error: &CodeModeError, telemetry: Telemetry) -> Outcome {
    CodeModeResult::Failed {
        error: error.message.clone(),
        code: error.code,
        output: Vec::new(),
        telemetry,
        nested_calls: Vec::new(),
    }
}

/// The final result of a run: completed with its value, or failed with its error.
pub fn final_result(
    book: &mut RunBook,
    result: Result<String, CodeModeError>,
    metrics: &RunMetrics,
    telemetry: Telemetry,
) -> Outcome {
    let finished = match result {
        Ok(value_json) => {
            let value: Value = serde_json::from_str(&value_json).unwrap_or(Value::Null);
            book.output
                .finish_value_entries(value)
                .map(|(output, value)| (output, Ok(value)))
        }
        Err(error) => book
            .output
            .finish_error_entries(&error.message)
            .map(|(output, message)| (output, Err((message, error.code)))),
    };
    let telemetry = with_run(telemetry, book, metrics);
    // The book keeps only the newest records (`KEPT_RECORDS`), which is what a result shows.
    let nested_calls = book.records().cloned().collect();
    match finished {
        Ok((output, Ok(value))) => CodeModeResult::Completed {
            value,
            output,
            telemetry,
            nested_calls,
        },
        Ok((output, Err((error, code)))) => CodeModeResult::Failed {
            error,
            code,
            output,
            telemetry,
            nested_calls,
        },
        Err(Overflow) => CodeModeResult::Failed {
            error: OUTPUT_LIMIT.into(),
            code: ErrorCode::OutputLimitExceeded,
            output: Vec::new(),
            telemetry,
            nested_calls,
        },
    }
}

/// A `waiting` result: the run is parked and `wait` continues it.
pub fn waiting_result(
    book: &mut RunBook,
    run_id: &str,
    reason: &str,
    metrics: &RunMetrics,
    telemetry: Telemetry,
) -> Outcome {
    let pending_tool_calls = book
        .pending_calls()
        .into_iter()
        .map(|(call_id, tool, payload)| PendingToolCall {
            id: call_id,
            method: CallMethod::Tool,
            tool_name: tool,
            external: payload.is_some(),
            // The text is the glue's `JSON.stringify`, so it parses.
            payload: payload.map(|text| serde_json::from_str(&text).unwrap_or(Value::Null)),
        })
        .collect();
    let output = book.output.take_partial_entries();
    CodeModeResult::Waiting {
        run_id: run_id.to_string(),
        reason: reason.to_string(),
        pending_tool_calls,
        output,
        telemetry: with_run(telemetry, book, metrics),
        nested_calls: book.records().cloned().collect(),
    }
}

/// A `waiting` result that reaches the caller after its session closed. `close()` dropped
/// the run, so its run id could resume nothing: the caller gets the abort that close
/// promises, keeping the output and telemetry gathered until the run parked. It works on
/// the JSON the caller was about to receive, which the model result budget may have cut.
pub fn aborted_after_close(waiting: Value) -> Value {
    let error = CodeModeError::aborted();
    let Value::Object(mut out) = waiting else {
        return early_failure(&error, Telemetry::default()).into_value();
    };
    for field in ["runId", "reason", "pendingToolCalls"] {
        out.remove(field);
    }
    out.insert("status".into(), json!("failed"));
    out.insert("error".into(), json!(error.message));
    out.insert("code".into(), json!(error.code.as_str()));
    Value::Object(out)
}

/// `telemetry` with the run's metering added.
fn with_run(mut telemetry: Telemetry, book: &RunBook, metrics: &RunMetrics) -> Telemetry {
    telemetry.run = Some(metrics.telemetry(book.nested_total()));
    telemetry
}

#[cfg(test)]
mod tests;
