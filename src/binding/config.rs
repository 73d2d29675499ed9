//! Gateway helpers (docs/contract.md, Config and activation): thin conversions around
//! `crate::config`.

use super::errors::{internal, invalid, plain_json, thrown, Code};
use crate::config::{self, ResolveContext};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

/// Resolves code-mode activation and limits for one run: precedence agent model row
/// (boolean) > agent `tools.codeMode` > `agents.defaults` model row (boolean) > global
/// `tools.codeMode`; `"auto"` engages only when `ctx.compat.codeMode === "preferred"`;
/// limits merge global then agent and are clamped. `ctx.toolCount: 0` (a tool-free
/// run) never engages. Throws (`code: "invalid_input"`) only when `config` is not plain
/// JSON.
#[napi(
    ts_args_type = "config: unknown, ctx?: { agentId?: string; model?: string; compat?: { codeMode?: \"preferred\" | \"capable\" }; toolCount?: number }",
    ts_return_type = "{ enabled: boolean | \"auto\"; engaged: boolean; limits: Required<CodeModeLimits> }"
)]
pub fn resolve_code_mode_config(
    env: Env,
    config: Unknown,
    ctx: Option<Unknown>,
) -> Result<Value, Code> {
    let config = plain_json(&env, config)
        .map_err(internal)?
        .map_err(|e| invalid(format!("config must be plain JSON: {e}")))?;
    let ctx = match ctx {
        Some(ctx) => plain_json(&env, ctx)
            .map_err(internal)?
            .map_err(|e| invalid(format!("ctx must be plain JSON: {e}")))?,
        None => None,
    };
    let ctx = ResolveContext::from_json(ctx.as_ref());
    Ok(config::resolve_code_mode_config(config.as_ref(), &ctx).to_json())
}

/// Human-readable problems of the code-mode parts of a gateway config, each
/// `"<path>: <problem>"`; `[]` when it is fine.
#[napi(ts_args_type = "config: unknown", ts_return_type = "string[]")]
pub fn validate_code_mode_config(env: Env, config: Unknown) -> Result<Vec<String>, Code> {
    match plain_json(&env, config).map_err(internal)? {
        Ok(config) => Ok(config::validate_code_mode_config(config.as_ref())),
        Err(e) => Ok(vec![format!("config: must be plain JSON ({e}).")]),
    }
}

/// Fail-closed check of the final model payload once code mode engaged: exactly one
/// `exec`, one `wait`, and only the given direct-only tools. Throws an Error with
/// `code: "invalid_input"` naming what is wrong.
#[napi(
    ts_args_type = "toolNames: string[], directOnly?: string[]",
    ts_return_type = "void"
)]
pub fn assert_code_mode_payload(
    env: Env,
    tool_names: Unknown,
    direct_only: Option<Unknown>,
) -> Result<(), Code> {
    let names = string_list(&env, tool_names, "toolNames")?;
    let direct = match direct_only {
        Some(list) if !matches!(list.get_type(), Ok(ValueType::Undefined | ValueType::Null)) => {
            string_list(&env, list, "directOnly")?
        }
        _ => Vec::new(),
    };
    config::assert_code_mode_payload(&names, &direct).map_err(thrown)
}

fn string_list(env: &Env, value: Unknown, what: &str) -> Result<Vec<String>, Code> {
    let message = || invalid(format!("{what} must be an array of strings."));
    let json = plain_json(env, value)
        .map_err(internal)?
        .map_err(|_| message())?;
    let Some(Value::Array(items)) = json else {
        return Err(message());
    };
    items
        .into_iter()
        .map(|item| match item {
            Value::String(s) => Ok(s),
            _ => Err(message()),
        })
        .collect()
}
