//! Sandbox groups process-wide: the named groups sessions share, room made at the process
//! cap, and the sweeper thread that ends processes idle past the idle time. A session
//! without a group gets a private group no other session reaches.

use super::capacity::{self, sleep_while_idle};
use super::group::Group;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

struct Registry {
    named: HashMap<String, Arc<Group>>,
    private: Vec<Weak<Group>>,
}

fn registry() -> &'static Mutex<Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        Mutex::new(Registry {
            named: HashMap::new(),
            private: Vec::new(),
        })
    })
}

/// The group a session runs in: the named one (`name`, else the configured default),
/// shared with every session naming it, or a new private one.
pub fn group_for(name: Option<&str>) -> Arc<Group> {
    let name = name
        .map(str::to_owned)
        .or_else(|| capacity::settings().default_group);
    start_sweeper();
    let mut registry = registry().lock();
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
    let mut registry = registry().lock();
    registry.private.retain(|group| group.strong_count() > 0);
    let private = registry.private.iter().filter_map(Weak::upgrade);
    registry.named.values().cloned().chain(private).collect()
}

fn start_sweeper() {
    static SWEEPER: OnceLock<()> = OnceLock::new();
    SWEEPER.get_or_init(|| {
        let spawned = std::thread::Builder::new()
            .name("codemode-sandbox-pool".into())
            .stack_size(128 * 1024)
            .spawn(sweep_forever);
        if spawned.is_err() {
            // Idle processes then live until their session closes, as before groups.
            eprintln!("codemode-native: could not start the sandbox pool's sweeper");
        }
    });
}

/// Ends idle processes, and forgets named groups nobody uses, while any process is held.
fn sweep_forever() {
    loop {
        let settings = capacity::settings();
        let period = (settings.idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
        sleep_while_idle(period);
        let settings = capacity::settings();
        let now = Instant::now();
        for group in all_groups() {
            group.sweep(now, &settings);
        }
        let mut registry = registry().lock();
        // Held only by the registry and holding no process: no session names it now.
        registry
            .named
            .retain(|_, group| Arc::strong_count(group) > 1 || !group.processes().is_empty());
    }
}
