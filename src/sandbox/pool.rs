//! Sandbox processes process-wide: the named groups sessions share, the cap on how many
//! processes the groups hold, and the sweeper thread that ends processes idle past the
//! idle time. A session without a group gets a private group no other session reaches.

use super::group::Group;
use super::locate::executable;
use super::process::{ProcessLimits, SandboxProcess};
use parking_lot::{Condvar, Mutex, RwLock};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

/// `sandboxIdleMs` when not configured.
pub const DEFAULT_IDLE_MS: u64 = 30_000;
/// The most `maxSandboxProcesses` may be, and the default's ceiling.
pub const MAX_PROCESSES: usize = 65_536;

#[derive(Clone)]
pub struct Settings {
    /// `maxSandboxProcesses`; `None` until configured: the default depends on the host.
    pub max_processes: Option<usize>,
    pub idle: Duration,
    /// `sandboxGroup` of sessions that do not name one.
    pub default_group: Option<String>,
}

struct Registry {
    named: HashMap<String, Arc<Group>>,
    private: Vec<Weak<Group>>,
}

struct Pool {
    settings: RwLock<Settings>,
    registry: Mutex<Registry>,
    /// Processes the groups hold (counted when reserved, before they start).
    held: AtomicUsize,
    sweeper: OnceLock<()>,
    wake: (Mutex<()>, Condvar),
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool {
        settings: RwLock::new(Settings {
            max_processes: None,
            idle: Duration::from_millis(DEFAULT_IDLE_MS),
            default_group: None,
        }),
        registry: Mutex::new(Registry {
            named: HashMap::new(),
            private: Vec::new(),
        }),
        held: AtomicUsize::new(0),
        sweeper: OnceLock::new(),
        wake: (Mutex::new(()), Condvar::new()),
    })
}

/// Changes the settings `change` touches; the sweeper picks them up at once.
pub fn configure(change: impl FnOnce(&mut Settings)) {
    change(&mut pool().settings.write());
    let _guard = pool().wake.0.lock();
    pool().wake.1.notify_all();
}

pub fn settings() -> Settings {
    pool().settings.read().clone()
}

/// The group a session runs in: the named one (`name`, else the configured default),
/// shared with every session naming it, or a new private one.
pub fn group_for(name: Option<&str>) -> Arc<Group> {
    let name = name
        .map(str::to_owned)
        .or_else(|| pool().settings.read().default_group.clone());
    let mut registry = pool().registry.lock();
    match name {
        Some(name) => registry
            .named
            .entry(name.clone())
            .or_insert_with(|| Arc::new(Group::new(Some(name))))
            .clone(),
        None => {
            let group = Arc::new(Group::new(None));
            registry.private.push(Arc::downgrade(&group));
            group
        }
    }
}

/// The process cap in force: configured, else what the host's fd and pid limits leave room
/// for (each process costs the gateway one or more fds, and two threads at least).
pub fn max_processes() -> usize {
    if let Some(max) = pool().settings.read().max_processes {
        return max;
    }
    static DEFAULT: OnceLock<usize> = OnceLock::new();
    *DEFAULT.get_or_init(super::host_limits::default_max_processes)
}

/// Counts one more process against the cap; false at the cap.
pub fn reserve() -> bool {
    let max = max_processes();
    let reserved = pool()
        .held
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
            (n < max).then_some(n + 1)
        })
        .is_ok();
    if reserved {
        start_sweeper();
    }
    reserved
}

pub fn unreserve(count: usize) {
    if count > 0 {
        let _ = pool()
            .held
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                Some(n.saturating_sub(count))
            });
    }
}

/// Processes the groups hold now.
pub fn held() -> usize {
    pool().held.load(Ordering::SeqCst)
}

/// Starts a sandbox process for a group.
pub fn start(executors: usize, limits: ProcessLimits) -> Result<Arc<SandboxProcess>, String> {
    let path = executable()?;
    SandboxProcess::spawn(&path, executors, limits).map_err(|error| {
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

/// At the cap: ends the process, in any group, that has been idle longest.
pub fn end_one_idle() {
    let now = Instant::now();
    let groups = all_groups();
    let oldest = groups
        .iter()
        .filter_map(|group| group.oldest_idle(now).map(|since| (since, group)))
        .min_by_key(|(since, _)| *since);
    if let Some((since, group)) = oldest {
        group.end_idle_since(since, now);
    }
}

fn all_groups() -> Vec<Arc<Group>> {
    let mut registry = pool().registry.lock();
    registry.private.retain(|group| group.strong_count() > 0);
    let private = registry.private.iter().filter_map(Weak::upgrade);
    registry.named.values().cloned().chain(private).collect()
}

fn start_sweeper() {
    pool().sweeper.get_or_init(|| {
        let spawned = std::thread::Builder::new()
            .name("codemode-sandbox-pool".into())
            .stack_size(128 * 1024)
            .spawn(sweep_forever);
        if spawned.is_err() {
            // Idle processes then live until their session closes, as before groups.
            eprintln!("codemode-native: could not start the sandbox pool's sweeper");
        }
    });
    // Under the lock: the sweeper checks `held` and sleeps under it, so this wake-up
    // cannot fall between the two.
    let _guard = pool().wake.0.lock();
    pool().wake.1.notify_all();
}

/// Ends idle processes, and forgets named groups nobody uses, while any process is held.
fn sweep_forever() {
    let (lock, wake) = &pool().wake;
    loop {
        let idle = pool().settings.read().idle;
        let period = (idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
        {
            let mut guard = lock.lock();
            if held() == 0 {
                wake.wait(&mut guard);
                continue;
            }
            wake.wait_for(&mut guard, period);
        }
        let settings = settings();
        let now = Instant::now();
        for group in all_groups() {
            group.sweep(now, &settings);
        }
        let mut registry = pool().registry.lock();
        // Held only by the registry and holding no process: no session names it now.
        registry
            .named
            .retain(|_, group| Arc::strong_count(group) > 1 || !group.processes().is_empty());
    }
}
