//! A session's first cell in process mode starts its sandbox process: its clock stands
//! still from its `exec` until that process says it is ready (or is gone), so a burst of
//! new sessions loses no cell to start-up. Time queued behind other cells still counts.

use super::Cell;
use crate::sandbox::process::SandboxProcess;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// The longest a cell waits for its process to start: a process that has not started by
/// then is left to the first command's own judgement, as before there was a wait.
const START_LIMIT: Duration = Duration::from_millis(crate::limits::MAX_TIMEOUT_MS);

impl Cell {
    /// At `exec`, after the process start is asked for: stops the clock if the process the
    /// cell will use is still starting; it runs again when that process is ready.
    pub(super) fn pause_while_starting(self: &Arc<Self>) {
        let Some(sandbox) = self.owner.sandbox() else {
            return;
        };
        self.control.pause();
        self.start_paused.store(true, Ordering::SeqCst);
        let cell = Arc::downgrade(self);
        let then = Box::new(move || {
            if let Some(cell) = cell.upgrade() {
                cell.end_start_pause();
            }
        });
        if sandbox.when_booted(self.owner.limits(), then).is_err() {
            self.end_start_pause();
        }
    }

    /// On the worker about to bind a VM in `process`: waits for it to start (the clock
    /// stands still meanwhile if it was stopped at `exec`), then lets the clock run.
    pub(super) fn await_start(self: &Arc<Self>, process: &SandboxProcess) {
        if !process.is_ready() {
            let keep_waiting = || {
                process.is_usable()
                    && !self.control.is_aborted()
                    && (self.start_paused.load(Ordering::SeqCst) || !self.control.deadline_passed())
            };
            process.wait_ready(START_LIMIT, &keep_waiting);
        }
        self.end_start_pause();
    }

    /// Lets the clock run again (once) and, while the call waits, arms the deadline it
    /// now has (the one armed at `exec` found the clock stopped).
    fn end_start_pause(self: &Arc<Self>) {
        if self.start_paused.swap(false, Ordering::SeqCst) {
            self.control.resume();
            if self.is_running() {
                self.arm_deadline();
            }
        }
    }
}
