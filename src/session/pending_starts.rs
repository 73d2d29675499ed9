//! Exec and wait calls made while the session's MCP tools load: queued in call order and
//! started once the tools are loaded. A call whose abort signal fired, or whose session
//! closed, before then is answered `aborted` and never starts.

use super::abort_watch::AbortGate;
use crate::run::cell::{Cell, Responder};
use crate::run::result::Outcome;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::sync::Arc;

/// Starts a deferred call's cell (exec or wait) in `Owner` (the session core) with its
/// responder; `None` when the call was answered without one.
pub type DeferredStart<Owner> =
    Box<dyn FnOnce(&Arc<Owner>, Responder) -> Option<Arc<Cell>> + Send + 'static>;

struct Queued<Owner> {
    start: DeferredStart<Owner>,
    responder: Responder,
    gate: Arc<AbortGate>,
    announce: bool,
}

/// A session's calls waiting for its MCP tools.
pub struct PendingStarts<Owner> {
    queue: Mutex<VecDeque<Queued<Owner>>>,
}

impl<Owner> Default for PendingStarts<Owner> {
    fn default() -> Self {
        PendingStarts {
            queue: Mutex::default(),
        }
    }
}

impl<Owner> PendingStarts<Owner> {
    /// Queues `start`; the returned gate is what the call's abort signal fires.
    /// `announce`: [`PendingStarts::start_all`] returns the cell once it starts.
    pub fn push(
        &self,
        start: DeferredStart<Owner>,
        responder: Responder,
        announce: bool,
    ) -> Arc<AbortGate> {
        let gate: Arc<AbortGate> = Arc::default();
        self.queue.lock().push_back(Queued {
            start,
            responder,
            gate: gate.clone(),
            announce,
        });
        gate
    }

    /// Starts every queued call in call order, answering with `aborted()` those whose
    /// gate fired (or all of them, when `closed`). Returns the started cells to announce.
    pub fn start_all(
        &self,
        owner: &Arc<Owner>,
        closed: bool,
        aborted: impl Fn() -> Outcome,
    ) -> Vec<Arc<Cell>> {
        let queued = std::mem::take(&mut *self.queue.lock());
        let mut announced = Vec::new();
        for call in queued {
            if closed || call.gate.is_aborted() {
                (call.responder)(aborted());
                continue;
            }
            let Some(cell) = (call.start)(owner, call.responder) else {
                continue;
            };
            call.gate.attach(&cell);
            if call.announce {
                announced.push(cell);
            }
        }
        announced
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.queue.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{CodeModeError, ErrorCode};
    use crate::run::result::{early_failure, CodeModeResult, Telemetry};
    use std::sync::mpsc;

    /// The queue with a stand-in owner (the starts below need none).
    type Queue = PendingStarts<()>;

    /// A responder that sends its outcome to `tx`.
    fn sending(tx: &mpsc::Sender<Outcome>) -> Responder {
        let tx = tx.clone();
        Box::new(move |outcome| {
            let _ = tx.send(outcome);
        })
    }

    fn failure(code: ErrorCode) -> Outcome {
        let error = CodeModeError::new(code, "test");
        early_failure(&error, Telemetry::default())
    }

    /// A start that records `label` and answers at once without a cell.
    fn recording(label: &'static str, log: &mpsc::Sender<&'static str>) -> DeferredStart<()> {
        let log = log.clone();
        Box::new(move |_, responder| {
            let _ = log.send(label);
            responder(failure(ErrorCode::InvalidInput));
            None
        })
    }

    fn start_all(queue: &Queue, closed: bool) -> Vec<Arc<Cell>> {
        queue.start_all(&Arc::new(()), closed, || failure(ErrorCode::Aborted))
    }

    fn codes(rx: &mpsc::Receiver<Outcome>) -> Vec<Option<ErrorCode>> {
        rx.try_iter()
            .map(|outcome| match outcome {
                CodeModeResult::Failed { code, .. } => Some(code),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn queued_starts_wait_until_started_and_then_run_in_call_order() {
        let queue = Queue::default();
        let (log, logged) = mpsc::channel();
        let (tx, rx) = mpsc::channel();
        queue.push(recording("first", &log), sending(&tx), true);
        queue.push(recording("second", &log), sending(&tx), false);
        assert_eq!(queue.len(), 2);
        assert!(logged.try_recv().is_err());
        assert!(rx.try_recv().is_err());

        assert!(start_all(&queue, false).is_empty());
        assert_eq!(logged.try_iter().collect::<Vec<_>>(), ["first", "second"]);
        assert_eq!(codes(&rx), [Some(ErrorCode::InvalidInput); 2]);
        assert_eq!(queue.len(), 0);
    }

    #[test]
    fn a_start_aborted_before_the_tools_load_is_answered_aborted_and_never_runs() {
        let queue = Queue::default();
        let (log, logged) = mpsc::channel();
        let (tx, rx) = mpsc::channel();
        let gate = queue.push(recording("aborted", &log), sending(&tx), true);
        queue.push(recording("kept", &log), sending(&tx), true);
        gate.abort();

        start_all(&queue, false);
        assert_eq!(logged.try_iter().collect::<Vec<_>>(), ["kept"]);
        assert_eq!(
            codes(&rx),
            [Some(ErrorCode::Aborted), Some(ErrorCode::InvalidInput)]
        );
    }

    #[test]
    fn every_start_queued_on_a_closed_session_is_answered_aborted() {
        let queue = Queue::default();
        let (log, logged) = mpsc::channel();
        let (tx, rx) = mpsc::channel();
        queue.push(recording("one", &log), sending(&tx), false);
        queue.push(recording("two", &log), sending(&tx), false);

        start_all(&queue, true);
        assert!(logged.try_recv().is_err());
        assert_eq!(codes(&rx), [Some(ErrorCode::Aborted); 2]);
    }

    #[test]
    fn starting_twice_runs_each_queued_call_once() {
        let queue = Queue::default();
        let (log, logged) = mpsc::channel();
        let (tx, rx) = mpsc::channel();
        queue.push(recording("once", &log), sending(&tx), false);
        start_all(&queue, false);
        start_all(&queue, false);
        assert_eq!(logged.try_iter().count(), 1);
        assert_eq!(rx.try_iter().count(), 1);
    }
}
