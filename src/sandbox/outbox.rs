//! The addon's writes to one sandbox, which never block: a frame goes straight into the
//! socket while it has room, and what does not fit waits in a bounded backlog that the
//! poller thread flushes as the socket drains. Frames are never interleaved.

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
    /// In the socket, or waiting in the backlog for the poller thread to flush.
    Accepted,
    /// The backlog is full: the sandbox has stopped reading.
    Overflow,
    /// The socket is closed (the sandbox ended or closed its input), or the input ended.
    Closed,
}

/// Called when the backlog becomes non-empty: the poller must watch for room.
pub type OnBacklog = Box<dyn Fn() + Send + Sync>;

pub struct Outbox {
    /// Only the poller thread closes it (`release`), after it stopped watching it.
    #[cfg(unix)]
    fd: std::os::fd::RawFd,
    state: Mutex<Backlog>,
    on_backlog: OnBacklog,
}

#[derive(Default)]
struct Backlog {
    bytes: VecDeque<u8>,
    /// When the backlog last got shorter, or became non-empty.
    progress_ns: u64,
    closed: bool,
    /// `close_input` was asked: the input ends once the backlog is through.
    ending: bool,
    /// The socket, until the poller releases it.
    #[cfg(unix)]
    socket: Option<std::os::fd::OwnedFd>,
}

impl Outbox {
    /// Takes the gateway's end of the sandbox's socket and makes it non-blocking.
    #[cfg(unix)]
    pub fn new(socket: std::os::fd::OwnedFd, on_backlog: OnBacklog) -> io::Result<Outbox> {
        super::socket::set_nonblocking(&socket)?;
        Ok(Outbox {
            fd: std::os::fd::AsRawFd::as_raw_fd(&socket),
            state: Mutex::new(Backlog {
                socket: Some(socket),
                ..Backlog::default()
            }),
            on_backlog,
        })
    }

    /// Queues or writes one whole frame; never waits for the sandbox.
    pub fn send(&self, frame: &[u8]) -> Sent {
        let mut state = self.state.lock();
        if state.closed || state.ending {
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
            (self.on_backlog)();
            return Sent::Accepted;
        }
        if state.bytes.len().saturating_add(rest.len()) > BACKLOG_CAP {
            return Sent::Overflow;
        }
        state.bytes.extend(rest);
        Sent::Accepted
    }

    /// The poller thread's turn: writes what the socket takes. `Err` once it is closed.
    pub fn flush(&self) -> io::Result<()> {
        let mut state = self.state.lock();
        if state.closed {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
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
            // Let go of a large frame's memory once it is through: an idle sandbox's
            // backlog costs nothing, whatever it once held.
            state.bytes = VecDeque::new();
            if state.ending {
                state.closed = true;
                #[cfg(unix)]
                if let Some(socket) = &state.socket {
                    super::socket::shut_down_writes(socket);
                }
            }
        }
        Ok(())
    }

    /// Ends the sandbox's input once what waits is through: it exits at the end of its
    /// input. Later sends are refused.
    pub fn close_input(&self) {
        let mut state = self.state.lock();
        state.ending = true;
        let empty = state.bytes.is_empty();
        drop(state);
        if empty {
            let _ = self.flush();
        }
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

    /// The socket's number, valid until `release`: only the poller thread reads it.
    #[cfg(unix)]
    pub fn fd(&self) -> i32 {
        self.fd
    }

    /// Closes the socket; the poller's call, once it no longer watches it.
    pub fn release(&self) {
        let mut state = self.state.lock();
        state.closed = true;
        state.bytes = VecDeque::new();
        #[cfg(unix)]
        drop(state.socket.take());
    }

    /// One non-blocking write; 0 when the socket is full. Called under the state lock, so
    /// the socket is open (`closed` is set before it is released).
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
        // `sleep` never reads its input: the socket fills and the backlog takes the rest.
        let (gateway, end) = crate::sandbox::socket::pair().unwrap();
        let mut child = Command::new("sleep")
            .arg("30")
            .stdin(Stdio::from(end))
            .spawn()
            .unwrap();
        let outbox = Outbox::new(gateway, Box::new(|| {})).unwrap();
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
        // Nothing drains: a full backlog keeps refusing (a socket took a first write of
        // its own size, so the room left is not a whole chunk).
        assert_eq!(outbox.send(&frame[..1 << 16]), Sent::Overflow);
        let (waiting, _) = outbox.waiting().unwrap();
        assert!(waiting <= (1 << 20) + BACKLOG_CAP);
        let _ = child.kill();
        let _ = child.wait();
        assert!(outbox.flush().is_err(), "a dead reader closes the socket");
        assert_eq!(outbox.send(b"x"), Sent::Closed);
    }
}
