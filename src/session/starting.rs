//! How exec calls begin: at once, or, while the session's MCP tools load, queued in the
//! session's pending starts until they are.

use super::abort_watch::AbortGate;
use super::core::SessionCore;
use super::pending_starts::{CallStart, DeferredStart, OnStart};
use crate::error::CodeModeError;
use crate::run::cell::{Cell, Responder};
use crate::run::result::early_failure;
use crate::source::RawExecInput;
use std::sync::Arc;

impl SessionCore {
    /// Starts an exec, or queues it while the MCP tools load (the guest's `MCP` tree
    /// exists only once every server has listed its tools, or failed to). `on_start`:
    /// told the cell if the exec was queued and starts later.
    pub fn start_exec(
        self: &Arc<Self>,
        input: RawExecInput,
        call_id: Option<String>,
        responder: Responder,
        on_start: Option<OnStart>,
    ) -> CallStart {
        if !self.mcp_loading() {
            return self.exec(input, call_id, responder).into();
        }
        let start: DeferredStart<SessionCore> =
            Box::new(move |core, responder| core.exec(input, call_id, responder));
        CallStart::Deferred(self.defer_start(start, responder, on_start))
    }

    /// Queues `start` until the MCP tools are loaded; the returned gate is what the
    /// call's abort signal fires.
    pub fn defer_start(
        &self,
        start: DeferredStart<SessionCore>,
        responder: Responder,
        on_start: Option<OnStart>,
    ) -> Arc<AbortGate> {
        self.pending_starts.push(start, responder, on_start)
    }

    /// The MCP tools are loaded: starts the queued calls in call order (answering those
    /// aborted meanwhile, or all if the session closed); returns the cells that had an
    /// `on_start`.
    pub fn start_deferred(self: &Arc<Self>) -> Vec<Arc<Cell>> {
        let aborted = || early_failure(&CodeModeError::aborted(), self.telemetry());
        self.pending_starts
            .start_all(self, self.is_closed(), aborted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::result::{CodeModeResult, Outcome};
    use crate::session::test_core::core_loading_mcp;
    use std::sync::mpsc;

    /// Starts an exec of empty code (answered `invalid_input` without a VM).
    fn start_empty(core: &Arc<SessionCore>) -> (CallStart, mpsc::Receiver<Outcome>) {
        let (tx, rx) = mpsc::channel();
        let responder: Responder = Box::new(move |outcome| {
            let _ = tx.send(outcome);
        });
        let started = core.start_exec(RawExecInput::default(), None, responder, None);
        (started, rx)
    }

    fn answered(rx: &mpsc::Receiver<Outcome>) -> bool {
        matches!(rx.try_recv(), Ok(CodeModeResult::Failed { .. }))
    }

    #[test]
    fn an_exec_without_mcp_servers_starts_at_once() {
        let core = core_loading_mcp(&[]);
        let (started, rx) = start_empty(&core);
        assert!(matches!(started, CallStart::Answered));
        assert!(answered(&rx));
    }

    #[test]
    fn an_exec_while_the_mcp_tools_load_waits_for_them() {
        let core = core_loading_mcp(&["docs"]);
        let (started, rx) = start_empty(&core);
        assert!(matches!(started, CallStart::Deferred(_)));
        assert!(rx.try_recv().is_err());
        assert!(core.start_deferred().is_empty());
        assert!(answered(&rx));
    }
}
