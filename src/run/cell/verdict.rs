//! How a turn ends: the verdict on a cell after its events and jobs ran (finish with a
//! value or failure, park, or idle), and the failure texts for guest errors and memory.

use super::{Cell, Verdict};
use crate::error::{messages, CodeModeError, ErrorCode};
use crate::guest::control::Interrupt;
use crate::run::failure::{guest_error_code, guest_error_text_mapped};
use crate::run::state::Completion;
use crate::sandbox::handle::VmHandle;

impl Cell {
    pub(super) fn verdict(&self, vm: &VmHandle) -> Verdict {
        // Whatever the guest caught and whatever calls are still out: a heap that hit its
        // limit may be in any state, so the run ends here instead of parking.
        if vm.memory_exhausted() {
            return Verdict::Finish(Err(self.out_of_memory()));
        }
        match self.control.interrupt() {
            Interrupt::Deadline => {
                return Verdict::Finish(Err(CodeModeError::timeout(self.control.budget_ms())))
            }
            Interrupt::Abort => return Verdict::Finish(Err(CodeModeError::aborted())),
            Interrupt::Memory => return Verdict::Finish(Err(self.out_of_memory())),
            Interrupt::None => {}
        }
        if self.control.is_aborted() {
            return Verdict::Finish(Err(CodeModeError::aborted()));
        }
        if let Some(why) = vm.lost() {
            // A run past its deadline lost its VM to the watchdog's kill (its own, or one
            // for another stuck run of the session): it timed out.
            if self.control.deadline_passed() {
                return Verdict::Finish(Err(CodeModeError::timeout(self.control.budget_ms())));
            }
            return Verdict::Finish(Err(super::lost_error(why)));
        }
        let mut book = self.book.lock();
        if let Some(fatal) = book.fatal.take() {
            return Verdict::Finish(Err(fatal));
        }
        if let Some(thrown) = book.thrown.take() {
            return Verdict::Finish(Err(self.guest_failure(&thrown, vm)));
        }
        // The top-level promise settling is not the end while dispatched calls or timers
        // are still out: their failures must still be able to fail the cell
        // (docs/contract.md, Guest runtime).
        if book.completion.is_some() && book.outstanding() == 0 {
            let Some(completion) = book.completion.take() else {
                return Verdict::Idle;
            };
            drop(book);
            if let Some(verdict) = self.unhandled_rejection(vm) {
                return verdict;
            }
            return Verdict::Finish(match completion {
                Completion::Value(json) => Ok(json),
                Completion::Error(payload) => Err(self.guest_failure(&payload, vm)),
            });
        }
        if book.yield_request.is_some() {
            return Verdict::Park("yield");
        }
        if book.outstanding() == 0 {
            drop(book);
            if let Some(verdict) = self.unhandled_rejection(vm) {
                return verdict;
            }
            // A job that ran out of memory can leave its promise pending forever: say so.
            if self.under_memory_pressure(vm) {
                let limit = self.owner.limits().memory_limit_bytes;
                return Verdict::Finish(Err(CodeModeError::new(
                    ErrorCode::MemoryLimitExceeded,
                    format!(
                        "{} (code mode cell ran out of memory: its limit is {limit} bytes)",
                        messages::PENDING_WITHOUT_HOST_WORK
                    ),
                )));
            }
            // Awaiting a promise nothing will settle is the guest's mistake.
            return Verdict::Finish(Err(CodeModeError::new(
                ErrorCode::GuestError,
                messages::PENDING_WITHOUT_HOST_WORK,
            )));
        }
        // Waiting out the deadline for calls only `resolveCall` can settle would spend the
        // caller's time for nothing: the run parks at once (docs/durable-runs.md).
        if self.control.deadline_passed() || book.only_external_left() {
            return Verdict::Park("pending_tools");
        }
        Verdict::Idle
    }

    /// The failure for the first unhandled rejection, if any. Formatting the rejection
    /// runs guest code (its `message` getter, say), which the deadline may interrupt: the
    /// cell then times out instead of completing with a rejection nobody could read.
    fn unhandled_rejection(&self, vm: &VmHandle) -> Option<Verdict> {
        let rejection = vm.first_unhandled_rejection();
        match self.control.interrupt() {
            Interrupt::Deadline => {
                return Some(Verdict::Finish(Err(CodeModeError::timeout(
                    self.control.budget_ms(),
                ))))
            }
            Interrupt::Abort => return Some(Verdict::Finish(Err(CodeModeError::aborted()))),
            Interrupt::Memory => return Some(Verdict::Finish(Err(self.out_of_memory()))),
            Interrupt::None => {}
        }
        rejection.map(|text| Verdict::Finish(Err(self.guest_failure(&text, vm))))
    }

    pub(super) fn out_of_memory(&self) -> CodeModeError {
        CodeModeError::new(
            ErrorCode::MemoryLimitExceeded,
            messages::out_of_memory(self.owner.limits().memory_limit_bytes),
        )
    }

    /// The heap came within a quarter of its limit during this run. Peak, not current use:
    /// by the time a failure is judged, the allocation that failed was never counted.
    fn under_memory_pressure(&self, vm: &VmHandle) -> bool {
        let limit = self.owner.limits().memory_limit_bytes;
        vm.peak_heap_bytes().saturating_mul(4) >= limit.saturating_mul(3)
    }

    fn guest_failure(&self, payload: &str, vm: &VmHandle) -> CodeModeError {
        let map = |line: u32, column: u32| {
            self.position_map
                .get()
                .and_then(|m| m.original(line, column))
                .unwrap_or((line, column))
        };
        let text = guest_error_text_mapped(payload, self.language.user_file(), &map);
        let text = crate::run::mcp_hint::explain(
            &text,
            &self.mcp_lines,
            self.language.user_file(),
            self.owner.as_ref(),
        )
        .unwrap_or(text);
        let text =
            crate::run::global_hint::explain(&text, &self.owner.prelude_config()).unwrap_or(text);
        if text.starts_with(messages::MODULE_ACCESS) {
            return CodeModeError::invalid_input(text);
        }
        let limit = self.owner.limits().memory_limit_bytes;
        // Under memory pressure QuickJS may fail to build the error object itself and
        // throw `null`; "string too long" is its string-size wall, hit by doubling bombs.
        let near_limit = self.under_memory_pressure(vm);
        if text.starts_with("Uncaught null") && !near_limit {
            return CodeModeError::new(ErrorCode::GuestError, format!(
                "{text} (a null exception at this point usually means the cell ran out of memory: its limit is {limit} bytes)"
            ));
        }
        let memory = text.contains("out of memory")
            || text.contains("string too long")
            || (near_limit
                && (text.starts_with("Uncaught null")
                    || text.starts_with("Uncaught exception")
                    // What QuickJS throws when it cannot allocate the real error either.
                    || text.contains("QuickJS library created a unknown error")));
        if memory {
            return CodeModeError::new(
                ErrorCode::MemoryLimitExceeded,
                format!("{text} (code mode cell ran out of memory: its limit is {limit} bytes)"),
            );
        }
        // Host failures reach the guest with the codes of `HostFailure`; any other code
        // is one the guest set on its own error.
        let code = match guest_error_code(payload).as_deref() {
            Some("invalid_input") => ErrorCode::InvalidInput,
            Some("tool_error" | "input_contract" | "output_contract") => ErrorCode::ToolError,
            _ => ErrorCode::GuestError,
        };
        CodeModeError::new(code, text)
    }
}
