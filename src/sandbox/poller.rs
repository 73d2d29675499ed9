//! Hubs serve sandbox processes' sockets (epoll or kqueue, through `polling`): one per Node
//! environment, turned by its event loop (a libuv poll handle on the hub's fd), so a tool
//! call wakes only that thread; and the gateway's own, turned by the poller thread, which
//! also keeps the env hubs: reaps, judges stalled writers, and serves what a busy Node
//! thread left waiting. Every turn is bounded and never blocks but in the poller's wait.

use super::outbox::OnBacklog;
use super::reader::Reader;
use super::served::{Budget, Served};
use parking_lot::Mutex;
use polling::{Event, Events, PollMode, Poller};
use std::cell::RefCell;
use std::io;
use std::num::NonZeroUsize;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// How often the poller looks at sockets whose input has bytes waiting (stalled readers).
const CHECK: Duration = Duration::from_millis(250);
/// How soon the poller looks again at a killed process not yet gone: killed processes
/// take a moment to end, and `waitpid` is only ever asked without waiting.
const REAP_RETRY: Duration = Duration::from_millis(5);
/// How often the poller thread looks at env hubs with processes: input left unserved
/// since its last look (the Node thread is busy) it serves itself, so a busy Node thread
/// stalls no turn waiting on a pool worker and trips no sandbox's liveness judgement.
const FALLBACK: Duration = Duration::from_millis(50);
/// What a Node thread's turn takes: a few sockets, one read each, then back to the loop
/// (the poll handle is level-triggered, so what is left calls it again).
const NODE_TURN: Budget = Budget { reads: 1 };
const NODE_EVENTS: usize = 32;
/// The poller thread's turn.
const THREAD_TURN: Budget = Budget { reads: 4 };
/// The gateway poller's key for orphaned env hubs' fds: process keys count up from 0, and
/// `polling` refuses `usize::MAX` (its notifier's).
const ORPHANS: usize = usize::MAX - 1;

/// What a hub's turns leave to do, for the poller thread's wait (`needs`).
const DYING: u8 = 1;
const WRITING: u8 = 2;
const SERVING: u8 = 4;

/// A sandbox group's choice of hub: `None` for the gateway's.
pub type HubRef = Option<Arc<Hub>>;

static NEXT_KEY: AtomicUsize = AtomicUsize::new(0);

pub struct Hub {
    poller: Poller,
    /// Processes spawned and not yet watched.
    incoming: Mutex<Vec<(usize, Reader)>>,
    /// Processes whose backlog just became non-empty.
    backlogged: Mutex<Vec<usize>>,
    served: Mutex<Served>,
    /// Turns taken: the poller thread serves an env hub's input only if none was taken
    /// since its last look.
    turns: AtomicU64,
    needs: AtomicU8,
    /// Turned by a Node thread (until orphaned), not by the poller thread.
    env: bool,
    /// The env hub's Node environment is gone: the poller thread serves it from now on.
    orphaned: AtomicBool,
    /// The poller thread keeps it (it has had a process), and so must let it go.
    kept: AtomicBool,
}

/// The gateway: its own hub, and the env hubs it keeps.
struct Gateway {
    hub: Arc<Hub>,
    envs: Mutex<Vec<Kept>>,
}

struct Kept {
    /// Held until its env is gone and it serves nothing: an orphaned hub's processes are
    /// still to be reaped, whoever else let it go.
    hub: Arc<Hub>,
    /// At the last look: the hub's turns, and whether input waited.
    turns: u64,
    ready: bool,
    /// Whether its fd is in the gateway's poller (orphaned).
    nested: bool,
}

fn gateway() -> io::Result<&'static Gateway> {
    static GATEWAY: OnceLock<Option<Gateway>> = OnceLock::new();
    GATEWAY
        .get_or_init(start)
        .as_ref()
        .ok_or_else(|| io::Error::other("the sandbox poller thread could not start"))
}

