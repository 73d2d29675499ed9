//! `toModelResult` (docs/contract.md, Model results): a result as the model should see it,
//! without telemetry or `nestedCalls`; with a budget, at most that many UTF-16 units, output
//! cut first, then the value or error, and a completed result stays completed.

use super::project::{channel_sizes, output_sizes, project_error, project_output, project_value};
use super::{chars_of, fit_result, key_cost};
use crate::error::CodeModeError;
use serde_json::{Map, Number, Value};

/// The smallest `budgetChars`: room for any status with a value marker.
pub const MIN_MODEL_BUDGET: usize = 256;

pub const MODEL_BUDGET_INVALID: &str = "budgetChars must be an integer of at least 256.";
pub const NOT_A_RESULT: &str =
    "toModelResult takes a CodeModeResult: an object whose status is completed, waiting or failed.";

/// The model's view of `result`, fitted into `budget` chars when one is given.
pub fn to_model_result(result: &Value, budget: Option<usize>) -> Result<Value, CodeModeError> {
    let mut model = project(result).ok_or_else(|| CodeModeError::invalid_input(NOT_A_RESULT))?;
    as_doubles(&mut model);
    let Some(budget) = budget else {
        return Ok(model);
    };
    if budget < MIN_MODEL_BUDGET {
        return Err(CodeModeError::invalid_input(MODEL_BUDGET_INVALID));
    }
    // Sizes are measured on serde's JSON, the caller measures JavaScript's: numbers that
    // JavaScript writes longer (`1e+21` against `1e21`, `100000000000000000000` against
    // `1e20`) and that survive the cut shrink the budget until the answer fits.
    let mut room = budget;
    loop {
        let fitted = fit(model.clone(), room);
        let total = chars_of(&fitted) + number_slack(&fitted);
        if total <= budget || room == 0 {
            return Ok(fitted);
        }
        room = room.saturating_sub(total - budget);
    }
}

/// The model-facing fields of a result, in a fixed order; `None` if it is not a result.
fn project(result: &Value) -> Option<Value> {
    let obj = result.as_object()?;
    let status = obj.get("status")?.as_str()?;
    let keys: &[&str] = match status {
        "completed" => &["value"],
        "failed" => &["error", "code"],
        "waiting" => &["runId", "reason"],
        _ => return None,
    };
    let mut model = Map::new();
    model.insert("status".into(), Value::from(status));
    for key in keys {
        match obj.get(*key) {
            Some(value) => model.insert((*key).into(), value.clone()),
            // A completed result always has a value, even a missing one.
            None if *key == "value" => model.insert("value".into(), Value::Null),
            None => None,
        };
    }
    if let Some(output) = obj
        .get("output")
        .filter(|o| o.as_array().is_some_and(|a| !a.is_empty()))
    {
        model.insert("output".into(), output.clone());
    }
    Some(Value::Object(model))
}

/// `model` within `budget`: as is; with its output cut; with the output at its smallest
/// marker and the final channel cut; without output and the final channel cut. Past
/// that (a budget below the minimum), the result budget's own rules.
fn fit(model: Value, budget: usize) -> Value {
    if chars_of(&model) <= budget {
        return model;
    }
    let Value::Object(mut obj) = model else {
        return model;
    };
    let output = obj.shift_remove("output");
    let final_key = ["value", "error"]
        .into_iter()
        .find(|k| obj.contains_key(*k));
    let base = Value::Object(obj.clone());
    if let Some(output) = &output {
        // The output cut, the value whole.
        let room = budget.checked_sub(chars_of(&base) + key_cost("output"));
        if let Some(cut) = room.and_then(|room| project_output(output, room)) {
            return with(obj, "output", cut);
        }
    }
    let Some(key) = final_key else {
        // Nothing but output to cut, and even its marker did not fit.
        return Value::Object(obj);
    };
    let final_value = obj.get(key).cloned().unwrap_or(Value::Null);
    let mut envelope = obj.clone();
    envelope.shift_remove(key);
    let Some(room) = budget.checked_sub(chars_of(&Value::Object(envelope)) + key_cost(key)) else {
        return fit_result(Value::Object(obj), budget).result;
    };
    let (_, final_min) = channel_sizes(Some(key), &final_value);
    let cut_final = |share: usize| match key {
        "value" => project_value(&final_value, share),
        _ => project_error(&final_value, share),
    };
    if let Some(output) = &output {
        // The output at its smallest marker, the value gets the rest.
        let (_, out_min) = output_sizes(output);
        let cut_output = room
            .checked_sub(final_min + key_cost("output"))
            .filter(|r| *r >= out_min)
            .and_then(|_| project_output(output, out_min));
        if let Some(cut_output) = cut_output {
            let share = room - key_cost("output") - chars_of(&cut_output);
            if let Some(cut) = cut_final(share) {
                let obj = with(obj, key, cut);
                let Value::Object(obj) = obj else { return obj };
                return with(obj, "output", cut_output);
            }
        }
    }
    match cut_final(room) {
        Some(cut) => with(obj, key, cut),
        None => fit_result(Value::Object(obj), budget).result,
    }
}

fn with(mut obj: Map<String, Value>, key: &str, value: Value) -> Value {
    obj.insert(key.into(), value);
    Value::Object(obj)
}

