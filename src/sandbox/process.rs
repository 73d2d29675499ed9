//! One sandbox process as the addon sees it: the pipe to it, a reader thread that hands
//! each of its messages to the route of the VM it names, and why it ended. Dropping the
//! handle ends the process (its input closes, and it is killed for good measure).

use super::wire::{read_frame, write_frame, FromChild, ToChild};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::io::{BufReader, BufWriter};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Sandbox processes alive (spawned and not yet reaped): for stats and leak checks.
pub static LIVE_PROCESSES: AtomicUsize = AtomicUsize::new(0);

/// What receives a VM's messages, on the reader thread; dropped when the VM is released
/// or the process ends.
pub type Route = Arc<dyn Fn(FromChild) + Send + Sync>;

/// What the reader thread and the handle share.
#[derive(Default)]
struct Routes {
    by_vm: Mutex<HashMap<u64, Route>>,
    /// Set once the process is gone: how it ended, in words for an error message.
    death: OnceLock<String>,
}

pub struct SandboxProcess {
    pid: u32,
    input: Mutex<BufWriter<ChildStdin>>,
    routes: Arc<Routes>,
    next_vm: AtomicU64,
    /// Set by `kill`: the process takes no new VMs even before it is reaped.
    killed: AtomicBool,
}

impl SandboxProcess {
    /// Starts `executable` with an empty environment (the time zone aside) and pipes on
    /// stdin and stdout; stderr is the gateway's, so a failure to lock down is visible.
    pub fn spawn(executable: &Path, executors: usize) -> std::io::Result<Arc<SandboxProcess>> {
        let mut command = Command::new(executable);
        command
            .arg(executors.to_string())
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if let Some(zone) = std::env::var_os("TZ") {
            command.env("TZ", zone);
        }
        let mut child = command.spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other("sandbox pipes missing"));
        };
        LIVE_PROCESSES.fetch_add(1, Ordering::SeqCst);
        let routes = Arc::new(Routes::default());
        let pid = child.id();
        let reader_routes = routes.clone();
        let spawned = std::thread::Builder::new()
            .name("codemode-sandbox-reader".into())
            .stack_size(256 * 1024)
            .spawn(move || read_until_exit(child, BufReader::new(stdout), &reader_routes));
        if let Err(error) = spawned {
            // The closed pipe ends it; the kill makes sure.
            kill_pid(pid);
            return Err(error);
        }
        Ok(Arc::new(SandboxProcess {
            pid,
            input: Mutex::new(BufWriter::new(stdin)),
            routes,
            next_vm: AtomicU64::new(1),
            killed: AtomicBool::new(false),
        }))
    }

    /// A new VM id; `open_vm` then gives it its route.
    pub fn new_vm_id(&self) -> u64 {
        self.next_vm.fetch_add(1, Ordering::SeqCst)
    }

    /// `route` gets VM `vm`'s messages until it is released or the process ends.
    pub fn open_vm(&self, vm: u64, route: Route) {
        if self.death().is_none() {
            self.routes.by_vm.lock().insert(vm, route);
        }
    }

    /// Sends one message; false if the process is gone.
    pub fn send(&self, message: &ToChild) -> bool {
        self.death().is_none() && write_frame(&mut *self.input.lock(), message).is_ok()
    }

    /// Forgets VM `vm` here and in the process.
    pub fn release_vm(&self, vm: u64) {
        self.routes.by_vm.lock().remove(&vm);
        self.send(&ToChild::Release { vm });
    }

    /// Whether new VMs may go here: not ended, not being killed.
    pub fn is_usable(&self) -> bool {
        self.death().is_none() && !self.killed.load(Ordering::SeqCst)
    }

    /// How the process ended, once it has.
    pub fn death(&self) -> Option<&str> {
        self.routes.death.get().map(String::as_str)
    }

    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Ends the process now (a turn stuck past its deadline, or the session closing).
    pub fn kill(&self) {
        self.killed.store(true, Ordering::SeqCst);
        // Until the reader thread reaps the child its id cannot be reused, and after that
        // the death is set and we do not get here.
        if self.death().is_none() {
            kill_pid(self.pid);
        }
    }

    /// The process's CPU clock, for the watchdog's stuck-or-starved judgement (Linux).
    pub fn cpu_clock(&self) -> Option<i64> {
        #[cfg(target_os = "linux")]
        {
            let mut clock: libc::clockid_t = 0;
            // SAFETY: `clock` is a valid out-pointer; a dead pid only returns an error.
            let status = unsafe { libc::clock_getcpuclockid(self.pid as i32, &mut clock) };
            (status == 0).then_some(i64::from(clock))
        }
        #[cfg(not(target_os = "linux"))]
        None
    }
}

impl Drop for SandboxProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The reader thread: routes messages until the stream ends, then reaps the process and
/// records how it ended. Dropping the routes disconnects every VM still waiting.
fn read_until_exit(
    mut child: Child,
    mut output: BufReader<std::process::ChildStdout>,
    routes: &Routes,
) {
    while let Ok(Some(message)) = read_frame::<FromChild>(&mut output) {
        let vm = match &message {
            FromChild::Bridge { vm, .. } | FromChild::Done { vm, .. } => *vm,
        };
        // Not under the lock: a route may call into the session, which may open a VM.
        let route = routes.by_vm.lock().get(&vm).cloned();
        let Some(route) = route else { continue };
        // A panic in a route is a bug; the process is ended below, as if it had crashed,
        // rather than left with nobody reading it.
        let served = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| route(message)));
        if served.is_err() {
            break;
        }
    }
    // A process that closed its output but lives on (it should not) is ended here.
    let _ = child.kill();
    let how = match child.wait() {
        Ok(status) => describe(status),
        Err(error) => format!("code mode sandbox process was lost ({error})"),
    };
    let _ = routes.death.set(how);
    routes.by_vm.lock().clear();
    LIVE_PROCESSES.fetch_sub(1, Ordering::SeqCst);
}

/// SIGKILL to our own unreaped child `pid`.
fn kill_pid(pid: u32) {
    #[cfg(unix)]
    // SAFETY: a plain signal to a process id that is our child and not yet reaped.
    unsafe {
        libc::kill(pid as i32, libc::SIGKILL);
    }
    // Process isolation is refused where it is not supported (Windows).
    #[cfg(not(unix))]
    let _ = pid;
}

fn describe(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal: Option<i32> = None;
    match (signal, status.code()) {
        (Some(signal), _) => format!(
            "code mode sandbox process crashed ({})",
            signal_name(signal)
        ),
        (None, Some(super::wire::EXIT_PARSE_OVERRUN)) => {
            "code mode sandbox process ended: a cell's source was too complex to parse".into()
        }
        (None, Some(code)) => format!("code mode sandbox process exited with status {code}"),
        (None, None) => "code mode sandbox process ended".into(),
    }
}

#[cfg(not(unix))]
fn signal_name(signal: i32) -> String {
    format!("signal {signal}")
}

#[cfg(unix)]
fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSYS => "SIGSYS",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGTERM => "SIGTERM",
        other => return format!("signal {other}"),
    };
    name.into()
}
