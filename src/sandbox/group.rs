//! One trust group's sandbox processes: a new VM goes to a process of the group with the
//! same limits and a free executor, else to a new process. Processes never hold VMs of
//! another group, so a compromised sandbox reaches only its own group's runs.

use super::boot::Waiter;
use super::capacity::{self, Settings};
use super::process::{ProcessLimits, SandboxProcess};
use super::remote::RemoteVm;
use super::starter::{self, Ahead};
use parking_lot::{Condvar, Mutex};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Instant;

mod booting;

/// `Group::start`: no start ahead, one queued on the starter thread, one spawning.
const NO_START: u8 = 0;
const QUEUED: u8 = 1;
const RUNNING: u8 = 2;

/// The most VMs one process holds: its memory backstop is sized for them, and a crash loses
/// no more runs than this.
pub const VMS_PER_PROCESS: usize = 64;

/// A process the group holds, and since when it has held no VM.
struct Held {
    process: Arc<SandboxProcess>,
    limits: ProcessLimits,
    executors: usize,
    idle_since: Option<Instant>,
    /// Started ahead of its first VM (`prestart`) and not used yet.
    ahead: Option<Ahead>,
}

impl Held {
    fn fits(&self, limits: ProcessLimits) -> bool {
        self.process.is_usable()
            && self.limits == limits
            && self.process.open_vms() < VMS_PER_PROCESS
    }

    fn has_free_executor(&self) -> bool {
        self.process.commands_in_flight() < self.executors
    }
}

pub struct Group {
    /// `None` for a session's private group.
    name: Option<String>,
    held: Mutex<Vec<Held>>,
    /// The group's start ahead: `NO_START`, `QUEUED` (a worker may take it over) or
    /// `RUNNING` (it ends soon: a spawn, not a boot).
    start: AtomicU8,
    /// Notified under `held`'s lock when a start under way ends.
    started: Condvar,
    /// Set by `release`: a start that ends after it holds nothing (its process ends).
    released: AtomicBool,
    /// Told once the start ahead's process is ready, or the start ends without one.
    booting: Mutex<Vec<Waiter>>,
    /// The hub serving its processes: that of the Node env it was made on, if any.
    hub: super::poller::HubRef,
}

/// Where a new VM goes: an existing process, or a new one to start.
enum Placement {
    Existing(Arc<SandboxProcess>),
    Start,
}

impl Group {
    pub fn new(name: Option<String>) -> Group {
        Group {
            name,
            held: Mutex::new(Vec::new()),
            start: AtomicU8::new(NO_START),
            started: Condvar::new(),
            released: AtomicBool::new(false),
            booting: Mutex::new(Vec::new()),
            hub: super::poller::current(),
        }
    }

    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// A VM for a session with these limits; `executors` is what a new process gets, and
    /// `make_room` ends an idle process elsewhere when the process cap is reached.
    pub fn new_vm(
        &self,
        limits: ProcessLimits,
        executors: usize,
        make_room: &dyn Fn(),
    ) -> Result<RemoteVm, String> {
        let placed = self.place(limits, executors, make_room);
        // Cells waiting for the group's start (queued, or taken over here) now wait for
        // the process this VM went to, or are told there is none.
        self.hand_over_booting(placed.as_ref().ok().map(RemoteVm::process));
        placed
    }

    fn place(
        &self,
        limits: ProcessLimits,
        executors: usize,
        make_room: &dyn Fn(),
    ) -> Result<RemoteVm, String> {
        // One retry: the first try may find the process cap reached, and an idle process
        // elsewhere can be ended for room (outside this group's lock: it takes others').
        for attempt in 0..2 {
            let mut held = self.held.lock();
            // A cell that reaches a worker after its session closed: a process started for
            // it would be held by nobody's group and linger until the idle sweep.
            if self.released.load(Ordering::SeqCst) {
                return Err(crate::error::messages::SESSION_CLOSED.to_string());
            }
            // A start ahead (`prestart`, begun with the cell's call) is this VM's process:
            // wait for one spawning; take over one still queued.
            while choose(&held, limits).is_none() {
                match self.start.load(Ordering::SeqCst) {
                    RUNNING => self.started.wait(&mut held),
                    QUEUED => {
                        if self.take_over_start() {
                            break;
                        }
                    }
                    _ => break,
                }
            }
            self.forget_ended(&mut held);
            let placement = match choose(&held, limits) {
                Some(process) => Placement::Existing(process),
                None if capacity::reserve() => Placement::Start,
                None => match least_busy(&held, limits) {
                    Some(process) => Placement::Existing(process),
                    None if attempt == 0 => {
                        drop(held);
                        make_room();
                        continue;
                    }
                    None => return Err(capacity::full_message()),
                },
            };
            let process = match placement {
                Placement::Existing(process) => process,
                Placement::Start => match capacity::start(executors, limits, self.hub.as_ref()) {
                    Ok(process) => {
                        held.push(Held {
                            process: process.clone(),
                            limits,
                            executors,
                            idle_since: None,
                            ahead: None,
                        });
                        process
                    }
                    Err(error) => {
                        capacity::unreserve(1);
                        return Err(error);
                    }
                },
            };
            if let Some(entry) = held.iter_mut().find(|h| Arc::ptr_eq(&h.process, &process)) {
                entry.idle_since = None;
                entry.ahead = None;
            }
            return Ok(RemoteVm::new(process));
        }
        Err(capacity::full_message())
    }