/// Integers beyond 2^53 as the doubles JavaScript holds them as (serde would hand them
/// back to JavaScript as BigInts, which `JSON.stringify` refuses).
fn as_doubles(v: &mut Value) {
    const SAFE: u64 = 1 << 53;
    match v {
        Value::Number(n)
            if n.as_u64().is_some_and(|u| u > SAFE)
                || n.as_i64().is_some_and(|i| i.unsigned_abs() > SAFE) =>
        {
            if let Some(double) = n.as_f64().and_then(Number::from_f64) {
                *n = double;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(as_doubles),
        Value::Object(obj) => obj.values_mut().for_each(as_doubles),
        _ => {}
    }
}

/// How many more chars JavaScript writes than serde for every number in `v`.
fn number_slack(v: &Value) -> usize {
    match v {
        Value::Number(n) => js_number_len(n).saturating_sub(n.to_string().len()),
        Value::Array(items) => items.iter().map(number_slack).sum(),
        Value::Object(obj) => obj.values().map(number_slack).sum(),
        _ => 0,
    }
}

/// The length of JavaScript's `String(n)` (ECMA-262 Number::toString, radix 10).
fn js_number_len(n: &Number) -> usize {
    if n.is_u64() || n.is_i64() {
        return n.to_string().len();
    }
    let Some(f) = n.as_f64().filter(|f| f.is_finite()) else {
        return 4; // `null`
    };
    if f == 0.0 {
        return 1;
    }
    let sign = usize::from(f < 0.0);
    // Rust prints the shortest round-trip digits, as JavaScript does: `d.ddde±x`.
    let scientific = format!("{:e}", f.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let k = mantissa.chars().filter(char::is_ascii_digit).count();
    let n = exponent.parse::<i64>().unwrap_or(0) + 1;
    let k_i = i64::try_from(k).unwrap_or(i64::MAX);
    let len = if k_i <= n && n <= 21 {
        n
    } else if 0 < n && n <= 21 {
        k_i + 1
    } else if -6 < n && n <= 0 {
        2 - n + k_i
    } else {
        let exponent_digits = i64::try_from((n - 1).unsigned_abs().to_string().len()).unwrap_or(0);
        let dot = i64::from(k > 1);
        k_i + dot + 2 + exponent_digits
    };
    sign + usize::try_from(len).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn telemetry_and_nested_calls_are_left_out() {
        let raw = json!({
            "status": "completed", "value": 31, "output": [{ "type": "text", "text": "hi" }],
            "telemetry": { "catalogSize": 3 }, "nestedCalls": [{ "callId": "a" }]
        });
        assert_eq!(
            to_model_result(&raw, None),
            Ok(
                json!({ "status": "completed", "value": 31, "output": [{ "type": "text", "text": "hi" }] })
            )
        );
        let waiting = json!({ "status": "waiting", "runId": "cm_1", "reason": "yield", "pendingToolCalls": [], "telemetry": {} });
        assert_eq!(
            to_model_result(&waiting, None),
            Ok(json!({ "status": "waiting", "runId": "cm_1", "reason": "yield" }))
        );
    }

    #[test]
    fn numbers_javascript_writes_longer_are_paid_for() {
        let raw = json!({ "status": "completed", "value": vec![1e20; 40] });
        let model = to_model_result(&raw, Some(300)).unwrap();
        assert!(chars_of(&model) + number_slack(&model) <= 300, "{model}");
        let few = json!({ "status": "completed", "value": vec![1e20; 5] });
        assert_eq!(
            to_model_result(&few, Some(300)).unwrap()["value"],
            json!(vec![1e20; 5])
        );
    }

    #[test]
    fn integers_beyond_2_53_become_doubles() {
        let raw = json!({ "status": "completed", "value": [1u64 << 60, -(1i64 << 60), 7] });
        let model = to_model_result(&raw, None).unwrap();
        assert!(model["value"][0].is_f64() && model["value"][1].is_f64());
        assert!(model["value"][2].is_u64());
    }

    #[test]
    fn javascript_number_lengths() {
        let len = |v: Value| js_number_len(v.as_number().unwrap());
        assert_eq!(len(json!(1e21)), "1e+21".len());
        assert_eq!(len(json!(1e20)), "100000000000000000000".len());
        assert_eq!(len(json!(0.5)), "0.5".len());
        assert_eq!(len(json!(1.5e-7)), "1.5e-7".len());
        assert_eq!(len(json!(0.000001)), "0.000001".len());
        assert_eq!(len(json!(-123.25)), "-123.25".len());
        assert_eq!(len(json!(5.0)), 1);
    }

    #[test]
    fn a_big_completed_result_stays_completed_within_the_budget() {
        let raw = json!({
            "status": "completed", "value": "v".repeat(5000),
            "output": [{ "type": "text", "text": "o".repeat(5000) }]
        });
        for budget in [256, 300, 400, 1000, 5100, 20_000] {
            let model = to_model_result(&raw, Some(budget)).unwrap();
            assert_eq!(model["status"], "completed");
            assert!(chars_of(&model) <= budget, "{budget}: {model}");
        }
    }

    #[test]
    fn output_is_cut_before_the_value() {
        let raw = json!({
            "status": "completed", "value": "keep me",
            "output": [{ "type": "text", "text": "o".repeat(5000) }]
        });
        let model = to_model_result(&raw, Some(400)).unwrap();
        assert_eq!(model["value"], "keep me");
        assert_eq!(model["output"][0]["value"]["truncated"], true);
    }

    #[test]
    fn budgets_below_the_minimum_and_non_results_are_invalid_input() {
        let raw = json!({ "status": "completed", "value": 1 });
        assert_eq!(
            to_model_result(&raw, Some(255)).unwrap_err().message,
            MODEL_BUDGET_INVALID
        );
        assert_eq!(
            to_model_result(&json!({ "status": "done" }), None)
                .unwrap_err()
                .message,
            NOT_A_RESULT
        );
    }
}
