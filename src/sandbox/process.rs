//! One sandbox process as the addon sees it: an attacker once a memory bug runs code in it.
//! Writes to it never block, frames from it are capped, and a process that breaks the
//! protocol, stops reading or stops answering is killed, and reaped by its hub (a Node
//! env's event loop, or the poller thread), through the one socket the gateway holds for each.

use super::outbox::{Outbox, Sent};
use super::shared::Shared;
pub use super::shared::{Route, LIVE_PROCESSES};
use super::wire::{queue_frame, ToChild};
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// What a session's limits allow one sandbox process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcessLimits {
    /// The largest frame the sandbox may send.
    pub max_frame_bytes: usize,
    /// Its `RLIMIT_DATA`, a backstop above every VM's memory limit.
    pub data_limit_bytes: u64,
}

pub struct SandboxProcess {
    shared: Arc<Shared>,
    limits: ProcessLimits,
    /// Set by `kill`: the process takes no new VMs even before it is reaped.
    killed: AtomicBool,
    cpu_clock: Option<i64>,
}

impl SandboxProcess {
    /// Starts `executable` with an empty environment (the time zone aside), one socket as
    /// its stdin and stdout and `/dev/null` as its stderr (it reports a failure to start
    /// in a `Fatal` frame), from the one thread that lives as long as the gateway; the
    /// gateway's poller thread serves it.
    pub fn spawn(
        executable: &Path,
        executors: usize,
        limits: ProcessLimits,
    ) -> std::io::Result<Arc<SandboxProcess>> {
        Self::spawn_on(executable, executors, limits, None)
    }

    /// As `spawn`, served by `hub` (a Node env's) if given.
    pub fn spawn_on(
        executable: &Path,
        executors: usize,
        limits: ProcessLimits,
        hub: Option<&Arc<super::poller::Hub>>,
    ) -> std::io::Result<Arc<SandboxProcess>> {
        let hub = super::poller::hub_for(hub)?;
        let (socket, end) = super::socket::pair()?;
        let mut command = Command::new(executable);
        command
            .arg(executors.to_string())
            .arg(std::process::id().to_string())
            .arg(limits.data_limit_bytes.to_string())
            .env_clear()
            .stdin(Stdio::from(end.try_clone()?))
            .stdout(Stdio::from(end))
            .stderr(Stdio::null());
        if let Some(zone) = std::env::var_os("TZ") {
            command.env("TZ", zone);
        }
        // The spawner drops `command`, and with it the child's end, once it has started.
        let mut child = super::spawner::spawn(command)?;
        let pid = child.id();
        let key = hub.key();
        let outbox = match Outbox::new(socket, hub.on_backlog(key)) {
            Ok(outbox) => outbox,
            Err(error) => {
                // Not yet watched by the poller: reaped here, right after the signal.
                let _ = child.kill();
                let _ = child.wait();
                return Err(error);
            }
        };
        LIVE_PROCESSES.fetch_add(1, Ordering::SeqCst);
        let shared = Arc::new(Shared {
            pid,
            routes: Mutex::new(HashMap::new()),
            commands: Mutex::new(HashSet::new()),
            frames: AtomicU64::new(0),
            outbox,
            issued_vms: AtomicU64::new(0),
            death: OnceLock::new(),
            violation: OnceLock::new(),
            fatal: OnceLock::new(),
            boot: Default::default(),
            unreaped: Mutex::new(true),
        });
        let cpu_clock = process_cpu_clock(pid);
        let reader = super::reader::Reader::new(shared.clone(), child, limits.max_frame_bytes);
        hub.watch(key, reader);
        Ok(Arc::new(SandboxProcess {
            shared,
            limits,
            killed: AtomicBool::new(false),
            cpu_clock,
        }))
    }