    /// Starts a process for a VM with these limits on the starter thread if none held
    /// would take the VM and none is starting, so a burst of new sessions' first cells
    /// boots its processes side by side, not one per pool worker at a time. Never waits:
    /// it runs on the Node thread, and a busy group is already placing a VM itself.
    pub fn prestart(self: &Arc<Self>, limits: ProcessLimits, executors: usize) {
        let Some(mut held) = self.held.try_lock() else {
            return;
        };
        self.forget_ended(&mut held);
        if self.released.load(Ordering::SeqCst)
            || self.start.load(Ordering::SeqCst) != NO_START
            || choose(&held, limits).is_some()
            || !capacity::reserve()
        {
            return;
        }
        self.start.store(QUEUED, Ordering::SeqCst);
        drop(held);
        let (asked, group) = (self.clone(), self.clone());
        let queued = starter::run(starter::Job {
            wanted: Box::new(move || asked.start.load(Ordering::SeqCst) == QUEUED),
            run: Box::new(move |ahead| group.finish_start(limits, executors, ahead)),
        });
        if !queued {
            let _held = self.held.lock();
            self.take_over_start();
        }
    }

    /// Under `held`'s lock: cancels a start still queued (true), giving back its place
    /// under the cap; the caller starts the process itself (its waiters move to the
    /// process the VM goes to, in `new_vm`).
    fn take_over_start(&self) -> bool {
        let cancelled = self
            .start
            .compare_exchange(QUEUED, NO_START, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
        if cancelled {
            capacity::unreserve(1);
        }
        cancelled
    }

    /// The starter thread's half of `prestart`. A failed start holds nothing: the cell's
    /// own attempt then reports why.
    fn finish_start(&self, limits: ProcessLimits, executors: usize, ahead: Ahead) {
        let claimed =
            self.start
                .compare_exchange(QUEUED, RUNNING, Ordering::SeqCst, Ordering::SeqCst);
        if claimed.is_err() {
            return;
        }
        let started = catch_unwind(AssertUnwindSafe(|| {
            capacity::start(executors, limits, self.hub.as_ref())
        }))
        .unwrap_or_else(|_| Err("the sandbox start panicked".into()));
        let mut held = self.held.lock();
        self.start.store(NO_START, Ordering::SeqCst);
        match started {
            Ok(process) if !self.released.load(Ordering::SeqCst) => {
                self.hand_over_booting(Some(&process));
                held.push(Held {
                    process,
                    limits,
                    executors,
                    idle_since: None,
                    ahead: Some(ahead),
                });
            }
            // Dropping a process nobody holds ends it.
            _ => {
                self.hand_over_booting(None);
                capacity::unreserve(1);
            }
        }
        self.started.notify_all();
    }

    /// Lets go of every process (a private group's session closed): each ends when its last
    /// VM is released.
    pub fn release(&self) {
        self.released.store(true, Ordering::SeqCst);
        let released = std::mem::take(&mut *self.held.lock());
        self.hand_over_booting(None);
        capacity::unreserve(released.len());
    }

    /// Ends processes that held no VM for `settings.idle`; true if the group holds none now.
    pub fn sweep(&self, now: Instant, settings: &Settings) -> bool {
        let mut held = self.held.lock();
        self.forget_ended(&mut held);
        let before = held.len();
        held.retain_mut(|entry| {
            if !is_idle(entry) {
                entry.idle_since = None;
                return true;
            }
            let since = *entry.idle_since.get_or_insert(now);
            now.duration_since(since) < settings.idle
        });
        capacity::unreserve(before - held.len());
        held.is_empty()
    }

    /// Since when the longest-idle process here has held no VM (`now` if a sweep has not
    /// seen it idle yet), if one holds none.
    pub fn oldest_idle(&self, now: Instant) -> Option<Instant> {
        let held = self.held.lock();
        held.iter()
            .filter(|entry| is_idle(entry))
            .map(|entry| entry.idle_since.unwrap_or(now))
            .min()
    }

    /// Ends an idle process that has been idle since `since` or earlier.
    pub fn end_idle_since(&self, since: Instant, now: Instant) -> bool {
        let mut held = self.held.lock();
        let Some(index) = held
            .iter()
            .position(|entry| is_idle(entry) && entry.idle_since.unwrap_or(now) <= since)
        else {
            return false;
        };
        held.swap_remove(index);
        capacity::unreserve(1);
        true
    }

    /// Processes held now (stats and tests).
    pub fn processes(&self) -> Vec<Arc<SandboxProcess>> {
        self.held.lock().iter().map(|h| h.process.clone()).collect()
    }

    fn forget_ended(&self, held: &mut Vec<Held>) {
        let before = held.len();
        held.retain(|entry| entry.process.is_usable());
        capacity::unreserve(before - held.len());
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        capacity::unreserve(self.held.get_mut().len());
    }
}

fn is_idle(entry: &Held) -> bool {
    entry.process.open_vms() == 0 && entry.process.commands_in_flight() == 0
}

/// The first process that fits and has an executor free: VMs pack into few processes, so
/// the rest can go idle and end.
fn choose(held: &[Held], limits: ProcessLimits) -> Option<Arc<SandboxProcess>> {
    held.iter()
        .find(|entry| entry.fits(limits) && entry.has_free_executor())
        .map(|entry| entry.process.clone())
}

/// At the process cap: the fitting process with the fewest commands running.
fn least_busy(held: &[Held], limits: ProcessLimits) -> Option<Arc<SandboxProcess>> {
    held.iter()
        .filter(|entry| entry.fits(limits))
        .min_by_key(|entry| entry.process.commands_in_flight())
        .map(|entry| entry.process.clone())
}
