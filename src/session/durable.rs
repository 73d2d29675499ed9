//! A session's durable runs (`durableRuns`): a new run's determinism, a run's record, and
//! a run adopted from its record, which replays at its next `wait`.

use super::core::SessionCore;
use crate::error::{messages, CodeModeError, ErrorCode};
use crate::run::cell::{Cell, CellSource, DurableStart};
use crate::run::record::{RecordedLimits, RunRecord};
use std::collections::HashMap;
use std::sync::Arc;

impl SessionCore {
    pub fn is_durable(&self) -> bool {
        self.durable
    }

    /// The record of durable run `run_id` of this session as of now.
    pub fn record(&self, run_id: &str) -> Option<RunRecord> {
        let cell = self.cells.lock().get(run_id).cloned()?;
        cell.durable_record(None)
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
        if let Some(why) = self.missing_tool(&record.ledger) {
            return Err(CodeModeError::new(
                ErrorCode::ReplayDivergence,
                messages::replay_divergence(&why),
            ));
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

impl SessionCore {
    /// The first recorded call whose tool the live catalog no longer has: its replay
    /// could not issue that call again, so the run is refused before anything runs.
    fn missing_tool(&self, ledger: &crate::run::ledger::Ledger) -> Option<String> {
        let (position, call) = ledger
            .calls
            .iter()
            .enumerate()
            .find(|(_, call)| !self.knows_callable(&call.callable))?;
        Some(format!(
            "the run's call #{} was to {}, which the catalog no longer has",
            position + 1,
            call.callable
        ))
    }

    /// Whether `callable` (a ledger's name for a tool or host surface) can be called.
    fn knows_callable(&self, callable: &str) -> bool {
        if self.catalog.read().by_callable_name(callable).is_some()
            || self.surfaces.has_name(callable)
        {
            return true;
        }
        let Some((server, member)) = callable
            .strip_prefix("MCP.")
            .and_then(|rest| rest.split_once('.'))
        else {
            return false;
        };
        let mcp = self.mcp.read();
        // A server still loading cannot be judged yet; the call itself will tell.
        !mcp.loading.is_empty()
            || mcp
                .server(server)
                .is_ok_and(|s| s.tool(member).is_ok() || s.op(member).is_ok())
    }
}

/// The store version each durable run held in this process was last written or read at,
/// by run id: any session of the run's scope continues from it. An entry leaves when its
/// run ends here.
static VERSIONS: parking_lot::Mutex<Option<HashMap<String, u64>>> = parking_lot::Mutex::new(None);

/// The version run `run_id` was last written or read at here.
pub fn version_of(run_id: &str) -> Option<u64> {
    VERSIONS.lock().as_ref()?.get(run_id).copied()
}

/// Run `run_id` is at store version `version` (`None`: this process no longer follows it).
pub fn set_version(run_id: &str, version: Option<u64>) {
    let mut versions = VERSIONS.lock();
    let map = versions.get_or_insert_with(HashMap::new);
    match version {
        Some(version) => {
            map.insert(run_id.to_string(), version);
        }
        None => {
            map.remove(run_id);
        }
    }
}

impl SessionCore {
    /// The cell of run `run_id` in this process, if this session or a parked run of its
    /// scope holds it.
    pub fn local_cell(&self, run_id: &str) -> Option<Arc<Cell>> {
        let own = self.cells.lock().get(run_id).cloned();
        own.or_else(|| super::store::global().find(run_id, &self.scope))
    }

    /// Drops this process's copy of run `run_id`: another process moved it on, so the
    /// copy is stale. Its calls still out are not cancelled (the run goes on elsewhere).
    pub fn forget_stale(&self, run_id: &str) {
        if let Some(cell) = self.local_cell(run_id) {
            cell.finish(Err(CodeModeError::invalid_input(messages::RUN_MOVED)));
        }
        super::store::global().remove(run_id);
        self.cells.lock().remove(run_id);
        set_version(run_id, None);
    }

    /// The calls of run `run_id` held here that another process runs (by call id).
    pub fn held_by_others(&self, run_id: &str) -> Vec<String> {
        self.local_cell(run_id)
            .map(|cell| cell.held_by_others())
            .unwrap_or_default()
    }

    /// Takes in the note of call `call_id` of run `run_id` (run/held.rs).
    pub fn absorb_note(&self, run_id: &str, call_id: &str, note: crate::run::held::HeldNote) {
        if let Some(cell) = self.local_cell(run_id) {
            cell.absorb_note(call_id, note);
        }
    }

    /// The scope a record is sealed under: a record opens only for sessions of it.
    pub fn scope_text(&self) -> String {
        serde_json::json!([
            self.scope.session_id,
            self.scope.session_key,
            self.scope.agent_id,
            self.scope.agent_run_id
        ])
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_tool_unknown_to_the_catalog_is_missing_and_a_loading_mcp_server_is_not_judged() {
        let core = super::super::test_core::core_loading_mcp(&["docs"]);
        assert!(!core.knows_callable("forecast"));
        assert!(!core.knows_callable("Repo.issues.list"));
        assert!(
            core.knows_callable("MCP.docs.search"),
            "its server is still loading"
        );
        core.close();
    }
}
