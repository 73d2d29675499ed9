//! The process-wide pool of worker threads that run guests. Workers take jobs from one
//! queue; a job is one turn of one cell. A worker stuck in a turn the watchdog gave up on
//! is replaced, and leaves the pool when that turn returns.

use crate::limits;
use crossbeam_channel::{unbounded, Receiver, Sender};
use parking_lot::Mutex;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// Stack of each guest thread (workers, housekeeper, reaper): large, so QuickJS's own
/// limit (`GUEST_STACK_BYTES`, far below) always trips first.
pub const WORKER_STACK_BYTES: usize = 32 * 1024 * 1024;
pub const GUEST_STACK_BYTES: usize = 4 * 1024 * 1024;
/// New cells waiting for a worker beyond this are refused (`runtime_unavailable`).
pub const MAX_QUEUED_STARTS: usize = 16_384;

/// Workers stuck in a turn the watchdog gave up on that get a replacement, unless
/// `maxStuckWorkers` says otherwise. Beyond it the pool runs short until a stuck turn
/// returns; once no healthy worker is left, new cells are refused (`NoFreeWorker`) and
/// calls already queued are answered by the watchdog.
pub const MAX_REPLACED_WORKERS: usize = 64;

/// Why a new cell found no place in the pool.
#[derive(Debug)]
pub enum Refused {
    /// Too many cells already wait for a worker.
    QueueFull,
    /// Every worker is stuck in a guest built-in and no replacement may be started.
    NoFreeWorker { stuck: usize, cap: usize },
}

pub struct Pool {
    sender: Sender<Job>,
    receiver: Receiver<Job>,
    threads: usize,
    queued_starts: AtomicUsize,
    spawned: AtomicUsize,
}

/// Worker threads currently running their loop (a worker that died would be missing).
static LIVE_WORKERS: AtomicUsize = AtomicUsize::new(0);
/// Workers inside a turn the watchdog gave up on.
static STUCK_WORKERS: AtomicUsize = AtomicUsize::new(0);
/// Replacements started for stuck workers and not yet balanced by a stuck one retiring.
static EXTRA_WORKERS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Set when this worker's stuck turn returned after a replacement took its place.
    static RETIRING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

static CONFIGURED_THREADS: Mutex<Option<usize>> = Mutex::new(None);
/// `maxStuckWorkers`: how many stuck workers get a replacement.
static STUCK_CAP: AtomicUsize = AtomicUsize::new(MAX_REPLACED_WORKERS);
static POOL: OnceLock<Pool> = OnceLock::new();

/// Sets the worker count; only before the pool first starts.
pub fn configure(threads: usize) -> Result<(), String> {
    if POOL.get().is_some() {
        return Err(
            "configureCodeModeRuntime must be called before the first session runs a cell".into(),
        );
    }
    let range = &limits::WORKER_THREADS;
    if !u64::try_from(threads).is_ok_and(|t| range.contains(&t)) {
        let (min, max) = (range.start(), range.end());
        return Err(format!(
            "workerThreads must be an integer from {min} to {max}"
        ));
    }
    *CONFIGURED_THREADS.lock() = Some(threads);
    Ok(())
}

/// Sets how many stuck workers get a replacement (`maxStuckWorkers`); at any time.
pub fn configure_stuck_cap(cap: usize) -> Result<(), String> {
    let range = &limits::MAX_STUCK_WORKERS;
    if !u64::try_from(cap).is_ok_and(|c| range.contains(&c)) {
        let (min, max) = (range.start(), range.end());
        return Err(format!(
            "maxStuckWorkers must be an integer from {min} to {max}"
        ));
    }
    STUCK_CAP.store(cap, Ordering::SeqCst);
    Ok(())
}

pub fn global() -> &'static Pool {
    POOL.get_or_init(|| {
        let threads = CONFIGURED_THREADS
            .lock()
            .unwrap_or_else(limits::default_worker_threads);
        Pool::start(threads)
    })
}

impl Pool {
    fn start(threads: usize) -> Pool {
        let (sender, receiver) = unbounded::<Job>();
        for index in 0..threads {
            spawn_worker(index, receiver.clone());
        }
        Pool {
            sender,
            receiver,
            threads,
            queued_starts: AtomicUsize::new(0),
            spawned: AtomicUsize::new(threads),
        }
    }

