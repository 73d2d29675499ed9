//! `durableRuns`: the natives the glue's store side (glue/durable_runs.js) calls to seal a
//! run's record, adopt a run from a record, and resolve an external call inside one. The
//! keys stay here; the store and its round trips stay in JS.

use super::glue::glue_fn;
use crate::error::{CodeModeError, ErrorCode};
use crate::run::ledger::Outcome;
use crate::run::record::RunRecord;
use crate::session::core::SessionCore;
use crate::session::durable::{set_version, version_of};
use crate::store::seal::{RecordBinding, SealKey, Sealer};
use napi::bindgen_prelude::*;
use serde_json::{json, Value};
use std::sync::{Arc, Weak};

mod held;

/// The sealer for a session's `durableRuns.keys`, as the glue normalized them (`[{ id,
/// key: [bytes] }]`); `None` without `durableRuns`.
pub(super) fn sealer_of(normalized: &str) -> std::result::Result<Option<Sealer>, String> {
    let options: Value = serde_json::from_str(normalized).map_err(|e| e.to_string())?;
    let Some(keys) = options["durableRuns"]["keys"].as_array() else {
        return Ok(None);
    };
    let keys: Vec<SealKey> = keys
        .iter()
        .map(|entry| SealKey {
            id: entry["id"].as_str().unwrap_or_default().to_string(),
            key: entry["key"]
                .as_array()
                .map(|bytes| {
                    bytes
                        .iter()
                        .map(|b| u8::try_from(b.as_u64().unwrap_or(256)).unwrap_or(0))
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect();
    Sealer::new(&keys).map(Some).map_err(|error| error.message)
}

/// How long past a turn's `timeoutMs` its claim on a run lasts: a process that died
/// mid-turn holds the run no longer than that.
const CLAIM_GRACE_MS: f64 = 2_000.0;

/// How long a claim on a run, or a hold on a call this process runs, lasts past the
/// write that made it: a process that died lets go within that.
fn lease_ms(core: &SessionCore) -> f64 {
    core.limits().timeout_ms as f64 + CLAIM_GRACE_MS
}

/// What a native answers when it is refused: `{ code, message }` for the glue to throw.
fn refusal(error: &CodeModeError) -> Value {
    json!({ "code": error.code.as_str(), "message": error.message })
}

struct Natives {
    core: Weak<SessionCore>,
    sealer: Sealer,
    scope: String,
    /// How long a claim or a hold lasts (`lease_ms`), fixed for the session's life.
    lease_ms: f64,
}

impl Natives {
    fn core(&self) -> std::result::Result<Arc<SessionCore>, CodeModeError> {
        self.core
            .upgrade()
            .ok_or_else(|| CodeModeError::invalid_input(crate::error::messages::SESSION_CLOSED))
    }

    fn binding<'a>(&'a self, run_id: &'a str, version: u64) -> RecordBinding<'a> {
        RecordBinding {
            run_id,
            version,
            scope: &self.scope,
        }
    }

    /// Run `run_id`'s record as held here now, sealed to be written as `version`.
    fn seal(
        &self,
        run_id: &str,
        version: u64,
        running: bool,
    ) -> std::result::Result<Option<Vec<u8>>, CodeModeError> {
        let core = self.core()?;
        let Some(cell) = core.local_cell(run_id) else {
            return Ok(None);
        };
        let lease_ends = crate::run::cell::unix_ms() + self.lease_ms;
        let Some(mut record) = cell.durable_record(Some(lease_ends)) else {
            return Ok(None);
        };
        if running || cell.is_running() {
            record.claimed_until_ms = Some(lease_ends);
        }
        let plain = record.to_bytes();
        let max = core.limits().max_snapshot_bytes;
        if plain.len() as u64 > max {
            return Err(CodeModeError::new(
                ErrorCode::SnapshotLimitExceeded,
                format!("code mode run record is {} bytes, over maxSnapshotBytes ({max}); the run cannot be kept durable.", plain.len()),
            ));
        }
        self.sealer
            .seal(&self.binding(run_id, version), &plain)
            .map(Some)
    }

    /// Opens a record read at `version`.
    fn open(
        &self,
        run_id: &str,
        bytes: &[u8],
        version: u64,
    ) -> std::result::Result<RunRecord, CodeModeError> {
        let plain = self.sealer.open(&self.binding(run_id, version), bytes)?;
        RunRecord::from_bytes(&plain).map_err(|why| {
            CodeModeError::new(
                ErrorCode::RecordRefused,
                format!("run record does not read: {why}"),
            )
        })
    }

    fn adopt(
        &self,
        run_id: &str,
        bytes: &[u8],
        version: u64,
    ) -> std::result::Result<(), CodeModeError> {
        let record = self.open(run_id, bytes, version)?;
        let left = record
            .claimed_until_ms
            .map(|until| until - crate::run::cell::unix_ms());
        if let Some(left) = left.filter(|left| *left > 0.0) {
            return Err(CodeModeError::invalid_input(format!(
                "{} If that process stopped, its claim ends within {} ms; wait again then.",
                crate::error::messages::RUN_RESUMED_ELSEWHERE,
                left.ceil() as u64
            )));
        }
        self.core()?.adopt(run_id, record)?;
        set_version(run_id, Some(version));
        Ok(())
    }

    /// Resolves external call `call_id` inside the record read at `version`: the record
    /// to write as `version + 1`, or `None` when an earlier resolve won.
    fn resolve_record(
        &self,
        run_id: &str,
        bytes: &[u8],
        version: u64,
        call_id: &str,
        outcome: Outcome,
    ) -> std::result::Result<Option<Vec<u8>>, CodeModeError> {
        let mut record = self.open(run_id, bytes, version)?;
        match record.resolve_external(call_id, outcome)? {
            crate::run::state::external::Resolution::AlreadyResolved => Ok(None),
            crate::run::state::external::Resolution::Resolved => self
                .sealer
                .seal(&self.binding(run_id, version + 1), &record.to_bytes())
                .map(Some),
        }
    }
}

/// How a resolve's outcome is kept in a record: the value's JSON, or the error's message.
fn outcome_of(ok: bool, text: String) -> Outcome {
    if ok {
        return Outcome { ok, payload: text };
    }
    Outcome {
        ok,
        payload: json!({ "message": text, "code": "tool_error" }).to_string(),
    }
}

/// Hands the glue its natives for `durableRuns` (`glue.installDurable(natives)`).
pub(super) fn install(
    env: &Env,
    glue: &Object,
    core: &Arc<SessionCore>,
    sealer: Sealer,
) -> Result<()> {
    let natives = Arc::new(Natives {
        core: Arc::downgrade(core),
        scope: core.scope_text(),
        sealer,
        lease_ms: lease_ms(core),
    });
    let mut object = Object::new(env)?;
    let n = natives.clone();
    object.set_named_property(
        "seal",
        env.create_function_from_closure::<(), _, _>("seal", move |ctx| {
            let run_id: String = ctx.get(0)?;
            let version: f64 = ctx.get(1)?;
            let running: bool = ctx.get(2)?;
            Ok(match n.seal(&run_id, version as u64, running) {
                Ok(Some(bytes)) => Either3::A(Buffer::from(bytes)),
                Ok(None) => Either3::B(Null),
                Err(error) => Either3::C(refusal(&error)),
            })
        })?,
    )?;
    let n = natives.clone();
    object.set_named_property(
        "adopt",
        env.create_function_from_closure::<(), _, _>("adopt", move |ctx| {
            let run_id: String = ctx.get(0)?;
            let bytes: Uint8Array = ctx.get(1)?;
            let version: f64 = ctx.get(2)?;
            Ok(match n.adopt(&run_id, &bytes, version as u64) {
                Ok(()) => Value::Null,
                Err(error) => refusal(&error),
            })
        })?,
    )?;
    let n = natives.clone();
    object.set_named_property(
        "resolveRecord",
        env.create_function_from_closure::<(), _, _>("resolveRecord", move |ctx| {
            let run_id: String = ctx.get(0)?;
            let bytes: Uint8Array = ctx.get(1)?;
            let version: f64 = ctx.get(2)?;
            let call_id: String = ctx.get(3)?;
            let outcome = outcome_of(ctx.get(4)?, ctx.get(5)?);
            Ok(
                match n.resolve_record(&run_id, &bytes, version as u64, &call_id, outcome) {
                    Ok(Some(bytes)) => Either3::A(Buffer::from(bytes)),
                    Ok(None) => Either3::B("already_resolved".to_string()),
                    Err(error) => Either3::C(refusal(&error)),
                },
            )
        })?,
    )?;
    let n = natives.clone();
    object.set_named_property(
        "resolveLocal",
        env.create_function_from_closure::<(), _, _>("resolveLocal", move |ctx| {
            let run_id: String = ctx.get(0)?;
            let call_id: String = ctx.get(1)?;
            let ok: bool = ctx.get(2)?;
            let text: String = ctx.get(3)?;
            let outcome = crate::run::state::external::resolved_outcome(ok, text);
            let answered = n
                .core()
                .and_then(|core| core.resolve_call(&run_id, &call_id, outcome));
            Ok(match answered {
                Ok(resolution) => Either::A(resolution.as_str().to_string()),
                Err(error) => Either::B(refusal(&error)),
            })
        })?,
    )?;
    let n = natives.clone();
    object.set_named_property(
        "holds",
        env.create_function_from_closure::<(), _, _>("holds", move |ctx| {
            let run_id: String = ctx.get(0)?;
            Ok(n.core()
                .ok()
                .and_then(|core| core.local_cell(&run_id))
                .is_some())
        })?,
    )?;
    let n = natives.clone();
    object.set_named_property(
        "forget",
        env.create_function_from_closure::<(), _, _>("forget", move |ctx| {
            let run_id: String = ctx.get(0)?;
            if let Ok(core) = n.core() {
                core.forget_stale(&run_id);
            }
            Ok(())
        })?,
    )?;
    held::install(env, &mut object, &natives)?;
    object.set_named_property(
        "versionOf",
        env.create_function_from_closure::<(), _, _>("versionOf", move |ctx| {
            let run_id: String = ctx.get(0)?;
            Ok(version_of(&run_id).map(|v| v as f64))
        })?,
    )?;
    object.set_named_property(
        "setVersion",
        env.create_function_from_closure::<(), _, _>("setVersion", move |ctx| {
            let run_id: String = ctx.get(0)?;
            let version: Option<f64> = ctx.get(1)?;
            set_version(&run_id, version.map(|v| v as u64));
            Ok(())
        })?,
    )?;
    glue_fn::<Object, ()>(glue, "installDurable")?.call(object)
}
