//! The session core as its runs see it: the narrow context a cell reads and the owner it
//! reports park and finish to (`run::owner`), over `SessionCore`'s own methods.

use super::core::SessionCore;
use crate::error::CodeModeError;
use crate::limits::Limits;
use crate::run::cell::Cell;
use crate::run::owner::{RunContext, RunOwner};
use crate::run::protocol::Host;
use crate::run::result::Telemetry;
use crate::sandbox::isolation::Sandbox;
use crate::source::redact::Redactor;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl RunContext for SessionCore {
    fn session_id(&self) -> &str {
        SessionCore::session_id(self)
    }

    fn limits(&self) -> &Limits {
        SessionCore::limits(self)
    }

    fn redactor(&self) -> &Arc<Redactor> {
        SessionCore::redactor(self)
    }

    fn host(&self) -> &Arc<dyn Host> {
        SessionCore::host(self)
    }

    fn prelude_config(&self) -> Arc<str> {
        SessionCore::prelude_config(self)
    }

    fn telemetry(&self) -> Telemetry {
        SessionCore::telemetry(self)
    }

    fn max_tool_calls(&self) -> Option<u64> {
        self.max_tool_calls
    }

    fn sandbox(&self) -> Option<&Sandbox> {
        self.sandbox.as_ref()
    }

    fn count_call(&self) {
        self.counters.call.fetch_add(1, Ordering::Relaxed);
    }
}

impl RunOwner<Cell> for SessionCore {
    fn park(
        &self,
        run: &Arc<Cell>,
        reason: &'static str,
        bytes: u64,
        pending: usize,
    ) -> Result<(), CodeModeError> {
        SessionCore::park(self, run, reason, bytes, pending)
    }

    fn forget(&self, run_id: &str) {
        SessionCore::forget(self, run_id)
    }

    fn ended_with_resolved(&self, run_id: &str, resolved: std::collections::HashSet<u32>) {
        super::ended_runs::global().remember(run_id, &self.scope, resolved);
    }

    fn ended_unanswered(&self, run_id: &str) {
        // A durable run's record stays in its store (another process may resume it);
        // this process just stops following it.
        if self.durable {
            super::durable::set_version(run_id, None);
        }
    }
}
