//! What a sandbox process's handle and the poller thread share: the routes and commands
//! of its VMs, the addon's writes to it, and how it ended. Killing it here is safe until it
//! is reaped (its pid cannot be reused before), and never after.

use super::boot::Boot;
use super::outbox::Outbox;
use super::wire::FromChild;
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::{Arc, OnceLock};

/// Sandbox processes alive (spawned and not yet reaped): for stats and leak checks.
pub static LIVE_PROCESSES: AtomicUsize = AtomicUsize::new(0);

/// What receives a VM's messages, on the poller thread (so it must never block); dropped when the VM is released
/// or the process ends.
pub type Route = Arc<dyn Fn(FromChild) + Send + Sync>;

/// What the poller thread and the handle share.
pub struct Shared {
    pub(super) pid: u32,
    pub(super) routes: Mutex<HashMap<u64, Route>>,
    /// VMs with a command out: only they may send requests and an answer.
    pub(super) commands: Mutex<HashSet<u64>>,
    /// Frames read so far: progress, for a thread waiting on an answer.
    pub(super) frames: AtomicU64,
    pub(super) outbox: Outbox,
    /// The highest VM id handed out: a message naming a higher one was never asked for.
    pub(super) issued_vms: AtomicU64,
    /// Set once the process is reaped: how it ended, in words for an error message.
    pub(super) death: OnceLock<String>,
    /// What the sandbox did that got it killed, if it was.
    pub(super) violation: OnceLock<String>,
    /// The first `Fatal` message it sent (why it could not start), clipped.
    pub(super) fatal: OnceLock<String>,
    /// Whether it has said it is ready, and who waits for that.
    pub(super) boot: Boot,
    /// Held while the process may be signalled; false once it is reaped (its pid may be
    /// reused from then on).
    pub(super) unreaped: Mutex<bool>,
}

impl Shared {
    /// Kills the process for what it did (the first reason is kept) and sends it nothing
    /// more; the poller thread reaps it and reports the reason to every run it held.
    pub(super) fn violate(&self, what: String) {
        let _ = self.violation.set(what);
        self.outbox.close();
        self.signal_kill();
    }

    /// SIGKILL, unless the process is already reaped or being reaped right now.
    pub(super) fn signal_kill(&self) {
        if let Some(unreaped) = self.unreaped.try_lock() {
            if *unreaped {
                kill_pid(self.pid);
            }
        }
    }
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
