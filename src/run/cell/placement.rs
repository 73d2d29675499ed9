//! Where a cell's VM lives: a warm one in this process, or one in the session's sandbox
//! process, whose CPU clock and kill switch the watchdog then uses for the cell's turns;
//! and the front-end's run on this process's worker for a cell in thread isolation.

use super::{start_error, Cell, Phase};
use crate::error::{messages, CodeModeError, ErrorCode};
use crate::runtime::{alloc_budget, clock, panic_probe, pool, watchdog};
use crate::sandbox::handle::VmHandle;
use crate::sandbox::wire::ToChild;
use std::sync::Arc;

impl Cell {
    /// Runs the front-end on this worker. A parse over its memory budget stops the worker
    /// for good inside it; the call is then answered at once, as for a stuck turn.
    pub(super) fn prepare_here(
        self: &Arc<Self>,
        source: &super::CellSource,
    ) -> Result<crate::source::prepare::Prepared, CodeModeError> {
        let cell = Arc::downgrade(self);
        alloc_budget::on_overrun_here(Box::new(move || {
            let Some(cell) = cell.upgrade() else {
                return;
            };
            if cell.watch.abandon_if_started_by(clock::now_ns()) {
                pool::global().replace_stuck_worker();
                cell.finish(Err(CodeModeError::invalid_input(
                    messages::SOURCE_TOO_COMPLEX,
                )));
            }
        }));
        let prepared = crate::source::prepare(&source.code, source.language);
        alloc_budget::clear_overrun_hook();
        prepared
    }

    /// A blank VM where the owner's isolation puts it.
    pub(super) fn new_vm(self: &Arc<Self>, code: &str) -> Result<VmHandle, CodeModeError> {
        let Some(sandbox) = self.owner.sandbox() else {
            let vm =
                crate::runtime::spare_vms::take().map_err(|e| start_error(e, self.language))?;
            return Ok(VmHandle::Thread(vm));
        };
        let vm = sandbox
            .new_vm(self.owner.limits())
            .map_err(|detail| CodeModeError::new(ErrorCode::RuntimeUnavailable, detail))?;
        self.await_start(vm.process());
        if panic_probe::armed(code, panic_probe::SANDBOX_MARKER) {
            let probe = ToChild::Forbidden {
                call: "socket".into(),
            };
            vm.process().send(&probe);
        }
        let process = Arc::downgrade(vm.process());
        self.watch.follow_remote(watchdog::Remote {
            cpu_clock: vm.process().cpu_clock(),
            kill: Box::new(move || {
                if let Some(process) = process.upgrade() {
                    process.violate("computed past its turn's deadline".into());
                }
            }),
        });
        Ok(VmHandle::Process(vm))
    }

    /// Why the sandbox process holding this parked run's VM is gone, if it is: the run
    /// cannot be resumed.
    pub fn sandbox_ended(&self) -> Option<String> {
        let state = self.state.lock();
        let Phase::Live(VmHandle::Process(vm)) = &state.phase else {
            return None;
        };
        let process = vm.process();
        if process.is_usable() {
            return None;
        }
        Some(
            process
                .death()
                .unwrap_or("its sandbox process was stopped")
                .to_owned(),
        )
    }
}
