//! Headless scripts (`runCodeModeScript`): one run under a wall clock and a tool-call
//! budget that drains to completion, never settles `waiting`, and closes its session when
//! it settles (docs/contract.md, Headless scripts and restart-safe cells).

use super::core::{SessionConfig, SessionCore};
use super::pending_starts::CallStart;
use crate::error::{messages, CodeModeError, ErrorCode};
use crate::limits::{SCRIPT_TOOL_CALLS, SCRIPT_WALL_CLOCK_MS};
use crate::run::cell::Responder;
use crate::run::output::OutputEntry;
use crate::run::result::{early_failure, CodeModeResult, Delivery, Outcome};
use crate::source::{Field, RawExecInput};
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// A script's own options, as the glue's `readScriptOptions` reads them.
#[derive(Deserialize, Default, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ScriptOptions {
    pub language: Option<String>,
    pub wall_clock_ms: Option<u64>,
    pub max_tool_calls: Option<u64>,
    /// The script's signal had already fired.
    #[serde(default)]
    pub aborted: bool,
}

impl ScriptOptions {
    /// Unreadable options count as none (the glue only hands over what it validated).
    pub fn from_json(text: &str) -> Self {
        serde_json::from_str(text).unwrap_or_default()
    }

    /// The script's wall clock replaces the exec timeout; its tool budget is clamped.
    pub fn apply(&self, config: &mut SessionConfig) {
        config.limits.timeout_ms = SCRIPT_WALL_CLOCK_MS.resolve(self.wall_clock_ms);
        config.max_tool_calls = Some(SCRIPT_TOOL_CALLS.resolve(self.max_tool_calls));
    }
}

/// Starts `code` as the session's one run (queued while the MCP tools load); `deliver`
/// gets the result JSON once, after which the session is closed.
pub fn start(
    core: &Arc<SessionCore>,
    code: String,
    options: ScriptOptions,
    deliver: Delivery,
) -> CallStart {
    if options.aborted {
        core.close();
        deliver(early_failure(&CodeModeError::aborted(), core.telemetry()).into_value());
        return CallStart::Answered;
    }
    let input = RawExecInput {
        code: Field::Value(code),
        language: options.language.map_or(Field::Absent, Field::Value),
        ..RawExecInput::default()
    };
    let finisher = core.clone();
    let respond: Responder = Box::new(move |outcome: Outcome| {
        let outcome = settle_headless(&finisher, outcome);
        finisher.close();
        deliver(outcome);
    });
    core.start_exec(input, None, respond, None)
}

/// A headless run never waits: a yield, or host work still pending when the wall clock
/// ran out, ends it as a failure (and drops the parked run). Returns the JSON to settle
/// with: that failure lists the parked run's output after its telemetry.
fn settle_headless(core: &SessionCore, outcome: Outcome) -> Value {
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
        // A script's wall clock is its `wallClockMs`, applied as the session's timeout.
        let limit = core.limits.timeout_ms;
        CodeModeError::new(
            ErrorCode::Timeout,
            messages::timeout_of("wallClockMs", limit),
        )
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

#[cfg(test)]
mod tests;
