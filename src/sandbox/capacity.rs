//! How many sandbox processes the groups may hold and how they start: the settings of the
//! pool, the count held against `maxSandboxProcesses`, and the wake-up of the idle sweeper.

use super::host_limits::{self, MAX_PROCESSES};
use super::locate::executable;
use super::process::{ProcessLimits, SandboxProcess};
use parking_lot::{Condvar, Mutex, RwLock};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// `sandboxIdleMs` when not configured.
pub const DEFAULT_IDLE_MS: u64 = 30_000;

#[derive(Clone)]
pub struct Settings {
    /// `maxSandboxProcesses`; `None` until configured: the default depends on the host.
    pub max_processes: Option<usize>,
    pub idle: Duration,
    /// `sandboxGroup` of sessions that do not name one.
    pub default_group: Option<String>,
}

struct Capacity {
    settings: RwLock<Settings>,
    /// Processes the groups hold (counted when reserved, before they start).
    held: AtomicUsize,
    wake: (Mutex<()>, Condvar),
}

fn capacity() -> &'static Capacity {
    static CAPACITY: OnceLock<Capacity> = OnceLock::new();
    CAPACITY.get_or_init(|| Capacity {
        settings: RwLock::new(Settings {
            max_processes: None,
            idle: Duration::from_millis(DEFAULT_IDLE_MS),
            default_group: None,
        }),
        held: AtomicUsize::new(0),
        wake: (Mutex::new(()), Condvar::new()),
    })
}

/// Changes the settings `change` touches; the sweeper picks them up at once.
pub fn configure(change: impl FnOnce(&mut Settings)) {
    change(&mut capacity().settings.write());
    wake_sweeper();
}

pub fn settings() -> Settings {
    capacity().settings.read().clone()
}

/// The process cap in force: configured, else what the host leaves room for.
pub fn max_processes() -> usize {
    if let Some(max) = capacity().settings.read().max_processes {
        return max;
    }
    static DEFAULT: OnceLock<usize> = OnceLock::new();
    *DEFAULT.get_or_init(host_limits::default_max_processes)
}

/// Counts one more process against the cap; false at the cap.
pub fn reserve() -> bool {
    let max = max_processes();
    let reserved = capacity()
        .held
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
            (n < max).then_some(n + 1)
        })
        .is_ok();
    if reserved {
        wake_sweeper();
    }
    reserved
}

pub fn unreserve(count: usize) {
    if count > 0 {
        let _ = capacity()
            .held
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                Some(n.saturating_sub(count))
            });
    }
}

/// Processes the groups hold now.
pub fn held() -> usize {
    capacity().held.load(Ordering::SeqCst)
}

/// Starts a sandbox process for a group.
pub fn start(
    executors: usize,
    limits: ProcessLimits,
    hub: Option<&Arc<super::poller::Hub>>,
) -> Result<Arc<SandboxProcess>, String> {
    let path = executable()?;
    SandboxProcess::spawn_on(&path, executors, limits, hub).map_err(|error| {
        format!(
            "code mode sandbox process could not start ({}): {error}",
            path.display()
        )
    })
}

pub fn full_message() -> String {
    format!(
        "code mode runs its maximum of {} sandbox processes (maxSandboxProcesses), each holding running or parked runs; finish or close idle sessions, group trusted sessions with sandboxGroup, or raise maxSandboxProcesses",
        max_processes()
    )
}

/// The sweeper's sleep: until `period` passes, or while no process is held, until one is.
pub fn sleep_while_idle(period: Duration) {
    let (lock, wake) = &capacity().wake;
    let mut guard = lock.lock();
    if held() == 0 {
        wake.wait(&mut guard);
    } else {
        wake.wait_for(&mut guard, period);
    }
}

fn wake_sweeper() {
    // Under the lock: the sweeper checks `held` and sleeps under it, so this wake-up
    // cannot fall between the two.
    let _guard = capacity().wake.0.lock();
    capacity().wake.1.notify_all();
}

/// `MAX_PROCESSES`, for the option's range.
pub const MAX_CONFIGURABLE: usize = MAX_PROCESSES;
