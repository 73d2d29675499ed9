//! Starts sandbox processes ahead of the cells that will use them, on one long-lived
//! thread, at most a few per core booting unused at once: neither the Node thread nor a
//! pool worker waits for a spawn, and a burst boots in call order, not all at a crawl.

use crossbeam_channel::{Receiver, Sender};
use parking_lot::{Condvar, Mutex};
use std::sync::OnceLock;
use std::time::Duration;

/// Processes started ahead and not yet used, per core: enough to keep every core busy
/// booting while the workers wait on the ones before.
const AHEAD_PER_CORE: usize = 4;

/// One start for a group.
pub struct Job {
    /// Whether the start is still wanted (no worker has taken over the group's start).
    pub wanted: Box<dyn Fn() -> bool + Send>,
    /// Starts the process; it holds `Ahead` until a VM goes to it, or drops it.
    pub run: Box<dyn FnOnce(Ahead) + Send>,
}

/// One process started ahead and not yet used; dropping it makes room for the next.
pub struct Ahead(());

impl Drop for Ahead {
    fn drop(&mut self) {
        let (count, room) = window();
        *count.lock() -= 1;
        room.notify_one();
    }
}

/// Queues `job` for the starter thread; false if that thread could not start (the caller
/// then undoes what it reserved, and the cell starts its process itself).
pub fn run(job: Job) -> bool {
    static JOBS: OnceLock<Option<Sender<Job>>> = OnceLock::new();
    match JOBS.get_or_init(start) {
        Some(jobs) => jobs.send(job).is_ok(),
        None => false,
    }
}

fn window() -> &'static (Mutex<usize>, Condvar) {
    static WINDOW: OnceLock<(Mutex<usize>, Condvar)> = OnceLock::new();
    WINDOW.get_or_init(|| (Mutex::new(0), Condvar::new()))
}

fn limit() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    cores.saturating_mul(AHEAD_PER_CORE)
}

/// Room for one more process ahead, or `None` once `wanted` says the start is not.
fn acquire(wanted: &dyn Fn() -> bool) -> Option<Ahead> {
    let (count, room) = window();
    let mut count = count.lock();
    loop {
        if !wanted() {
            return None;
        }
        if *count < limit() {
            *count += 1;
            return Some(Ahead(()));
        }
        // A worker may take the group's start over meanwhile: look again soon.
        room.wait_for(&mut count, Duration::from_millis(10));
    }
}

fn start() -> Option<Sender<Job>> {
    let (jobs, received) = crossbeam_channel::unbounded::<Job>();
    std::thread::Builder::new()
        .name("codemode-sandbox-starter".into())
        .stack_size(256 * 1024)
        .spawn(move || serve(received))
        .ok()?;
    Some(jobs)
}

fn serve(received: Receiver<Job>) {
    // The sender lives in a static: this loop ends only with the process. A job catches
    // its own panics (`Group::finish_start`), so one failed start never ends the thread.
    while let Ok(job) = received.recv() {
        if let Some(ahead) = acquire(&*job.wanted) {
            (job.run)(ahead);
        }
    }
}
