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

/// Told a deferred call's cell once it starts (the binding keeps its run id for events).
pub type OnStart = Box<dyn FnOnce(&Arc<Cell>) + Send + 'static>;

/// How an exec or wait call began: what its abort signal should stop, if anything.
pub enum CallStart {
    /// The result is already delivered.
    Answered,
    Started(Arc<Cell>),
    /// Queued until the session's MCP tools load (`SessionCore::start_deferred`).
    Deferred(Arc<AbortGate>),
}

impl From<Option<Arc<Cell>>> for CallStart {
    fn from(cell: Option<Arc<Cell>>) -> Self {
        cell.map_or(CallStart::Answered, CallStart::Started)
    }
}

struct Queued<Owner> {
    start: DeferredStart<Owner>,
    responder: Responder,
    gate: Arc<AbortGate>,
    on_start: Option<OnStart>,
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
    /// Queues `start`; the returned gate is what the call's abort signal fires. With
    /// `on_start`, [`PendingStarts::start_all`] calls it and returns the cell once it starts.
    pub fn push(
        &self,
        start: DeferredStart<Owner>,
        responder: Responder,
        on_start: Option<OnStart>,
    ) -> Arc<AbortGate> {
        let gate: Arc<AbortGate> = Arc::default();
        self.queue.lock().push_back(Queued {
            start,
            responder,
            gate: gate.clone(),
            on_start,
        });
        gate
    }

    /// Starts every queued call in call order, answering with `aborted()` those whose
    /// gate fired (or all of them, when `closed`). Returns the started cells that had an
    /// `on_start`.
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
            if let Some(on_start) = call.on_start {
                on_start(&cell);
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

    fn failure(code: ErrorCode) -> Outcome {
        early_failure(&CodeModeError::new(code, "test"), Telemetry::default())
    }

    /// A queue with a stand-in owner, whose starts record their label and answer at once
    /// without a cell, and whose responders report the error code they were answered with.
    struct Fixture {
        queue: PendingStarts<()>,
        log: mpsc::Sender<&'static str>,
        logged: mpsc::Receiver<&'static str>,
        answers: mpsc::Sender<Option<ErrorCode>>,
        answered: mpsc::Receiver<Option<ErrorCode>>,
    }

    impl Fixture {
        fn new() -> Self {
            let (log, logged) = mpsc::channel();
            let (answers, answered) = mpsc::channel();
            Fixture {
                queue: PendingStarts::default(),
                log,
                logged,
                answers,
                answered,
            }
        }

        fn push(&self, label: &'static str, on_start: Option<OnStart>) -> Arc<AbortGate> {
            let log = self.log.clone();
            let start: DeferredStart<()> = Box::new(move |_, responder| {
                let _ = log.send(label);
                responder(failure(ErrorCode::InvalidInput));
                None
            });
            let answers = self.answers.clone();
            let responder: Responder = Box::new(move |outcome| {
                let code = match outcome {
                    CodeModeResult::Failed { code, .. } => Some(code),
                    _ => None,
                };
                let _ = answers.send(code);
            });
            self.queue.push(start, responder, on_start)
        }

        fn start_all(&self, closed: bool) -> Vec<Arc<Cell>> {
            let aborted = || failure(ErrorCode::Aborted);
            self.queue.start_all(&Arc::new(()), closed, aborted)
        }

        fn started(&self) -> Vec<&'static str> {
            self.logged.try_iter().collect()
        }

        fn answered(&self) -> Vec<Option<ErrorCode>> {
            self.answered.try_iter().collect()
        }
    }

    #[test]
    fn queued_starts_wait_until_started_and_then_run_in_call_order() {
        let fixture = Fixture::new();
        fixture.push("first", None);
        fixture.push("second", None);
        assert_eq!(fixture.queue.len(), 2);
        assert!(fixture.started().is_empty());
        assert!(fixture.answered().is_empty());

        assert!(fixture.start_all(false).is_empty());
        assert_eq!(fixture.started(), ["first", "second"]);
        assert_eq!(fixture.answered(), [Some(ErrorCode::InvalidInput); 2]);
        assert_eq!(fixture.queue.len(), 0);
    }

    #[test]
    fn a_start_aborted_before_the_tools_load_is_answered_aborted_and_never_runs() {
        let fixture = Fixture::new();
        let gate = fixture.push("aborted", None);
        fixture.push("kept", None);
        gate.abort();

        fixture.start_all(false);
        assert_eq!(fixture.started(), ["kept"]);
        let answered = [Some(ErrorCode::Aborted), Some(ErrorCode::InvalidInput)];
        assert_eq!(fixture.answered(), answered);
    }

    #[test]
    fn every_start_queued_on_a_closed_session_is_answered_aborted() {
        let fixture = Fixture::new();
        fixture.push("one", None);
        fixture.push("two", None);

        fixture.start_all(true);
        assert!(fixture.started().is_empty());
        assert_eq!(fixture.answered(), [Some(ErrorCode::Aborted); 2]);
    }

    #[test]
    fn starting_twice_runs_each_queued_call_once() {
        let fixture = Fixture::new();
        fixture.push("once", None);
        fixture.start_all(false);
        fixture.start_all(false);
        assert_eq!(fixture.started(), ["once"]);
        assert_eq!(fixture.answered().len(), 1);
    }
}