fn start() -> Option<Gateway> {
    let gateway = Gateway {
        hub: Arc::new(Hub::new(false).ok()?),
        envs: Mutex::new(Vec::new()),
    };
    std::thread::Builder::new()
        .name("codemode-sandbox-poller".into())
        .stack_size(1 << 20)
        .spawn(run)
        .ok()?;
    Some(gateway)
}

thread_local! {
    /// The hub of the Node environment on this thread, once it has one.
    static CURRENT: RefCell<Option<Arc<Hub>>> = const { RefCell::new(None) };
}

/// The hub a new sandbox group on this thread uses: its Node env's, else the gateway's.
pub(super) fn current() -> HubRef {
    CURRENT.with(|current| current.borrow().clone())
}

/// The hub for a process spawned for a group that chose `hub`.
pub(super) fn hub_for(hub: Option<&Arc<Hub>>) -> io::Result<Arc<Hub>> {
    match hub {
        Some(hub) => Ok(hub.clone()),
        None => Ok(gateway()?.hub.clone()),
    }
}

impl Hub {
    fn new(env: bool) -> io::Result<Hub> {
        Ok(Hub {
            poller: Poller::new()?,
            incoming: Mutex::new(Vec::new()),
            backlogged: Mutex::new(Vec::new()),
            served: Mutex::new(Served::new()),
            turns: AtomicU64::new(0),
            needs: AtomicU8::new(0),
            env,
            orphaned: AtomicBool::new(false),
            kept: AtomicBool::new(false),
        })
    }

    /// A hub for the Node environment on this thread, which must turn it (`serve`) when
    /// its fd is readable and `orphan` it before it goes; sandbox groups made on this
    /// thread from now on use it.
    pub fn for_this_env() -> io::Result<Arc<Hub>> {
        let hub = Arc::new(Hub::new(true)?);
        CURRENT.with(|current| *current.borrow_mut() = Some(hub.clone()));
        Ok(hub)
    }

    /// What the Node env's poll handle watches: readable while anything waits.
    pub fn fd(&self) -> RawFd {
        self.poller.as_raw_fd()
    }

    /// Node thread, when `fd` is readable: one bounded turn.
    pub fn serve(&self) {
        let mut served = self.served.lock();
        let ready = match ready_now(self.fd()) {
            Some(ready) => ready,
            None => {
                let Some(capacity) = NonZeroUsize::new(NODE_EVENTS) else {
                    return;
                };
                let mut events = Events::with_capacity(capacity);
                let _ = self.poller.wait(&mut events, Some(Duration::ZERO));
                ready_of(&events)
            }
        };
        self.turn(&mut served, &ready, NODE_TURN);
    }

    /// Node thread, at its env's cleanup: the poller thread serves this hub from now on
    /// (processes of a named group outlive the env that started them).
    pub fn orphan(&self) {
        CURRENT.with(|current| {
            let mut current = current.borrow_mut();
            if current
                .as_ref()
                .is_some_and(|hub| std::ptr::eq(&**hub, self))
            {
                *current = None;
            }
        });
        self.orphaned.store(true, Ordering::SeqCst);
        // Even with nothing left to serve: the poller thread drops it (and its fds).
        if self.kept.load(Ordering::SeqCst) {
            if let Ok(gateway) = gateway() {
                gateway.hub.wake();
            }
        }
    }

    /// A key for a process about to be watched.
    pub(super) fn key(&self) -> usize {
        NEXT_KEY.fetch_add(1, Ordering::SeqCst)
    }

    /// What process `key`'s outbox calls when bytes start to wait.
    pub(super) fn on_backlog(self: &Arc<Self>, key: usize) -> OnBacklog {
        let hub = Arc::downgrade(self);
        Box::new(move || {
            if let Some(hub) = hub.upgrade() {
                hub.backlogged.lock().push(key);
                hub.wake();
            }
        })
    }

    /// Serves the process from now until it is reaped.
    pub(super) fn watch(self: &Arc<Self>, key: usize, reader: Reader) {
        self.incoming.lock().push((key, reader));
        self.wake();
        self.needs.fetch_or(SERVING, Ordering::SeqCst);
        // Once per hub, not on a `needs` bit: a turn racing this one may set that bit first.
        if self.env && !self.kept.swap(true, Ordering::SeqCst) {
            // The poller thread looks in from now on, in case the Node thread is busy.
            if let Ok(gateway) = gateway() {
                gateway.adopt(self);
            }
        }
    }

