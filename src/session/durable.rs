//! A session's durable runs (`durableRuns`): a new run's determinism, a run's record, and
//! a run adopted from its record, which replays at its next `wait`.

use super::core::SessionCore;
use crate::error::{messages, CodeModeError, ErrorCode};
use crate::run::cell::{Cell, CellSource, DurableStart};
use crate::run::record::{RecordedLimits, RunRecord};
use std::sync::Arc;

impl SessionCore {
    pub fn is_durable(&self) -> bool {
        self.durable
    }

    /// The record of durable run `run_id` of this session as of now.
    pub fn record(&self, run_id: &str) -> Option<RunRecord> {
        let cell = self.cells.lock().get(run_id).cloned()?;
        cell.durable_record()
    }

    /// Whether this session holds run `run_id` in memory (parked or running).
    pub fn holds(&self, run_id: &str) -> bool {
        self.cells.lock().contains_key(run_id)
    }

    /// Takes run `run_id` from its record: a fresh cell, parked, that replays the record
    /// in a new VM at its next `wait` and then goes on live. A record made under other
    /// limits is refused: the replay would not be the same run.
    pub fn adopt(self: &Arc<Self>, run_id: &str, record: RunRecord) -> Result<(), CodeModeError> {
        if !self.durable {
            return Err(CodeModeError::invalid_input(
                "code mode session has no durableRuns: it cannot take a run from a record.",
            ));
        }
        if record.limits != RecordedLimits::of(&self.limits) {
            return Err(CodeModeError::new(
                ErrorCode::ReplayDivergence,
                messages::replay_divergence(
                    "this session's limits are not the ones the run was recorded under",
                ),
            ));
        }
        if self.holds(run_id) {
            return Ok(());
        }
        let pending = record.ledger.calls.len();
        let cell = Cell::new(
            self.clone(),
            run_id.to_string(),
            CellSource {
                code: record.code,
                language: record.language,
                restart_safe: record.restart_safe,
                durable: Some(DurableStart {
                    determinism: record.determinism,
                    ledger: record.ledger,
                }),
            },
            None,
        );
        self.cells.lock().insert(run_id.to_string(), cell.clone());
        if let Err(error) = self.park(&cell, "pending_tools", 0, pending) {
            self.cells.lock().remove(run_id);
            return Err(error);
        }
        Ok(())
    }
}
