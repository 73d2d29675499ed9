//! Durable-run helpers: what is left of a run once its session is closed (its record), and
//! an approval answered inside that record, as `resolveCall` does when no process holds it.

use codemode_native::run::ledger::Outcome;
use codemode_native::run::record::RunRecord;
use codemode_native::run::state::external::Resolution;
use codemode_native::session::core::SessionCore;
use serde_json::Value;
use std::sync::Arc;

/// The run's record, then its session closed: all that is left of the run is the record.
pub fn record_and_close(session: &Arc<SessionCore>, run: &str) -> RunRecord {
    let record = session.record(run).expect("a durable run has a record");
    let bytes = record.to_bytes();
    session.close();
    RunRecord::from_bytes(&bytes).expect("a record reads back")
}

/// The id of the first call a parked result waits for.
pub fn first_pending(parked: &Value) -> String {
    parked["pendingToolCalls"][0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Resolves external call `call_id` inside `record` with the JSON `payload`: the first
/// resolve of it.
pub fn approve(record: &mut RunRecord, call_id: &str, payload: &str) {
    let outcome = Outcome {
        ok: true,
        payload: payload.into(),
    };
    assert_eq!(
        record.resolve_external(call_id, outcome),
        Ok(Resolution::Resolved)
    );
}
