//! The one thread that serves every sandbox process's socket (epoll or kqueue, through the
//! `polling` crate): it routes whole frames, flushes backlogs when a socket has room and
//! reaps killed processes, and never blocks but in its wait. A socket is unwatched before closed.

use super::outbox::OnBacklog;
use super::reader::Reader;
use parking_lot::Mutex;
use polling::{Event, Events, PollMode, Poller};
use std::collections::{HashMap, HashSet};
use std::io;
use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// How often the poller looks at sockets whose input has bytes waiting (stalled readers).
const CHECK: Duration = Duration::from_millis(250);
/// How soon the poller looks again at a killed process not yet gone: killed processes
/// take a moment to end, and `waitpid` is only ever asked without waiting.
const REAP_RETRY: Duration = Duration::from_millis(5);

/// What other threads hand the poller thread; each push is followed by a wake.
pub(super) struct Hub {
    poller: Poller,
    /// Processes spawned and not yet watched.
    incoming: Mutex<Vec<(usize, Reader)>>,
    /// Processes whose backlog just became non-empty.
    backlogged: Mutex<Vec<usize>>,
    next_key: AtomicUsize,
}

/// The gateway's poller thread, started with the first sandbox process.
pub(super) fn hub() -> io::Result<Arc<Hub>> {
    static HUB: OnceLock<Option<Arc<Hub>>> = OnceLock::new();
    HUB.get_or_init(start)
        .clone()
        .ok_or_else(|| io::Error::other("the sandbox poller thread could not start"))
}

fn start() -> Option<Arc<Hub>> {
    let hub = Arc::new(Hub {
        poller: Poller::new().ok()?,
        incoming: Mutex::new(Vec::new()),
        backlogged: Mutex::new(Vec::new()),
        next_key: AtomicUsize::new(0),
    });
    let served = Served {
        hub: hub.clone(),
        readers: HashMap::new(),
        writing: HashSet::new(),
        dying: Vec::new(),
        scratch: vec![0; super::inbox::READ_CHUNK],
    };
    std::thread::Builder::new()
        .name("codemode-sandbox-poller".into())
        .stack_size(1 << 20)
        .spawn(move || served.run())
        .ok()?;
    Some(hub)
}

impl Hub {
    /// A key for a process about to be watched.
    pub(super) fn key(&self) -> usize {
        self.next_key.fetch_add(1, Ordering::SeqCst)
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
    pub(super) fn watch(&self, key: usize, reader: Reader) {
        self.incoming.lock().push((key, reader));
        self.wake();
    }

    fn wake(&self) {
        // Only fails if the poller itself is broken, which every process then sees.
        let _ = self.poller.notify();
    }
}

/// The poller thread's own state.
struct Served {
    hub: Arc<Hub>,
    readers: HashMap<usize, Reader>,
    /// Processes whose socket is watched for room as well.
    writing: HashSet<usize>,
    /// Killed, their sockets closed, not yet reaped.
    dying: Vec<Reader>,
    scratch: Vec<u8>,
}

impl Served {
    fn run(mut self) -> ! {
        let mut events = Events::new();
        let mut ready = Vec::new();
        loop {
            let timeout = if !self.dying.is_empty() {
                Some(REAP_RETRY)
            } else if !self.writing.is_empty() {
                Some(CHECK)
            } else {
                None
            };
            events.clear();
            if self.hub.poller.wait(&mut events, timeout).is_err() {
                // Not expected; a pause keeps a broken poller from spinning a core.
                std::thread::sleep(REAP_RETRY);
            }
            ready.clear();
            ready.extend(events.iter().map(|e| (e.key, e.readable, e.writable)));
            // A bug here must not leave every sandbox unserved: the turn is dropped.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.turn(&ready)));
        }
    }

    fn turn(&mut self, ready: &[(usize, bool, bool)]) {
        let incoming = std::mem::take(&mut *self.hub.incoming.lock());
        for (key, reader) in incoming {
            self.admit(key, reader);
        }
        let backlogged = std::mem::take(&mut *self.hub.backlogged.lock());
        for key in backlogged {
            self.flush(key);
        }
        for &(key, readable, writable) in ready {
            if writable {
                self.flush(key);
            }
            if readable {
                self.read(key);
            }
        }
        let stalled: Vec<(usize, String)> = self
            .writing
            .iter()
            .filter_map(|key| Some((*key, self.readers.get(key)?.judge()?)))
            .collect();
        for (key, what) in stalled {
            self.finish(key, Some(what));
        }
        self.dying.retain_mut(|reader| !reader.try_reap());
    }

    fn admit(&mut self, key: usize, reader: Reader) {
        let fd = reader.shared().outbox.fd();
        // SAFETY: the socket stays open while watched: only `finish` closes it (through
        // `Reader::end`), after deleting it from the poller.
        let added = unsafe {
            self.hub
                .poller
                .add_with_mode(fd, Event::readable(key), PollMode::Level)
        };
        self.readers.insert(key, reader);
        if added.is_err() {
            self.finish(key, Some("could not be polled".into()));
            return;
        }
        // Bytes may have started to wait before it was watched.
        self.flush(key);
    }

    /// Writes what the socket takes, and watches it for room while bytes still wait.
    fn flush(&mut self, key: usize) {
        let Some(reader) = self.readers.get(&key) else {
            return;
        };
        let outbox = &reader.shared().outbox;
        // A closed socket shows as a failed write: sends fail from then on, and a command
        // left waiting is judged by the thread waiting for it.
        let waiting = outbox.flush().is_ok() && outbox.waiting().is_some();
        if waiting == self.writing.contains(&key) {
            return;
        }
        let interest = if waiting {
            Event::all(key)
        } else {
            Event::readable(key)
        };
        // SAFETY: the socket is open while its reader is in `readers` (see `admit`).
        let fd = unsafe { BorrowedFd::borrow_raw(outbox.fd()) };
        if self
            .hub
            .poller
            .modify_with_mode(fd, interest, PollMode::Level)
            .is_err()
        {
            self.finish(key, Some("could not be polled".into()));
            return;
        }
        if waiting {
            self.writing.insert(key);
        } else {
            self.writing.remove(&key);
        }
    }

    fn read(&mut self, key: usize) {
        let Some(reader) = self.readers.get_mut(&key) else {
            return;
        };
        match reader.read(&mut self.scratch) {
            Ok(true) => {}
            Ok(false) => self.finish(key, None),
            Err(what) => self.finish(key, Some(what)),
        }
    }

    /// Stops serving process `key`, kills it (for `violation`, if any) and reaps it now
    /// or on a later turn.
    fn finish(&mut self, key: usize, violation: Option<String>) {
        self.writing.remove(&key);
        let Some(mut reader) = self.readers.remove(&key) else {
            return;
        };
        // SAFETY: still open: `end` below closes it.
        let fd = unsafe { BorrowedFd::borrow_raw(reader.shared().outbox.fd()) };
        let _ = self.hub.poller.delete(fd);
        reader.end(violation);
        if !reader.try_reap() {
            self.dying.push(reader);
        }
    }
}
