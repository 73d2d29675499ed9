//! Where a session's guests run, the process-wide default, and a session's sandbox
//! process: started on its first cell, replaced when it dies, ended with the session.

use super::locate::executable;
use super::process::SandboxProcess;
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
    /// last one died. `executors`: how many commands the process runs at once.
    pub fn new_vm(&self, executors: usize) -> Result<RemoteVm, String> {
        let mut current = self.current.lock();
        let process = match current.as_ref() {
            Some(process) if process.is_usable() => process.clone(),
            _ => {
                let path = executable()?;
                let process = SandboxProcess::spawn(&path, executors).map_err(|error| {
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
