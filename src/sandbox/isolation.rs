//! Where a session's guests run, the process-wide default, and a session's sandbox
//! process: started on its first cell, replaced when it dies, ended with the session.

use super::locate::executable;
use super::process::{ProcessLimits, SandboxProcess};
use super::remote::RemoteVm;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// Guests run in a sandbox process per session (the addon's default on Linux and macOS).
    Process,
    /// Guests run on the addon's worker threads, in the gateway's process.
    Thread,
}

impl Isolation {
    pub fn parse(text: &str) -> Option<Isolation> {
        match text {
            "process" => Some(Isolation::Process),
            "thread" => Some(Isolation::Thread),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Isolation::Process => "process",
            Isolation::Thread => "thread",
        }
    }

    /// Whether this platform can run sandbox processes.
    pub fn process_supported() -> bool {
        cfg!(any(target_os = "linux", target_os = "macos"))
    }
}

/// `configureCodeModeRuntime({ isolation })`: 0 unset, 1 process, 2 thread.
static CONFIGURED: AtomicU8 = AtomicU8::new(0);

pub fn configure_default(isolation: Isolation) {
    let code = match isolation {
        Isolation::Process => 1,
        Isolation::Thread => 2,
    };
    CONFIGURED.store(code, Ordering::SeqCst);
}

/// The addon's default for sessions that do not choose: what `configureCodeModeRuntime`
/// set, else `CODEMODE_NATIVE_ISOLATION`, else process where the platform supports it.
pub fn addon_default() -> Isolation {
    match CONFIGURED.load(Ordering::SeqCst) {
        1 => return Isolation::Process,
        2 => return Isolation::Thread,
        _ => {}
    }
    let from_env = std::env::var("CODEMODE_NATIVE_ISOLATION").ok();
    match from_env.as_deref().and_then(Isolation::parse) {
        Some(isolation) => isolation,
        None if Isolation::process_supported() => Isolation::Process,
        None => Isolation::Thread,
    }
}

/// A session's sandbox process, started lazily.
#[derive(Default)]
pub struct Sandbox {
    current: Mutex<Option<Arc<SandboxProcess>>>,
}

impl Sandbox {
    /// A VM in the session's process, starting a fresh process if there is none or the
    /// last one died. `executors`: how many commands the process runs at once; `limits`:
    /// what the session's limits allow a process started now.
    pub fn new_vm(&self, executors: usize, limits: ProcessLimits) -> Result<RemoteVm, String> {
        let mut current = self.current.lock();
        let process = match current.as_ref() {
            Some(process) if process.is_usable() => process.clone(),
            _ => {
                let path = executable()?;
                let process = SandboxProcess::spawn(&path, executors, limits).map_err(|error| {
                    format!(
                        "code mode sandbox process could not start ({}): {error}",
                        path.display()
                    )
                })?;
                *current = Some(process.clone());
                process
            }
        };
        Ok(RemoteVm::new(process))
    }

    /// Lets go of the process (session closed): it ends when its last VM is released.
    pub fn release(&self) {
        self.current.lock().take();
    }

    /// The process running now, if any (tests and stats).
    pub fn process(&self) -> Option<Arc<SandboxProcess>> {
        self.current.lock().clone()
    }
}

/// What a session's `limits` allow its sandbox process: frames as large as the largest
/// value the session lets through (tool input, output, a parked run), with room for JSON
/// escapes; memory for every VM it may hold at its memory limit.
pub fn process_limits(limits: &crate::limits::Limits, executors: usize) -> ProcessLimits {
    const MIB: u64 = 1 << 20;
    let largest = limits
        .max_tool_input_bytes
        .max(limits.max_output_bytes)
        .max(limits.max_snapshot_bytes);
    let vms =
        u64::try_from(executors + crate::limits::DEFAULT_MAX_SUSPENDED_RUNS).unwrap_or(u64::MAX);
    ProcessLimits {
        max_frame_bytes: usize::try_from(largest.saturating_mul(2).saturating_add(MIB))
            .unwrap_or(usize::MAX),
        data_limit_bytes: limits
            .memory_limit_bytes
            .saturating_mul(vms)
            .saturating_add(512 * MIB),
    }
}