    /// The watchdog gave up on a turn that holds a worker: starts another worker so the
    /// queue keeps moving (up to `MAX_REPLACED_WORKERS` at once).
    pub fn replace_stuck_worker(&self) {
        let stuck = STUCK_WORKERS.fetch_add(1, Ordering::SeqCst) + 1;
        if stuck > STUCK_CAP.load(Ordering::SeqCst) {
            return;
        }
        let index = self.spawned.fetch_add(1, Ordering::SeqCst);
        EXTRA_WORKERS.fetch_add(1, Ordering::SeqCst);
        if !spawn_worker(index, self.receiver.clone()) {
            EXTRA_WORKERS.fetch_sub(1, Ordering::SeqCst);
        }
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// True when no job is waiting for a worker (a worker may then spin briefly instead
    /// of giving up its turn; with work queued, spinning would steal it from others).
    pub fn is_idle(&self) -> bool {
        self.sender.is_empty()
    }

    /// Queues a turn of a cell that already exists; never refused, so no event is lost.
    pub fn submit(&self, job: Job) {
        // A send only fails once every receiver is gone, i.e. never while the process runs.
        let _ = self.sender.send(job);
    }

    /// Queues the first turn of a new cell, refusing when too many are already waiting or
    /// when no worker could ever take it.
    pub fn submit_start(&'static self, job: Job) -> Result<(), Refused> {
        if let Some(refused) = no_free_worker() {
            return Err(refused);
        }
        if self.queued_starts.fetch_add(1, Ordering::SeqCst) >= MAX_QUEUED_STARTS {
            self.queued_starts.fetch_sub(1, Ordering::SeqCst);
            return Err(Refused::QueueFull);
        }
        self.submit(Box::new(move || {
            self.queued_starts.fetch_sub(1, Ordering::SeqCst);
            job();
        }));
        Ok(())
    }
}

/// Starts a thread that runs guest work (a worker, the housekeeper, the reaper): the
/// stack a VM needs, at guest priority.
pub fn spawn_guest_thread(
    name: String,
    body: impl FnOnce() + Send + 'static,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name(name)
        .stack_size(WORKER_STACK_BYTES)
        .spawn(move || {
            crate::runtime::priority::lower_current_thread();
            body()
        })
        .map(drop)
}

fn spawn_worker(index: usize, receiver: Receiver<Job>) -> bool {
    let spawned = spawn_guest_thread(format!("codemode-worker-{index}"), move || {
        worker_loop(receiver)
    });
    if spawned.is_err() {
        // Fewer workers is degraded but working; the remaining ones drain the queue.
        eprintln!("codemode-native: could not start worker thread {index}");
    }
    spawned.is_ok()
}

/// Called on a worker whose stuck turn just returned: it leaves the pool if a
/// replacement took its place, so the pool shrinks back to its configured size.
pub fn stuck_turn_returned() {
    STUCK_WORKERS.fetch_sub(1, Ordering::SeqCst);
    let replaced = EXTRA_WORKERS
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok();
    if replaced {
        RETIRING.with(|flag| flag.set(true));
    }
}

/// Every worker is stuck in a turn the watchdog gave up on and no replacement may be
/// started: nothing queued runs until a stuck turn returns.
pub fn no_free_worker() -> Option<Refused> {
    let stuck = stuck_workers();
    let cap = STUCK_CAP.load(Ordering::SeqCst);
    (stuck > 0 && stuck >= cap && live_workers() <= stuck)
        .then_some(Refused::NoFreeWorker { stuck, cap })
}

/// Workers inside a turn the watchdog gave up on (their threads still run).
pub fn stuck_workers() -> usize {
    STUCK_WORKERS.load(Ordering::SeqCst)
}

/// Worker threads alive now; 0 before the pool first starts.
pub fn live_workers() -> usize {
    LIVE_WORKERS.load(Ordering::SeqCst)
}

/// Counts a worker as alive for as long as its loop runs, however it ends.
struct Alive;

impl Alive {
    fn new() -> Alive {
        LIVE_WORKERS.fetch_add(1, Ordering::SeqCst);
        Alive
    }
}

impl Drop for Alive {
    fn drop(&mut self) {
        LIVE_WORKERS.fetch_sub(1, Ordering::SeqCst);
    }
}

fn worker_loop(receiver: Receiver<Job>) {
    let _alive = Alive::new();
    while let Ok(job) = receiver.recv() {
        // Each job contains its own panic boundary; this one keeps the thread alive if a
        // panic escapes anyway (the job's cell is then failed by its own drop guard).
        let _ = catch_unwind(AssertUnwindSafe(job));
        if RETIRING.with(|flag| flag.get()) {
            return;
        }
        crate::runtime::priority::offer_core();
    }
}