    fn wake(&self) {
        // Only fails if the poller itself is broken, which every process then sees.
        let _ = self.poller.notify();
    }

    /// `ready`: (key, readable, writable) of each source with something waiting.
    fn turn(&self, served: &mut Served, ready: &[(usize, bool, bool)], budget: Budget) {
        let incoming = std::mem::take(&mut *self.incoming.lock());
        let backlogged = std::mem::take(&mut *self.backlogged.lock());
        // A bug here must not leave every sandbox unserved: the turn is dropped.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            served.turn(&self.poller, incoming, backlogged, ready, budget)
        }));
        self.turns.fetch_add(1, Ordering::SeqCst);
        let flag = |on: bool, bit: u8| if on { bit } else { 0 };
        let needs = flag(served.is_dying(), DYING)
            | flag(served.is_writing(), WRITING)
            | flag(
                served.is_serving() || !self.incoming.lock().is_empty(),
                SERVING,
            );
        let before = self.needs.swap(needs, Ordering::SeqCst);
        if self.env && needs & !before & (DYING | WRITING) != 0 {
            // The poller thread's wait shortens for the reap or the judgement.
            if let Ok(gateway) = gateway() {
                gateway.hub.wake();
            }
        }
    }
}

/// The poller thread: turns the gateway's hub and keeps the env hubs.
fn run() {
    let Ok(gateway) = gateway() else { return };
    let mut events = Events::new();
    loop {
        events.clear();
        if gateway
            .hub
            .poller
            .wait(&mut events, gateway.timeout())
            .is_err()
        {
            // Not expected; a pause keeps a broken poller from spinning a core.
            std::thread::sleep(REAP_RETRY);
        }
        let mut served = gateway.hub.served.lock();
        gateway
            .hub
            .turn(&mut served, &ready_of(&events), THREAD_TURN);
        drop(served);
        gateway.keep();
    }
}

impl Gateway {
    /// Keeps env hub `hub` (once: from its first process on) and looks at it soon.
    fn adopt(&self, hub: &Arc<Hub>) {
        let mut envs = self.envs.lock();
        if !envs.iter().any(|kept| Arc::ptr_eq(&kept.hub, hub)) {
            envs.push(Kept {
                hub: hub.clone(),
                turns: 0,
                ready: false,
                nested: false,
            });
        }
        drop(envs);
        self.hub.wake();
    }

    /// How long the poller thread may wait: until a reap retry, a stall check, or a
    /// look at env hubs with processes, whichever is soonest; for ever if none is due.
    fn timeout(&self) -> Option<Duration> {
        // Its own hub's and nested orphans' input wakes it: no look is due for them.
        let mut needs = self.hub.needs.load(Ordering::SeqCst) & !SERVING;
        for kept in self.envs.lock().iter() {
            let own = kept.hub.needs.load(Ordering::SeqCst);
            // An orphan not yet in this poller (or that could not join it) is looked at.
            needs |= if kept.nested { own & !SERVING } else { own };
        }
        if needs & DYING != 0 {
            Some(REAP_RETRY)
        } else if needs & SERVING != 0 {
            Some(FALLBACK)
        } else if needs & WRITING != 0 {
            Some(CHECK)
        } else {
            None
        }
    }

