//! What a durable run keeps in its store, before sealing: its source, what its
//! determinism needs, the limits it ran under, and its ledger. A replay under other
//! limits would not be the same run, so they are part of the record.

use super::ledger::{Journal, Ledger, Outcome};
use super::state::external::Resolution;
use crate::error::{messages, CodeModeError};
use crate::guest::vm::Determinism;
use crate::limits::Limits;
use crate::source::Language;
use serde::{Deserialize, Serialize};

/// The record's layout; a reader refuses any other.
pub const RECORD_FORMAT: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub format: u32,
    pub code: String,
    pub language: Language,
    pub restart_safe: bool,
    pub determinism: Determinism,
    pub limits: RecordedLimits,
    pub ledger: Ledger,
    /// While a process runs a turn of the run: until when (Unix ms) it may, so another
    /// process refuses to take the run over meanwhile. `None` while the run is parked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_until_ms: Option<f64>,
}

/// The limits that change what a program does or sees.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedLimits {
    pub memory_limit_bytes: u64,
    pub max_output_bytes: u64,
    pub max_tool_input_bytes: u64,
    pub max_pending_tool_calls: u32,
}

impl RecordedLimits {
    pub fn of(limits: &Limits) -> RecordedLimits {
        RecordedLimits {
            memory_limit_bytes: limits.memory_limit_bytes,
            max_output_bytes: limits.max_output_bytes,
            max_tool_input_bytes: limits.max_tool_input_bytes,
            max_pending_tool_calls: limits.max_pending_tool_calls,
        }
    }
}

impl RunRecord {
    /// `resolveCall` on a run known only by its record: the outcome of external call
    /// `call_id` is kept for the replay to deliver, once.
    pub fn resolve_external(
        &mut self,
        call_id: &str,
        outcome: Outcome,
    ) -> Result<Resolution, CodeModeError> {
        let mut journal = Journal::replay(std::mem::take(&mut self.ledger), 0.0);
        let found = journal.bridge_id_of(call_id);
        let answer = match found {
            None => Err(CodeModeError::invalid_input(messages::call_unknown(
                call_id,
            ))),
            Some(bridge_id) if journal.resolve_external(bridge_id, outcome) => {
                Ok(Resolution::Resolved)
            }
            Some(bridge_id) => {
                let call = journal
                    .ledger()
                    .calls
                    .iter()
                    .find(|c| c.bridge_id == bridge_id);
                if call.is_some_and(|c| c.external.is_some()) {
                    Ok(Resolution::AlreadyResolved)
                } else {
                    Err(CodeModeError::invalid_input(messages::call_not_external(
                        call_id,
                    )))
                }
            }
        };
        self.ledger = journal.into_ledger();
        answer
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// A record's bytes after they opened: refused if they are not a record of this format.
    pub fn from_bytes(bytes: &[u8]) -> Result<RunRecord, String> {
        let record: RunRecord = serde_json::from_slice(bytes)
            .map_err(|error| format!("run record does not parse: {error}"))?;
        if record.format != RECORD_FORMAT {
            return Err(format!(
                "run record has format {}; this version reads format {RECORD_FORMAT}",
                record.format
            ));
        }
        Ok(record)
    }
}
