//! `toModelResult`: the model's view of an exec/wait result, converted at the edge.

use super::errors::{invalid, plain_json, thrown, Code};
use crate::session::result_budget::model::{to_model_result, MODEL_BUDGET_INVALID};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ModelResultOptions {
    budget_chars: Option<Value>,
}

/// What a gateway sends back to the model for an exec/wait result: `status`, then `value`
/// (completed), `error` and `code` (failed) or `runId` and `reason` (waiting), and
/// `output` — no telemetry or `nestedCalls`. Pure. With `budgetChars` (an integer of at
/// least 256), `JSON.stringify` of the answer is at most that many characters: output is
/// cut first, then the value or error, to truncation markers; a completed result stays
/// completed. Throws (`code: "invalid_input"`) for a value that is not a result or a bad
/// budget.
#[napi(
    js_name = "toModelResult",
    ts_args_type = "result: CodeModeResult, options?: { budgetChars?: number }",
    ts_return_type = "ModelResult"
)]
pub fn to_model_result_js(
    env: Env,
    result: Unknown,
    options: Option<Unknown>,
) -> Result<Value, Code> {
    let result = match plain_json(&env, result).map_err(super::errors::internal)? {
        Ok(Some(result)) => result,
        Ok(None) | Err(_) => Value::Null,
    };
    let options = match options {
        Some(options) => plain_json(&env, options).map_err(super::errors::internal)?,
        None => Ok(None),
    };
    let options: ModelResultOptions = match options {
        Ok(Some(value @ Value::Object(_))) => serde_json::from_value(value).unwrap_or_default(),
        Ok(None | Some(Value::Null)) => ModelResultOptions::default(),
        _ => {
            return Err(invalid(
                "toModelResult options must be an object: { budgetChars? }.",
            ))
        }
    };
    let budget = match options.budget_chars.filter(|b| !b.is_null()) {
        None => None,
        Some(b) => Some(
            b.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| invalid(MODEL_BUDGET_INVALID))?,
        ),
    };
    to_model_result(&result, budget).map_err(thrown)
}
