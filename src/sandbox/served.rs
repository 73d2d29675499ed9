//! The sandbox processes one hub serves, turned by whichever thread holds them: routes
//! whole frames, flushes backlogs when a socket has room, kills a process that broke the
//! protocol or stopped reading, and reaps killed ones. A socket is unwatched before closed.

use super::reader::Reader;
use polling::{Event, PollMode, Poller};
use std::collections::{HashMap, HashSet};
use std::os::fd::BorrowedFd;

/// What a turn may read: the hub's own thread reads more per socket than a Node thread,
/// whose loop must come back to its timers and other I/O soon.
#[derive(Clone, Copy)]
pub(super) struct Budget {
    /// Reads (of `inbox::READ_CHUNK` bytes at most) per ready socket.
    pub reads: usize,
}

pub(super) struct Served {
    readers: HashMap<usize, Reader>,
    /// Processes whose socket is watched for room as well.
    writing: HashSet<usize>,
    /// Killed, their sockets closed, not yet reaped.
    dying: Vec<Reader>,
    scratch: Vec<u8>,
}

impl Served {
    pub(super) fn new() -> Served {
        Served {
            readers: HashMap::new(),
            writing: HashSet::new(),
            dying: Vec::new(),
            scratch: Vec::new(),
        }
    }

    pub(super) fn is_dying(&self) -> bool {
        !self.dying.is_empty()
    }

    pub(super) fn is_writing(&self) -> bool {
        !self.writing.is_empty()
    }

    pub(super) fn is_serving(&self) -> bool {
        !self.readers.is_empty()
    }

    /// One turn: admits `incoming`, flushes `backlogged`, serves the `ready` sockets
    /// (key, readable, writable), judges stalled writers and reaps what ended.
    pub(super) fn turn(
        &mut self,
        poller: &Poller,
        incoming: Vec<(usize, Reader)>,
        backlogged: Vec<usize>,
        ready: &[(usize, bool, bool)],
        budget: Budget,
    ) {
        for (key, reader) in incoming {
            self.admit(poller, key, reader);
        }
        for key in backlogged {
            self.flush(poller, key);
        }
        for &(key, readable, writable) in ready {
            if writable {
                self.flush(poller, key);
            }
            if readable {
                self.read(poller, key, budget);
            }
        }
        let stalled: Vec<(usize, String)> = self
            .writing
            .iter()
            .filter_map(|key| Some((*key, self.readers.get(key)?.judge()?)))
            .collect();
        for (key, what) in stalled {
            self.finish(poller, key, Some(what));
        }
        self.dying.retain_mut(|reader| !reader.try_reap());
        if self.readers.is_empty() {
            // An idle hub keeps no read buffer.
            self.scratch = Vec::new();
        }
    }

    fn admit(&mut self, poller: &Poller, key: usize, reader: Reader) {
        let fd = reader.shared().outbox.fd();
        // SAFETY: the socket stays open while watched: only `finish` closes it (through
        // `Reader::end`), after deleting it from the poller.
        let added = unsafe { poller.add_with_mode(fd, Event::readable(key), PollMode::Level) };
        self.readers.insert(key, reader);
        if added.is_err() {
            self.finish(poller, key, Some("could not be polled".into()));
            return;
        }
        // Bytes may have started to wait before it was watched.
        self.flush(poller, key);
    }

    /// Writes what the socket takes, and watches it for room while bytes still wait.
    fn flush(&mut self, poller: &Poller, key: usize) {
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
        if poller
            .modify_with_mode(fd, interest, PollMode::Level)
            .is_err()
        {
            self.finish(poller, key, Some("could not be polled".into()));
            return;
        }
        if waiting {
            self.writing.insert(key);
        } else {
            self.writing.remove(&key);
        }
    }

    fn read(&mut self, poller: &Poller, key: usize, budget: Budget) {
        let Some(reader) = self.readers.get_mut(&key) else {
            return;
        };
        if self.scratch.is_empty() {
            self.scratch = vec![0; super::inbox::READ_CHUNK];
        }
        match reader.read(&mut self.scratch, budget.reads) {
            Ok(true) => {}
            Ok(false) => self.finish(poller, key, None),
            Err(what) => self.finish(poller, key, Some(what)),
        }
    }

    /// Stops serving process `key`, kills it (for `violation`, if any) and reaps it now
    /// or on a later turn.
    fn finish(&mut self, poller: &Poller, key: usize, violation: Option<String>) {
        self.writing.remove(&key);
        let Some(mut reader) = self.readers.remove(&key) else {
            return;
        };
        // SAFETY: still open: `end` below closes it.
        let fd = unsafe { BorrowedFd::borrow_raw(reader.shared().outbox.fd()) };
        let _ = poller.delete(fd);
        reader.end(violation);
        if !reader.try_reap() {
            self.dying.push(reader);
        }
    }
}
