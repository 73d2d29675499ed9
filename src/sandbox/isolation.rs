//! Where a session's guests run, the process-wide default, and a session's way to its
//! sandbox processes (see `pool` and `group`).

use super::group::{Group, VMS_PER_PROCESS};
use super::process::{ProcessLimits, SandboxProcess};
use super::remote::RemoteVm;
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

/// A session's way to sandbox processes: its group's, started lazily, replaced when one
/// dies, ended when idle.
pub struct Sandbox {
    group: Arc<Group>,
}

impl Sandbox {
    /// The sandbox of a session in group `name` (else the configured default group, else
    /// a private one).
    pub fn for_session(name: Option<&str>) -> Sandbox {
        Sandbox {
            group: super::pool::group_for(name),
        }
    }

    /// A VM for a session with `limits`, in a process of its group. A private group's
    /// process runs one command at a time (the session's concurrency comes from more
    /// processes); a shared group's runs as many as the gateway has workers.
    pub fn new_vm(&self, limits: &crate::limits::Limits) -> Result<RemoteVm, String> {
        self.group.new_vm(
            process_limits(limits),
            self.executors(),
            &super::pool::end_one_idle,
        )
    }

    /// A cell is about to need a VM: starts its process now if the group would start one
    /// for it (see `Group::prestart`); never waits.
    pub fn prestart(&self, limits: &crate::limits::Limits) {
        self.group
            .prestart(process_limits(limits), self.executors());
    }

    /// Keeps `then` until the process this session's next VM will go to is ready, if it
    /// is still starting; hands it back otherwise (see `Group::when_booted`).
    pub fn when_booted(
        &self,
        limits: &crate::limits::Limits,
        then: super::boot::Waiter,
    ) -> Result<(), super::boot::Waiter> {
        self.group.when_booted(process_limits(limits), then)
    }

    fn executors(&self) -> usize {
        if self.group.name().is_some() {
            crate::runtime::pool::global().threads()
        } else {
            1
        }
    }

    /// The session closed: a private group lets go of its processes, each ending when its
    /// last VM is released; a shared group keeps them for its other sessions.
    pub fn release(&self) {
        if self.group.name().is_none() {
            self.group.release();
        }
    }

    /// The processes of the session's group running now (tests and stats).
    pub fn processes(&self) -> Vec<Arc<SandboxProcess>> {
        self.group.processes()
    }
}

/// What a session's `limits` allow its sandbox process: frames as large as the largest
/// value the session lets through (tool input, output, a parked run), with room for JSON
/// escapes; memory for every VM it may hold at its memory limit.
pub fn process_limits(limits: &crate::limits::Limits) -> ProcessLimits {
    const MIB: u64 = 1 << 20;
    let largest = limits
        .max_tool_input_bytes
        .max(limits.max_output_bytes)
        .max(limits.max_snapshot_bytes);
    let vms = u64::try_from(VMS_PER_PROCESS).unwrap_or(u64::MAX);
    ProcessLimits {
        max_frame_bytes: usize::try_from(largest.saturating_mul(2).saturating_add(MIB))
            .unwrap_or(usize::MAX),
        data_limit_bytes: limits
            .memory_limit_bytes
            .saturating_mul(vms)
            .saturating_add(512 * MIB),
    }
}
