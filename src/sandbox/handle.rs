//! The VM a cell runs on, in this process (`isolation: "thread"`) or in a sandbox process
//! (`"process"`): one set of calls, so the cell does not care which.

use super::remote::RemoteVm;
pub use super::remote::{ReplayStep, Replayed};
use crate::guest::control::Control;
use crate::guest::natives::Bridge;
use crate::guest::vm::{Determinism, StartError, Vm, VmLimits};
use crate::source::prepare::Prepared;
use crate::source::typescript::PositionMap;
use crate::source::Language;
use std::sync::Arc;

pub enum VmHandle {
    Thread(Vm),
    Process(RemoteVm),
}

impl VmHandle {
    /// Binds the VM to its cell; `determinism` makes its clock and randomness reproducible.
    pub fn bind(
        &self,
        limits: VmLimits,
        control: Arc<Control>,
        bridge: Arc<dyn Bridge>,
        config_json: &str,
        determinism: Option<Determinism>,
    ) -> Result<(), StartError> {
        match self {
            VmHandle::Thread(vm) => vm.bind(limits, control, bridge, config_json, determinism),
            VmHandle::Process(vm) => vm.bind(limits, control, bridge, config_json, determinism),
        }
    }

    /// Moves a deterministic VM's logical clock to `ms` (epoch milliseconds) for what its
    /// guest runs next; a sandboxed VM takes it with its next command's steps.
    pub fn set_clock(&self, ms: f64) {
        match self {
            VmHandle::Thread(vm) => vm.set_clock(ms),
            VmHandle::Process(vm) => vm.set_clock(ms),
        }
    }

    /// Starts a cell and returns a TypeScript cell's position map. A sandboxed VM runs the
    /// front-end on `code` in its process, where the watchdog can end a parse that never
    /// ends; in this process the caller passes what it `prepared` (or it is done here).
    pub fn start(
        &self,
        code: &str,
        language: Language,
        prepared: Option<Prepared>,
    ) -> Result<Option<PositionMap>, StartError> {
        match self {
            VmHandle::Thread(vm) => {
                let prepared = match prepared {
                    Some(prepared) => prepared,
                    None => crate::source::prepare(code, language)
                        .map_err(|refused| StartError::Refused(refused.message))?,
                };
                vm.start(&prepared.js, language.user_file())?;
                Ok(prepared.map)
            }
            VmHandle::Process(vm) => vm.start(code, language),
        }
    }

    pub fn settle(&self, id: u32, ok: bool, payload: &str) {
        match self {
            VmHandle::Thread(vm) => {
                vm.settle(id, ok, payload);
            }
            VmHandle::Process(vm) => vm.settle(id, ok, payload),
        }
    }

    pub fn fire_timer(&self, id: u32) {
        match self {
            VmHandle::Thread(vm) => {
                vm.fire_timer(id);
            }
            VmHandle::Process(vm) => vm.fire_timer(id),
        }
    }

    /// Whether recorded deliveries go in batches ([`VmHandle::replay_batch`]): a sandboxed
    /// VM's drain costs a command each; in this process one delivery per drain is cheap.
    pub fn batches_replay(&self) -> bool {
        matches!(self, VmHandle::Process(_))
    }

    /// Applies the first recorded deliveries of `steps` in one command, each followed by a
    /// job drain, and says how many went and landed; `None` for a VM in this process (it
    /// does not batch) or a sandbox that did not answer (its VM is lost).
    pub fn replay_batch(&self, steps: &[ReplayStep]) -> Option<Replayed> {
        match self {
            VmHandle::Thread(_) => None,
            VmHandle::Process(vm) => vm.replay_batch(steps),
        }
    }

    pub fn drain_jobs(&self, control: &Control) {
        match self {
            VmHandle::Thread(vm) => vm.drain_jobs(control),
            VmHandle::Process(vm) => vm.drain_jobs(),
        }
    }

    pub fn first_unhandled_rejection(&self) -> Option<String> {
        match self {
            VmHandle::Thread(vm) => vm.first_unhandled_rejection(),
            VmHandle::Process(vm) => vm.first_unhandled_rejection(),
        }
    }

    pub fn heap_bytes(&self) -> u64 {
        match self {
            VmHandle::Thread(vm) => vm.heap_bytes(),
            VmHandle::Process(vm) => vm.heap_bytes(),
        }
    }

    pub fn memory_exhausted(&self) -> bool {
        match self {
            VmHandle::Thread(vm) => vm.memory_exhausted(),
            VmHandle::Process(vm) => vm.memory_exhausted(),
        }
    }

    pub fn peak_heap_bytes(&self) -> u64 {
        match self {
            VmHandle::Thread(vm) => vm.peak_heap_bytes(),
            VmHandle::Process(vm) => vm.peak_heap_bytes(),
        }
    }

    /// Why a sandboxed VM is gone (its process ended); never for a VM in this process.
    pub fn lost(&self) -> Option<&str> {
        match self {
            VmHandle::Thread(_) => None,
            VmHandle::Process(vm) => vm.lost(),
        }
    }
}
