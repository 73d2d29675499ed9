//! The VM a cell runs on, in this process (`isolation: "thread"`) or in a sandbox process
//! (`"process"`): one set of calls, so the cell does not care which.

use super::remote::RemoteVm;
use crate::guest::control::Control;
use crate::guest::natives::Bridge;
use crate::guest::vm::{StartError, Vm, VmLimits};
use std::sync::Arc;

pub enum VmHandle {
    Thread(Vm),
    Process(RemoteVm),
}

impl VmHandle {
    pub fn bind(
        &self,
        limits: VmLimits,
        control: Arc<Control>,
        bridge: Arc<dyn Bridge>,
        config_json: &str,
    ) -> Result<(), StartError> {
        match self {
            VmHandle::Thread(vm) => vm.bind(limits, control, bridge, config_json),
            VmHandle::Process(vm) => vm.bind(limits, control, bridge, config_json),
        }
    }

    pub fn start(&self, js: &str, file: &str) -> Result<(), StartError> {
        match self {
            VmHandle::Thread(vm) => vm.start(js, file),
            VmHandle::Process(vm) => vm.start(js, file),
        }
    }

    pub fn settle(&self, id: u32, ok: bool, payload: &str) {
        match self {
            VmHandle::Thread(vm) => vm.settle(id, ok, payload),
            VmHandle::Process(vm) => vm.settle(id, ok, payload),
        }
    }

    pub fn fire_timer(&self, id: u32) {
        match self {
            VmHandle::Thread(vm) => vm.fire_timer(id),
            VmHandle::Process(vm) => vm.fire_timer(id),
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
