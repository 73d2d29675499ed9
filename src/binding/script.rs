//! `runCodeModeScript`: reads the script's options through the glue and hands the run to
//! `session::headless`.

use super::glue::glue_fn;
use super::session::{CallKind, CodeModeSession, Promised};
use crate::session::abort_watch::AbortTarget;
use crate::session::headless::{self, ScriptOptions};
use crate::session::pending_starts::CallStart;
use napi::bindgen_prelude::*;
use napi_derive::napi;

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
        script = ScriptOptions::from_json(&read.call(options)?);
        script.apply(config);
        Ok(())
    })?;
    let Promised {
        responder: deliver,
        promise,
        token,
        ..
    } = session.promised(env, None, CallKind::Script)?;
    let options = Some(options);
    match headless::start(session.core(), code, script, deliver) {
        CallStart::Answered => {}
        CallStart::Started(cell) => {
            // Its tool calls go under the script's span, if it has one.
            session.bind_context(env, token, &cell.run_id)?;
            session.watch_abort(env, &options, token, AbortTarget::call(&cell))?;
        }
        CallStart::Deferred(gate) => {
            session.watch_abort(env, &options, token, AbortTarget::Gate(gate))?;
            session.start_deferred_after_mcp(env, None)?;
        }
    }
    session.release(env)?;
    Ok(promise)
}
