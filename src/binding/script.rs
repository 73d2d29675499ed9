//! `runCodeModeScript`: headless automation. One run under a wall clock and a tool-call
//! budget that drains to completion and never returns `waiting` (docs/contract.md,
//! Headless scripts and restart-safe cells).

use super::glue::glue_fn;
use super::session::{CodeModeSession, Promised, StartFn};
use crate::error::{CodeModeError, ErrorCode};
use crate::limits::{SCRIPT_TOOL_CALLS, SCRIPT_WALL_CLOCK_MS};
use crate::run::cell::Responder;
use crate::run::output::OutputEntry;
use crate::run::result::{early_failure, CodeModeResult, Outcome};
use crate::session::abort_watch::AbortTarget;
use crate::source::{Field, RawExecInput};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ScriptOptions {
    language: Option<String>,
    wall_clock_ms: Option<u64>,
    max_tool_calls: Option<u64>,
    #[serde(default)]
    aborted: bool,
}

/// Runs a headless (cron) script to completion under a wall clock (default 30 s, max
/// 900 s) and a tool-call budget (default 5, max 200; over it: `tool_budget_exceeded`).
#[napi(
    ts_args_type = "code: string, options: CodeModeSessionOptions & { language?: \"javascript\" | \"typescript\"; wallClockMs?: number; maxToolCalls?: number; signal?: AbortSignal }",
    ts_return_type = "Promise<CodeModeResult>"
)]
pub fn run_code_mode_script<'env>(
    env: &'env Env,
    code: String,
    options: Unknown<'env>,
) -> Result<Object<'env>> {
    let mut script = ScriptOptions::default();
    let session = CodeModeSession::build(env, options, true, |glue, config| {
        let read: Function<Unknown, String> = glue_fn(glue, "readScriptOptions")?;
        script = serde_json::from_str(&read.call(options)?).unwrap_or_default();
        config.limits.timeout_ms = SCRIPT_WALL_CLOCK_MS.resolve(script.wall_clock_ms);
        config.max_tool_calls = Some(SCRIPT_TOOL_CALLS.resolve(script.max_tool_calls));
        Ok(())
    })?;
    let core = session.core().clone();
    let Promised {
        responder: respond,
        promise,
        token,
        ..
    } = session.promised(env, None)?;
    if script.aborted {
        core.close();
        respond(early_failure(&CodeModeError::aborted(), core.telemetry()).into_value());
        session.release(env)?;
        return Ok(promise);
    }
    let input = RawExecInput {
        code: Field::Value(code),
        language: script.language.map_or(Field::Absent, Field::Value),
        ..RawExecInput::default()
    };
    let finisher = core.clone();
    let respond: Responder = Box::new(move |outcome: Outcome| {
        let outcome = settle_headless(&finisher, outcome);
        finisher.close();
        respond(outcome);
    });
    let options = Some(options);
    if core.mcp_loading() {
        // Like exec on a session: the script's `MCP` tree exists only once every server
        // has listed its tools (or failed to).
        let start: StartFn = Box::new(move |core, _, respond| core.exec(input, None, respond));
        session.defer_until_mcp(env, &options, token, None, start, respond)?;
    } else if let Some(cell) = core.exec(input, None, respond) {
        session.watch_abort(env, &options, token, AbortTarget::call(&cell))?;
    }
    session.release(env)?;
    Ok(promise)
}

/// A headless run never waits: a yield, or host work still pending when the wall clock
/// ran out, ends it as a failure (and drops the parked run). Returns the JSON to settle
/// with: that failure lists the parked run's output after its telemetry.
fn settle_headless(core: &crate::session::core::SessionCore, outcome: Outcome) -> Value {
    let CodeModeResult::Waiting {
        run_id,
        reason,
        output,
        telemetry,
        ..
    } = outcome
    else {
        return outcome.into_value();
    };
    core.cancel_run(&run_id);
    let error = if reason == "yield" {
        CodeModeError::invalid_input(
            "headless code mode scripts cannot yield_control: there is no model turn to resume them.",
        )
    } else {
        CodeModeError::new(ErrorCode::Timeout, crate::error::messages::TIMEOUT)
    };
    let mut failed = early_failure(&error, telemetry).into_value();
    match failed.as_object_mut() {
        Some(map) if !output.is_empty() => {
            map.insert("output".into(), OutputEntry::into_values(output).into());
        }
        _ => {}
    }
    failed
}
