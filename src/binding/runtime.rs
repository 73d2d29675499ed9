//! Process-wide functions: runtime configuration and the TypeScript transform.

use super::errors::{invalid, Code};
use super::options::{check_isolation, check_sandbox_group};
use crate::error::messages;
use crate::limits::MAX_SUSPENDED_RUNS;
use crate::nearest::unknown_key_message;
use crate::run::cell;
use crate::runtime::{pool, timer};
use crate::sandbox::capacity as sandbox_pool;
use crate::sandbox::isolation::{self, Isolation};
use crate::session::store;
use crate::source::program::SourceError;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::{json, Value};

/// Every key `configureCodeModeRuntime` reads.
const RUNTIME_KEYS: [&str; 7] = [
    "workerThreads",
    "maxSuspendedRuns",
    "maxStuckWorkers",
    "isolation",
    "sandboxGroup",
    "maxSandboxProcesses",
    "sandboxIdleMs",
];

/// Process-wide settings; call before the first session runs a cell. Misuse (an unknown
/// key, a value out of range) throws with `code: "invalid_input"`.
#[napi(
    ts_args_type = "options: CodeModeRuntimeOptions",
    ts_return_type = "void"
)]
pub fn configure_code_mode_runtime(options: Value) -> Result<(), Code> {
    let Some(keys) = options.as_object() else {
        return Err(invalid(
            "configureCodeModeRuntime takes an options object: { workerThreads?, maxSuspendedRuns?, maxStuckWorkers?, isolation?, sandboxGroup?, maxSandboxProcesses?, sandboxIdleMs? }",
        ));
    };
    if let Some(key) = keys.keys().find(|k| !RUNTIME_KEYS.contains(&k.as_str())) {
        return Err(invalid(unknown_key_message("", key, &RUNTIME_KEYS)));
    }
    if let Some(isolation) = options.get("isolation").filter(|v| !v.is_null()) {
        check_isolation(isolation, "isolation").map_err(invalid)?;
    }
    let sandbox = sandbox_settings(&options)?;
    if let Some(threads) = options.get("workerThreads").filter(|v| !v.is_null()) {
        let threads = threads
            .as_u64()
            .ok_or_else(|| invalid("workerThreads must be a positive integer"))?;
        pool::configure(usize::try_from(threads).unwrap_or(usize::MAX)).map_err(invalid)?;
    }
    if let Some(cap) = options.get("maxStuckWorkers").filter(|v| !v.is_null()) {
        let cap = cap
            .as_u64()
            .ok_or_else(|| invalid("maxStuckWorkers must be an integer from 0 to 1024"))?;
        pool::configure_stuck_cap(usize::try_from(cap).unwrap_or(usize::MAX)).map_err(invalid)?;
    }
    if let Some(max) = options.get("maxSuspendedRuns").filter(|v| !v.is_null()) {
        let max = max
            .as_u64()
            .filter(|m| MAX_SUSPENDED_RUNS.contains(m))
            .ok_or_else(|| {
                invalid(format!(
                    "maxSuspendedRuns must be an integer from {} to {}",
                    MAX_SUSPENDED_RUNS.start(),
                    MAX_SUSPENDED_RUNS.end()
                ))
            })?;
        store::global().set_max(usize::try_from(max).unwrap_or(usize::MAX));
    }
    if let Some(isolation) = options.get("isolation").filter(|v| !v.is_null()) {
        let isolation = isolation
            .as_str()
            .and_then(Isolation::parse)
            .ok_or_else(|| invalid("isolation must be \"process\" or \"thread\""))?;
        if isolation == Isolation::Process && !Isolation::process_supported() {
            return Err(invalid(
                "isolation \"process\" is not supported on this platform; use \"thread\"",
            ));
        }
        isolation::configure_default(isolation);
    }
    sandbox_pool::configure(|settings| {
        if let Some(group) = sandbox.group {
            settings.default_group = group;
        }
        if let Some(max) = sandbox.max_processes {
            settings.max_processes = Some(max);
        }
        if let Some(idle) = sandbox.idle {
            settings.idle = idle;
        }
    });
    Ok(())
}

/// The sandbox pool's settings in `options`, checked before anything is applied.
struct SandboxSettings {
    /// `Some(None)`: `sandboxGroup: null` clears the default group.
    group: Option<Option<String>>,
    max_processes: Option<usize>,
    idle: Option<std::time::Duration>,
}

