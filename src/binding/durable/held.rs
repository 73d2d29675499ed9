//! The natives for calls held by the process running them (run/held.rs): that process
//! seals a note per call (a renewed hold, then the outcome) under the call's note key;
//! a process holding the run reads the notes of the calls others hold.

use super::{outcome_of, refusal, Natives};
use crate::error::CodeModeError;
use crate::run::held::{note_key, HeldNote};
use napi::bindgen_prelude::*;
use serde_json::Value;
use std::sync::Arc;

impl Natives {
    /// The note for call `call_id`, to be written as `version`: held for another lease,
    /// or (`outcome`) ended with it.
    fn seal_note(
        &self,
        call_id: &str,
        version: u64,
        outcome: Option<crate::run::ledger::Outcome>,
    ) -> std::result::Result<Vec<u8>, CodeModeError> {
        let note = HeldNote {
            until_ms: outcome
                .is_none()
                .then(|| crate::run::cell::unix_ms() + self.lease_ms),
            outcome,
        };
        let key = note_key(call_id);
        let plain = serde_json::to_vec(&note).unwrap_or_default();
        self.sealer.seal(&self.binding(&key, version), &plain)
    }

    /// Opens the note of call `call_id` of run `run_id`, read at `version`, and gives it
    /// to the run held here.
    fn absorb_note(
        &self,
        run_id: &str,
        call_id: &str,
        bytes: &[u8],
        version: u64,
    ) -> std::result::Result<(), CodeModeError> {
        let key = note_key(call_id);
        let plain = self.sealer.open(&self.binding(&key, version), bytes)?;
        let note: HeldNote = serde_json::from_slice(&plain).map_err(|error| {
            CodeModeError::new(
                crate::error::ErrorCode::RecordRefused,
                format!("held-call note does not read: {error}"),
            )
        })?;
        self.core()?.absorb_note(run_id, call_id, note);
        Ok(())
    }
}

/// Adds `heldCalls`, `turning`, `noteKey`, `sealNote`, `absorbNote` and `leaseMs` to the natives.
pub(super) fn install(env: &Env, object: &mut Object, natives: &Arc<Natives>) -> Result<()> {
    let n = natives.clone();
    object.set_named_property(
        "heldCalls",
        env.create_function_from_closure::<(), _, _>("heldCalls", move |ctx| {
            let run_id: String = ctx.get(0)?;
            Ok(n.core()
                .map(|core| core.held_by_others(&run_id))
                .unwrap_or_default())
        })?,
    )?;
    let n = natives.clone();
    object.set_named_property(
        "turning",
        env.create_function_from_closure::<(), _, _>("turning", move |ctx| {
            let run_id: String = ctx.get(0)?;
            Ok(n.core()
                .ok()
                .and_then(|core| core.local_cell(&run_id))
                .is_some_and(|cell| cell.is_running()))
        })?,
    )?;
    object.set_named_property(
        "noteKey",
        env.create_function_from_closure::<(), _, _>("noteKey", move |ctx| {
            let call_id: String = ctx.get(0)?;
            Ok(note_key(&call_id))
        })?,
    )?;
    let n = natives.clone();
    object.set_named_property(
        "sealNote",
        env.create_function_from_closure::<(), _, _>("sealNote", move |ctx| {
            let call_id: String = ctx.get(0)?;
            let version: f64 = ctx.get(1)?;
            let ok: Option<bool> = ctx.get(2)?;
            let outcome = match ok {
                Some(ok) => Some(outcome_of(ok, ctx.get(3)?)),
                None => None,
            };
            Ok(match n.seal_note(&call_id, version as u64, outcome) {
                Ok(bytes) => Either::A(Buffer::from(bytes)),
                Err(error) => Either::B(refusal(&error)),
            })
        })?,
    )?;
    let n = natives.clone();
    object.set_named_property(
        "absorbNote",
        env.create_function_from_closure::<(), _, _>("absorbNote", move |ctx| {
            let run_id: String = ctx.get(0)?;
            let call_id: String = ctx.get(1)?;
            let bytes: Uint8Array = ctx.get(2)?;
            let version: f64 = ctx.get(3)?;
            Ok(
                match n.absorb_note(&run_id, &call_id, &bytes, version as u64) {
                    Ok(()) => Value::Null,
                    Err(error) => refusal(&error),
                },
            )
        })?,
    )?;
    let lease = natives.lease_ms;
    object.set_named_property(
        "leaseMs",
        env.create_function_from_closure::<(), _, _>("leaseMs", move |_ctx| Ok(lease))?,
    )?;
    Ok(())
}
