//! `resolveCall`: finds the run an external call belongs to, in this session's scope, and
//! hands it the outcome. The run may be parked, resuming, or still in its first exec.

use super::core::SessionCore;
use super::store;
use crate::error::{messages, CodeModeError};
use crate::run::protocol::HostFailure;
use crate::run::state::external::Resolution;

impl SessionCore {
    /// Records `outcome` for external call `call_id` of run `run_id`. A run that is
    /// unknown, over, expired, or of another scope (sessionId, sessionKey, agentId,
    /// agentRunId) answers as `wait` does for an unknown run.
    pub fn resolve_call(
        &self,
        run_id: &str,
        call_id: &str,
        outcome: Result<String, HostFailure>,
    ) -> Result<Resolution, CodeModeError> {
        if self.is_closed() {
            return Err(CodeModeError::invalid_input(messages::SESSION_CLOSED));
        }
        // This session's own runs first: one still in its first exec is in no store yet.
        let own = self.cells.lock().get(run_id).cloned();
        let cell = own.or_else(|| store::global().find(run_id, &self.scope));
        let Some(cell) = cell else {
            // An ended run's resolved calls stay resolved for every caller of its scope.
            if super::ended_runs::global().was_resolved(run_id, &self.scope, call_id) {
                return Ok(Resolution::AlreadyResolved);
            }
            return Err(CodeModeError::invalid_input(messages::RUN_UNAVAILABLE));
        };
        cell.resolve_external(call_id, outcome)
    }
}