fn sandbox_settings(options: &Value) -> Result<SandboxSettings, Code> {
    let group = match options.get("sandboxGroup") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(group) => Some(Some(
            check_sandbox_group(group, "sandboxGroup").map_err(invalid)?,
        )),
    };
    let max_processes = match options.get("maxSandboxProcesses").filter(|v| !v.is_null()) {
        None => None,
        Some(max) => Some(
            max.as_u64()
                .filter(|m| (1..=sandbox_pool::MAX_CONFIGURABLE as u64).contains(m))
                .and_then(|m| usize::try_from(m).ok())
                .ok_or_else(|| {
                    invalid(format!(
                        "maxSandboxProcesses must be an integer from 1 to {}",
                        sandbox_pool::MAX_CONFIGURABLE
                    ))
                })?,
        ),
    };
    let idle = match options.get("sandboxIdleMs").filter(|v| !v.is_null()) {
        None => None,
        Some(ms) => Some(std::time::Duration::from_millis(
            ms.as_u64()
                .filter(|ms| *ms <= MAX_SANDBOX_IDLE_MS)
                .ok_or_else(|| {
                    invalid(format!(
                        "sandboxIdleMs must be an integer from 0 to {MAX_SANDBOX_IDLE_MS}"
                    ))
                })?,
        )),
    };
    Ok(SandboxSettings {
        group,
        max_processes,
        idle,
    })
}

/// `sandboxIdleMs` at most: an hour.
const MAX_SANDBOX_IDLE_MS: u64 = 3_600_000;

/// Extension: process-wide counters for leak and health checks. `parkedRuns` are runs in
/// the suspended-run store (parked or resuming), `liveCells` runs not yet dropped (running,
/// idle or parked), `liveVms` QuickJS VMs alive (including a few blank prewarmed ones),
/// `pendingTimers` deadline, expiry and guest timers not yet fired, `workers` pool threads
/// running (0 before the first cell), `stuckWorkers` those of them still inside a built-in
/// whose cell the watchdog already answered (each has a replacement in `workers`),
/// `sandboxProcesses` sandbox processes alive (`isolation: "process"`), `maxSandboxProcesses`
/// the cap on them in force, `isolation` the default of sessions that do not choose.
#[napi(
    js_name = "codeModeRuntimeStats",
    ts_return_type = "{ parkedRuns: number; liveCells: number; liveVms: number; pendingTimers: number; workers: number; stuckWorkers: number; sandboxProcesses: number; maxSandboxProcesses: number; isolation: \"process\" | \"thread\" }"
)]
pub fn code_mode_runtime_stats() -> Value {
    json!({
        "parkedRuns": store::global().len(),
        "liveCells": cell::LIVE_CELLS.load(std::sync::atomic::Ordering::Relaxed),
        "liveVms": crate::guest::vm::LIVE_VMS.load(std::sync::atomic::Ordering::Relaxed),
        "pendingTimers": timer::pending(),
        "workers": pool::live_workers(),
        "stuckWorkers": pool::stuck_workers(),
        "sandboxProcesses": crate::sandbox::process::LIVE_PROCESSES
            .load(std::sync::atomic::Ordering::Relaxed),
        "maxSandboxProcesses": sandbox_pool::max_processes(),
        "isolation": isolation::addon_default().as_str(),
    })
}

/// Strips TypeScript types from a cell (oxc); errors are returned as data.
#[napi(
    js_name = "transformTypeScript",
    ts_return_type = "{ code: string } | { error: string; line: number; column: number }"
)]
pub fn transform_typescript(code: String) -> Value {
    use crate::runtime::bounded::{self, Unfinished};
    let transformed = bounded::run(bounded::BUDGET, move || {
        crate::source::typescript::transform_typescript(&code)
    });
    let transformed = match transformed {
        Ok(transformed) => transformed,
        Err(unfinished) => {
            let error = match unfinished {
                Unfinished::Overran => messages::parse_overran(bounded::BUDGET),
                Unfinished::Stopped => messages::SOURCE_TOO_COMPLEX.to_owned(),
                Unfinished::Unavailable => messages::PARSE_UNAVAILABLE.to_owned(),
            };
            return json!({ "error": error, "line": 0, "column": 0 });
        }
    };
    match transformed {
        Ok(js) => json!({ "code": js }),
        Err(SourceError::Syntax {
            line,
            column,
            message,
        }) => {
            json!({ "error": message, "line": line, "column": column })
        }
        Err(other) => {
            json!({ "error": other.message(crate::source::Language::TypeScript), "line": 0, "column": 0 })
        }
    }
}