    /// Looks at each env hub: serves input that waited since the last look with no turn
    /// taken, and every orphaned hub's; reaps and judges otherwise.
    fn keep(&self) {
        let mut envs = self.envs.lock();
        envs.retain(|kept| !self.release(kept));
        for kept in envs.iter_mut() {
            let hub = kept.hub.clone();
            let orphaned = hub.orphaned.load(Ordering::SeqCst);
            if orphaned && !kept.nested {
                // Its input wakes this thread from now on. SAFETY: the hub's poller stays
                // open while the hub is in `envs`, and `release` deletes it first.
                kept.nested = unsafe {
                    self.hub.poller.add_with_mode(
                        hub.fd(),
                        Event::readable(ORPHANS),
                        PollMode::Level,
                    )
                }
                .is_ok();
            }
            let ready = orphaned || readable(hub.fd());
            let turns = hub.turns.load(Ordering::SeqCst);
            let stale = ready && (orphaned || (kept.ready && kept.turns == turns));
            (kept.ready, kept.turns) = (ready, turns);
            let needs = hub.needs.load(Ordering::SeqCst);
            if !stale && needs & (DYING | WRITING) == 0 {
                continue;
            }
            let Some(mut served) = hub.served.try_lock() else {
                continue;
            };
            let mut events = Events::new();
            if stale {
                let _ = hub.poller.wait(&mut events, Some(Duration::ZERO));
            }
            hub.turn(&mut served, &ready_of(&events), THREAD_TURN);
            kept.turns = hub.turns.load(Ordering::SeqCst);
        }
    }

    /// Whether `kept` can go: orphaned, serving nothing, and held by nobody else (so no
    /// process can be added to it).
    fn release(&self, kept: &Kept) -> bool {
        let done = kept.hub.orphaned.load(Ordering::SeqCst)
            && kept.hub.needs.load(Ordering::SeqCst) == 0
            && Arc::strong_count(&kept.hub) == 1
            && kept.hub.incoming.lock().is_empty();
        if done && kept.nested {
            // SAFETY: still open: the hub is dropped after this.
            let fd = unsafe { BorrowedFd::borrow_raw(kept.hub.fd()) };
            let _ = self.hub.poller.delete(fd);
        }
        done
    }
}

fn ready_of(events: &Events) -> Vec<(usize, bool, bool)> {
    events
        .iter()
        .map(|e| (e.key, e.readable, e.writable))
        .collect()
}

/// `polling`'s key for its own notifier and timer fds.
const NOTIFY_KEY: u64 = usize::MAX as u64;

/// What waits in hub poller `fd` now, read from its epoll set directly: a `polling` wait
/// also re-arms its timer and notifier (four syscalls), which the Node thread's turn per
/// frame, so per tool call, would pay. `None` when the notifier fired (a `polling` wait
/// must clear it, or `notify` would stay a no-op) or the read failed: the caller then
/// waits through `polling`. Keys and readiness are read as `polling`'s epoll backend
/// stores them (`data` = key; its read and write flag sets).
#[cfg(target_os = "linux")]
fn ready_now(fd: RawFd) -> Option<Vec<(usize, bool, bool)>> {
    const READ: u32 = (libc::EPOLLIN | libc::EPOLLHUP | libc::EPOLLERR | libc::EPOLLPRI) as u32;
    const WRITE: u32 = (libc::EPOLLOUT | libc::EPOLLHUP | libc::EPOLLERR) as u32;
    let mut raw = [libc::epoll_event { events: 0, u64: 0 }; NODE_EVENTS];
    // SAFETY: `fd` is the hub's open epoll fd and `raw` has room for NODE_EVENTS
    // events; a zero timeout never blocks.
    let n = unsafe { libc::epoll_wait(fd, raw.as_mut_ptr(), NODE_EVENTS as libc::c_int, 0) };
    let n = usize::try_from(n).ok()?;
    let mut ready = Vec::with_capacity(n);
    for event in raw.get(..n)? {
        let (key, flags) = (event.u64, event.events);
        if key == NOTIFY_KEY {
            return None;
        }
        ready.push((key as usize, flags & READ != 0, flags & WRITE != 0));
    }
    Some(ready)
}

#[cfg(not(target_os = "linux"))]
fn ready_now(_fd: RawFd) -> Option<Vec<(usize, bool, bool)>> {
    None
}

/// Whether `fd` (a hub's poller) has something waiting, without taking it.
fn readable(fd: RawFd) -> bool {
    let mut poll = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, no waiting.
    let n = unsafe { libc::poll(&mut poll, 1, 0) };
    n > 0 && poll.revents & libc::POLLIN != 0
}
