//! The addon's writes to one sandbox, which never block: a frame goes straight into the
//! pipe while it has room, and what does not fit waits in a bounded backlog that the
//! process's reader thread flushes as the pipe drains. Frames are never interleaved.

use crate::runtime::clock::now_ns;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::io;

/// Bytes that may wait behind a frame already queued. One frame of any size may wait
/// alone (it is the gateway's own message), so a large tool result still goes through.
pub const BACKLOG_CAP: usize = 8 << 20;

/// What became of a frame handed to [`Outbox::send`].
#[derive(Debug, PartialEq, Eq)]
pub enum Sent {
    /// In the pipe, or waiting in the backlog for the reader thread to flush.
    Accepted,
    /// The backlog is full: the sandbox has stopped reading.
    Overflow,
    /// The pipe is closed (the sandbox ended or closed its input).
    Closed,
}

pub struct Outbox {
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
    state: Mutex<Backlog>,
    waker: super::waker::Waker,
}

#[derive(Default)]
struct Backlog {
    bytes: VecDeque<u8>,
    /// When the backlog last got shorter, or became non-empty.
    progress_ns: u64,
    closed: bool,
}

impl Outbox {
    /// Takes the write end of the sandbox's input and makes it non-blocking.
    #[cfg(unix)]
    pub fn new(input: std::process::ChildStdin) -> io::Result<Outbox> {
        let fd = std::os::fd::OwnedFd::from(input);
        super::waker::set_nonblocking(&fd)?;
        Ok(Outbox {
            fd,
            state: Mutex::new(Backlog::default()),
            waker: super::waker::Waker::new()?,
        })
    }

    /// Queues or writes one whole frame; never waits for the sandbox.
    pub fn send(&self, frame: &[u8]) -> Sent {
        let mut state = self.state.lock();
        if state.closed {
            return Sent::Closed;
        }
        let mut rest = frame;
        if state.bytes.is_empty() {
            match self.write_some(rest) {
                Ok(written) => rest = &rest[written..],
                Err(_) => {
                    state.closed = true;
                    return Sent::Closed;
                }
            }
            if rest.is_empty() {
                return Sent::Accepted;
            }
            state.progress_ns = now_ns();
            state.bytes.extend(rest);
            drop(state);
            self.waker.wake();
            return Sent::Accepted;
        }
        if state.bytes.len().saturating_add(rest.len()) > BACKLOG_CAP {
            return Sent::Overflow;
        }
        state.bytes.extend(rest);
        Sent::Accepted
    }

    /// The reader thread's turn: writes what the pipe takes. `Err` once the pipe is closed.
    pub fn flush(&self) -> io::Result<()> {
        let mut state = self.state.lock();
        while !state.bytes.is_empty() {
            let (front, _) = state.bytes.as_slices();
            let written = match self.write_some(front) {
                Ok(written) => written,
                Err(error) => {
                    state.closed = true;
                    state.bytes = VecDeque::new();
                    return Err(error);
                }
            };
            if written == 0 {
                break;
            }
            state.bytes.drain(..written);
            state.progress_ns = now_ns();
        }
        if state.bytes.is_empty() {
            // Let go of a large frame's memory once it is through.
            state.bytes.shrink_to(64 << 10);
        }
        Ok(())
    }

    /// Bytes waiting, and how long the backlog has gone without getting shorter.
    pub fn waiting(&self) -> Option<(usize, u64)> {
        let state = self.state.lock();
        (!state.bytes.is_empty()).then(|| {
            (
                state.bytes.len(),
                now_ns().saturating_sub(state.progress_ns),
            )
        })
    }

    /// Nothing more goes to the sandbox (it is being killed).
    pub fn close(&self) {
        let mut state = self.state.lock();
        state.closed = true;
        state.bytes = VecDeque::new();
    }

    #[cfg(unix)]
    pub fn fd(&self) -> i32 {
        std::os::fd::AsRawFd::as_raw_fd(&self.fd)
    }

    pub fn waker(&self) -> &super::waker::Waker {
        &self.waker
    }

    /// One non-blocking write; 0 when the pipe is full.
    #[cfg(unix)]
    fn write_some(&self, bytes: &[u8]) -> io::Result<usize> {
        loop {
            // SAFETY: `bytes` is a valid slice for the call; the fd is ours and open.
            let n = unsafe { libc::write(self.fd(), bytes.as_ptr().cast(), bytes.len()) };
            if n >= 0 {
                return Ok(n as usize);
            }
            let error = io::Error::last_os_error();
            match error.kind() {
                io::ErrorKind::WouldBlock => return Ok(0),
                io::ErrorKind::Interrupted => continue,
                _ => return Err(error),
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    #[test]
    fn a_reader_that_stops_fills_the_backlog_and_never_blocks_the_writer() {
        // `sleep` never reads its input: the pipe fills and the backlog takes the rest.
        let mut child = Command::new("sleep")
            .arg("30")
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let outbox = Outbox::new(child.stdin.take().unwrap()).unwrap();
        let frame = vec![7u8; 1 << 20];
        assert_eq!(
            outbox.send(&frame),
            Sent::Accepted,
            "one large frame may wait"
        );
        let mut accepted = 0;
        while outbox.send(&frame[..1 << 16]) == Sent::Accepted {
            accepted += 1;
            assert!(accepted < 1000, "the backlog is bounded");
        }
        assert_eq!(outbox.send(b"x"), Sent::Overflow);
        let (waiting, _) = outbox.waiting().unwrap();
        assert!(waiting <= (1 << 20) + BACKLOG_CAP);
        let _ = child.kill();
        let _ = child.wait();
        assert!(outbox.flush().is_err(), "a dead reader closes the pipe");
        assert_eq!(outbox.send(b"x"), Sent::Closed);
    }
}