    /// A new VM id; `open_vm` then gives it its route.
    pub fn new_vm_id(&self) -> u64 {
        self.shared.issued_vms.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// `route` gets VM `vm`'s messages until it is released or the process ends.
    pub fn open_vm(&self, vm: u64, route: Route) {
        if self.death().is_none() {
            self.shared.routes.lock().insert(vm, route);
        }
    }

    /// Sends one message without waiting; false if the process is gone or being killed.
    pub fn send(&self, message: &ToChild) -> bool {
        if self.death().is_some() {
            return false;
        }
        let mut frame = Vec::new();
        if queue_frame(&mut frame, message).is_err() {
            return false;
        }
        match self.shared.outbox.send(&frame) {
            Sent::Accepted => true,
            Sent::Closed => false,
            Sent::Overflow => {
                self.shared.violate(format!(
                    "stopped reading its input ({} bytes were waiting for it)",
                    super::outbox::BACKLOG_CAP
                ));
                false
            }
        }
    }

    /// Sends command `message` for VM `vm`; false if it could not be sent. Until its
    /// answer comes, VM `vm` may send requests.
    pub fn command(&self, vm: u64, message: &ToChild) -> bool {
        // Recorded first: the answer may arrive before `send` returns.
        self.shared.commands.lock().insert(vm);
        let sent = self.send(message);
        if !sent {
            self.shared.commands.lock().remove(&vm);
        }
        sent
    }

    /// VMs that have a route (opened and not released) while the process lives.
    pub fn open_vms(&self) -> usize {
        self.shared.routes.lock().len()
    }

    /// VMs with a command sent and its answer not yet read.
    pub fn commands_in_flight(&self) -> usize {
        self.shared.commands.lock().len()
    }

    /// Ends the process's input once what waits for it is through: it then exits (the end
    /// of its input ends it), and the poller reaps it. Nothing more can be sent.
    pub fn close_input(&self) {
        self.killed.store(true, Ordering::SeqCst);
        self.shared.outbox.close_input();
    }

    /// Forgets VM `vm` here and in the process.
    pub fn release_vm(&self, vm: u64) {
        self.shared.routes.lock().remove(&vm);
        self.shared.commands.lock().remove(&vm);
        self.send(&ToChild::Release { vm });
    }

    /// Kills the process for something it did that no sandbox running our code does.
    pub fn violate(&self, what: String) {
        self.killed.store(true, Ordering::SeqCst);
        self.shared.violate(what);
    }

    /// Whether new VMs may go here: not ended, not being killed.
    pub fn is_usable(&self) -> bool {
        self.death().is_none()
            && !self.killed.load(Ordering::SeqCst)
            && self.shared.violation.get().is_none()
    }

    /// How the process ended, once it has.
    pub fn death(&self) -> Option<&str> {
        self.shared.death.get().map(String::as_str)
    }

    pub fn max_frame_bytes(&self) -> usize {
        self.limits.max_frame_bytes
    }

    pub fn pid(&self) -> u32 {
        self.shared.pid
    }

    /// Ends the process now (a turn stuck past its deadline, or the session closing).
    pub fn kill(&self) {
        self.killed.store(true, Ordering::SeqCst);
        self.shared.outbox.close();
        self.shared.signal_kill();
    }

    /// The process's CPU clock, for the watchdog's stuck-or-starved judgement (Linux).
    pub fn cpu_clock(&self) -> Option<i64> {
        self.cpu_clock
    }

    /// CPU time the process has used, where it can be read (Linux).
    pub fn cpu_ns(&self) -> Option<u64> {
        self.cpu_clock.and_then(crate::runtime::cpu_clock::read)
    }

    /// Whether the process has said it is ready for commands.
    pub fn is_ready(&self) -> bool {
        self.shared.boot.is_ready()
    }

    /// Keeps `then` until the process is ready or gone; hands it back if it already is.
    pub fn when_settled(&self, then: super::boot::Waiter) -> Result<(), super::boot::Waiter> {
        self.shared.boot.when_settled(then)
    }

    /// Waits until the process is ready or gone (true), at most `limit` and while
    /// `keep_waiting` says so.
    pub fn wait_ready(&self, limit: std::time::Duration, keep_waiting: &dyn Fn() -> bool) -> bool {
        self.shared.boot.wait(limit, keep_waiting)
    }

    /// What a thread waiting on this process reads of it, for `liveness`.
    pub fn seen(&self) -> super::liveness::Seen {
        super::liveness::Seen {
            pid: self.pid(),
            frames: self.shared.frames.load(Ordering::SeqCst),
            cpu_ns: self.cpu_ns(),
        }
    }
}

impl Drop for SandboxProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

fn process_cpu_clock(pid: u32) -> Option<i64> {
    #[cfg(target_os = "linux")]
    {
        let mut clock: libc::clockid_t = 0;
        // SAFETY: `clock` is a valid out-pointer; a dead pid only returns an error.
        let status = unsafe { libc::clock_getcpuclockid(pid as i32, &mut clock) };
        (status == 0).then_some(i64::from(clock))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
    }
}
