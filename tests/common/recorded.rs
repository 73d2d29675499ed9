//! A VM of either isolation mode bound to a bridge that records what the guest hands over
//! (its result, its yields and timers), driven turn by turn as a cell would: for tests of
//! what the guest sees (`tests/determinism.rs`).

use super::bridge::FakeBridge;
use codemode_native::guest::control::Control;
use codemode_native::guest::natives::Bridge;
use codemode_native::guest::vm::{Determinism, StartError, Vm, VmLimits};
use codemode_native::sandbox::handle::VmHandle;
use codemode_native::sandbox::process::{ProcessLimits, SandboxProcess};
use codemode_native::sandbox::remote::RemoteVm;
use codemode_native::source::Language;
use parking_lot::Mutex;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Copy, Debug)]
pub enum Mode {
    Thread,
    Process,
}

pub const MODES: [Mode; 2] = [Mode::Thread, Mode::Process];

/// A bridge that hands out ids, records the cell's result and the ids of its yields and
/// timers, and answers catalog queries from an empty catalog.
#[derive(Default)]
pub struct Recorder {
    ids: Mutex<u32>,
    yields: Mutex<Vec<u32>>,
    timers: Mutex<Vec<u32>>,
    finished: Mutex<Option<(bool, String)>>,
}

impl Recorder {
    fn fresh(&self) -> u32 {
        let mut ids = self.ids.lock();
        *ids += 1;
        *ids
    }

    pub fn result(&self) -> Value {
        match self.finished.lock().clone() {
            Some((true, payload)) => serde_json::from_str(&payload).expect("result JSON"),
            other => panic!("the cell did not complete: {other:?}"),
        }
    }
}

impl Bridge for Recorder {
    fn call(&self, _: &str, _: &str, _: String) -> Result<u32, String> {
        Ok(self.fresh())
    }
    fn output(&self, _: u8, _: String) {}
    fn console(&self, _: String) {}
    fn timer(&self, _: u64) -> Result<u32, String> {
        let id = self.fresh();
        self.timers.lock().push(id);
        Ok(id)
    }
    fn clear_timer(&self, _: u32) {}
    fn yield_control(&self, _: Option<String>) -> u32 {
        let id = self.fresh();
        self.yields.lock().push(id);
        id
    }
    fn finish(&self, ok: bool, payload: String) {
        *self.finished.lock() = Some((ok, payload));
    }
    fn fail(&self, payload: String) {
        *self.finished.lock() = Some((false, payload));
    }
    fn search(&self, _: &str, _: u32) -> Result<String, String> {
        Ok("[]".into())
    }
    fn describe(&self, callable: &str) -> Result<String, String> {
        Err(format!("Unknown tool: {callable}"))
    }
    fn tool_meta(&self, callable: &str) -> Result<String, String> {
        Err(format!("Unknown tool: {callable}"))
    }
    fn api_list(&self, _: &str) -> String {
        json!({ "files": [] }).to_string()
    }
    fn api_read(&self, _: &str) -> Result<String, String> {
        Err("no such file".into())
    }
    fn mcp_api(&self, _: &str, _: Option<&str>, _: bool) -> Result<String, String> {
        Err("no MCP servers".into())
    }
}

/// A bound VM of `mode`, its bridge and control; the sandbox process, if any, lives as
/// long as the VM.
pub struct Guest {
    pub vm: VmHandle,
    pub recorder: Arc<Recorder>,
    pub control: Arc<Control>,
    _process: Option<Arc<SandboxProcess>>,
}

fn sandbox() -> Arc<SandboxProcess> {
    let exe = codemode_native::sandbox::locate::executable().expect("the sandbox executable");
    let limits = ProcessLimits {
        max_frame_bytes: 16 << 20,
        data_limit_bytes: 0,
    };
    let process = SandboxProcess::spawn(&exe, 1, limits).expect("the sandbox starts");
    assert!(process.wait_ready(Duration::from_secs(60), &|| true));
    process
}

pub fn try_guest(mode: Mode, determinism: Option<Determinism>) -> Result<Guest, StartError> {
    let (vm, process) = match mode {
        Mode::Thread => (VmHandle::Thread(Vm::blank()?), None),
        Mode::Process => {
            let process = sandbox();
            (
                VmHandle::Process(RemoteVm::new(process.clone())),
                Some(process),
            )
        }
    };
    let recorder = Arc::new(Recorder::default());
    let control = Arc::new(Control::new());
    let limits = VmLimits {
        memory_bytes: 64 << 20,
        max_stack_bytes: 512 << 10,
    };
    let config = FakeBridge::with_catalog(&[]).prelude_config();
    vm.bind(
        limits,
        control.clone(),
        recorder.clone(),
        &config,
        determinism,
    )?;
    Ok(Guest {
        vm,
        recorder,
        control,
        _process: process,
    })
}

pub fn guest(mode: Mode, determinism: Option<Determinism>) -> Guest {
    try_guest(mode, determinism).unwrap_or_else(|e| panic!("{mode:?} bind: {e:?}"))
}

impl Guest {
    /// Starts `code` (a sandboxed VM also binds here, which must succeed).
    pub fn start(&self, code: &str) {
        let started = self.vm.start(code, Language::JavaScript, None);
        assert!(started.is_ok(), "start: {started:?}");
        self.vm.drain_jobs(&self.control);
    }

    /// Resumes the guest's only pending yield.
    pub fn resume(&self) {
        let id = self
            .recorder
            .yields
            .lock()
            .pop()
            .expect("the guest yielded");
        self.vm.settle(id, true, "null");
        self.vm.drain_jobs(&self.control);
    }

    pub fn fire_timer(&self) {
        let id = self
            .recorder
            .timers
            .lock()
            .pop()
            .expect("the guest armed a timer");
        self.vm.fire_timer(id);
        self.vm.drain_jobs(&self.control);
    }

    /// Runs `code`, moving the clock to each of `clocks` before resuming each of its
    /// yields in turn; its result.
    pub fn run(&self, code: &str, clocks: &[f64]) -> Value {
        self.start(code);
        for &ms in clocks {
            self.vm.set_clock(ms);
            self.resume();
        }
        self.recorder.result()
    }
}
