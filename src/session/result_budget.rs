//! `resultBudgetChars` (docs/contract.md, Output budget): fits a whole exec/wait result,
//! envelope first, into a model's per-result limit in UTF-16 code units, with the byte
//! budget's marker rules. Decisions: docs/design.md, Model result budget.

use crate::error::CodeModeError;
use crate::json_size::Unit;
use crate::run::cell::Responder;
use crate::run::result::{Delivery, Outcome};
use crate::runtime::timer;
use crate::session::core::SessionCore;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Instant;

pub mod model;
mod project;

use project::{channel_sizes, output_sizes, project_error, project_output, project_value};

pub const STATUS_CANNOT_FIT: &str =
    "Model tool-result budget cannot fit Code Mode status; use a larger model context.";

pub const BUDGET_INVALID: &str = "resultBudgetChars must be a positive integer.";

/// Reads the `resultBudgetChars` call option: absent → `None`; a positive integer
/// (integral floats count) → its value; anything else is `invalid_input`.
pub fn parse_budget(v: Option<&Value>) -> Result<Option<usize>, CodeModeError> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let n = v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.is_finite() && f.fract() == 0.0 && *f >= 1.0)
            .map(|f| f as u64)
    });
    match n.filter(|n| *n >= 1) {
        Some(n) => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
        None => Err(CodeModeError::invalid_input(BUDGET_INVALID)),
    }
}

/// A responder that hands `deliver` each result's JSON fitted into `budget` chars. A
/// waiting run replaced by the cannot-fit failure is dropped (on the timer thread: the
/// responder may be called while the run's own locks are held).
pub fn fitting(core: &Arc<SessionCore>, budget: usize, deliver: Delivery) -> Responder {
    let core = Arc::downgrade(core);
    Box::new(move |outcome: Outcome| {
        let fitted = fit_result(outcome.into_value(), budget);
        if let Some(run_id) = fitted.dropped_run {
            timer::schedule(Instant::now(), move || {
                if let Some(core) = core.upgrade() {
                    core.cancel_run(&run_id);
                }
            });
        }
        deliver(fitted.result);
    })
}

/// `[{"type":"json","value":` … `}]` around an output marker.
/// A fitted result, and the run id of a waiting run that had to be replaced by the
/// failure (it can no longer be resumed by the model and should be dropped).
pub struct Fitted {
    pub result: Value,
    pub dropped_run: Option<String>,
}

/// Fits `outcome` into `budget` UTF-16 code units of compact JSON.
pub fn fit_result(outcome: Value, budget: usize) -> Fitted {
    let unchanged = |result| Fitted {
        result,
        dropped_run: None,
    };
    if chars_of(&outcome) <= budget {
        return unchanged(outcome);
    }
    let Value::Object(obj) = outcome else {
        return unchanged(outcome);
    };
    let final_key = ["value", "error"]
        .into_iter()
        .find(|k| obj.contains_key(*k));
    let levels: [(&[&str], bool); 4] = [
        (&[], true),
        (&["nestedCalls"], true),
        (&["nestedCalls", "pendingToolCalls"], true),
        (&["nestedCalls", "pendingToolCalls"], false),
    ];
    for (dropped, keep_output) in levels {
        if let Some(result) = try_level(&obj, final_key, dropped, keep_output, budget) {
            return unchanged(result);
        }
    }
    let dropped_run = (obj.get("status") == Some(&json!("waiting")))
        .then(|| obj.get("runId").and_then(Value::as_str).map(str::to_string))
        .flatten();
    let mut failed = Map::new();
    failed.insert("status".into(), json!("failed"));
    failed.insert("error".into(), json!(STATUS_CANNOT_FIT));
    failed.insert("code".into(), json!("output_limit_exceeded"));
    if let Some(telemetry) = obj.get("telemetry") {
        failed.insert("telemetry".into(), telemetry.clone());
    }
    Fitted {
        result: Value::Object(failed),
        dropped_run,
    }
}

/// The result with `dropped` keys removed and the channels projected, if it fits.
fn try_level(
    obj: &Map<String, Value>,
    final_key: Option<&str>,
    dropped: &[&str],
    keep_output: bool,
    budget: usize,
) -> Option<Value> {
    // The envelope: everything but the channels, in the original key order.
    let envelope: Map<String, Value> = obj
        .iter()
        .filter(|(k, _)| {
            !dropped.contains(&k.as_str()) && *k != "output" && Some(k.as_str()) != final_key
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut room = budget.checked_sub(chars_of(&Value::Object(envelope)))?;
    let final_value = final_key.and_then(|k| obj.get(k));
    if let Some(key) = final_key {
        room = room.checked_sub(key_cost(key))?;
    }
    let output = obj
        .get("output")
        .filter(|o| keep_output && o.as_array().is_some_and(|a| !a.is_empty()));
    let (final_cost, final_min) = final_value.map_or((0, 0), |v| channel_sizes(final_key, v));
    let (out_cost, out_min) = output.map_or((0, 0), output_sizes);
    let remaining = match output {
        Some(_) => room.checked_sub(key_cost("output"))?,
        None => room,
    };
    if out_min + final_min > remaining {
        return None;
    }
    let out_share = if output.is_none() {
        0
    } else if final_value.is_none() {
        remaining
    } else {
        split(remaining, (out_cost, out_min), (final_cost, final_min))
    };
    let final_share = remaining - out_share;
    let mut result = Map::new();
    for (key, value) in obj {
        if dropped.contains(&key.as_str()) {
            continue;
        }
        let projected = if key == "output" {
            match output {
                Some(output) => project_output(output, out_share)?,
                None => continue,
            }
        } else if Some(key.as_str()) == final_key {
            match key.as_str() {
                "value" => project_value(value, final_share)?,
                _ => project_error(value, final_share)?,
            }
        } else {
            value.clone()
        };
        result.insert(key.clone(), projected);
    }
    Some(Value::Object(result))
}

/// The output channel's share of `remaining`, as the byte budget splits it: each half,
/// a channel needing less passing the rest over, never below either channel's minimum.
fn split(
    remaining: usize,
    (out_cost, out_min): (usize, usize),
    (final_cost, final_min): (usize, usize),
) -> usize {
    if out_cost + final_cost <= remaining {
        return out_cost;
    }
    let out_half = remaining / 2;
    let final_half = remaining - out_half;
    let mut share = if out_cost <= out_half {
        out_cost
    } else if final_cost <= final_half {
        remaining - final_cost
    } else {
        out_half
    };
    if share < out_min {
        share = out_min;
    } else if remaining - share < final_min {
        share = remaining - final_min;
    }
    share
}

/// `,"key":` before a value inside a non-empty object.
fn key_cost(key: &str) -> usize {
    key.len() + 4
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// UTF-16 code units of the compact JSON of `v`.
pub fn chars_of(v: &Value) -> usize {
    Unit::Utf16.str_len(&compact(v))
}

#[cfg(test)]
mod tests;
