//! A sandbox process's reader thread: polls its output, the addon's backlog for its input
//! and a waker; routes each whole frame to its VM; kills the process for a frame it was
//! not asked for or an input it stopped reading; then reaps it.

use super::inbox::{Filled, Inbox};
use super::shared::{Shared, LIVE_PROCESSES};
use super::wire::FromChild;
use std::process::{Child, ChildStderr, ChildStdout};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// How often the reader looks at a process whose input has bytes waiting.
const CHECK_MS: i32 = 250;

pub(super) struct Reader {
    shared: Arc<Shared>,
    inbox: Inbox,
}

impl Reader {
    pub(super) fn new(shared: Arc<Shared>, max_frame: usize) -> Reader {
        Reader {
            shared,
            inbox: Inbox::new(max_frame),
        }
    }

    /// Serves the process until it ends or is killed, then reaps it and records how it
    /// ended. Dropping the routes disconnects every VM still waiting.
    pub(super) fn run(mut self, mut child: Child, output: ChildStdout, errors: ChildStderr) {
        #[cfg(unix)]
        if let Err(error) = super::waker::set_nonblocking(&output) {
            self.shared.violate(format!("could not be read ({error})"));
        }
        if self.shared.violation.get().is_none() {
            self.serve(&output);
        }
        let how = {
            let mut unreaped = self.shared.unreaped.lock();
            // A process that closed its output but lives on (it should not) ends here.
            let _ = child.kill();
            let status = child.wait();
            *unreaped = false;
            super::death::describe(&self.shared, status, &errors)
        };
        self.shared.outbox.close();
        let _ = self.shared.death.set(how);
        self.shared.commands.lock().clear();
        let routes = std::mem::take(&mut *self.shared.routes.lock());
        drop(routes);
        LIVE_PROCESSES.fetch_sub(1, Ordering::SeqCst);
    }

    #[cfg(unix)]
    fn serve(&mut self, output: &ChildStdout) {
        use std::os::fd::AsRawFd;
        let output = output.as_raw_fd();
        loop {
            let writing = self.shared.outbox.waiting().is_some();
            let mut fds = [
                poll_fd(output, libc::POLLIN),
                poll_fd(self.shared.outbox.waker().fd(), libc::POLLIN),
                // Only while writing: a closed pipe reports an error at every poll.
                poll_fd(
                    if writing { self.shared.outbox.fd() } else { -1 },
                    libc::POLLOUT,
                ),
            ];
            // SAFETY: `fds` is a valid array of three pollfd for the call.
            let ready =
                unsafe { libc::poll(fds.as_mut_ptr(), 3, if writing { CHECK_MS } else { -1 }) };
            if ready < 0
                && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
            {
                self.shared.violate("could not be polled".into());
                return;
            }
            if fds[1].revents != 0 {
                self.shared.outbox.waker().drain();
            }
            if fds[2].revents != 0 {
                // A closed input shows as a failed write: sends fail from then on, and
                // a command left waiting is judged below.
                let _ = self.shared.outbox.flush();
            }
            if fds[0].revents != 0 {
                match self.read(output) {
                    Ok(true) => {}
                    Ok(false) => return,
                    Err(what) => {
                        self.shared.violate(what);
                        return;
                    }
                }
            }
            if let Some(what) = self.judge() {
                self.shared.violate(what);
                return;
            }
        }
    }

    #[cfg(not(unix))]
    fn serve(&mut self, _output: &ChildStdout) {}

    /// Reads and routes what arrived; `Ok(false)` at the end of the output.
    #[cfg(unix)]
    fn read(&mut self, output: i32) -> Result<bool, String> {
        let filled = self
            .inbox
            .fill(output)
            .map_err(|error| format!("broke the protocol (its output failed: {error})"))?;
        while let Some(frame) = self
            .inbox
            .next_frame()
            .map_err(|what| format!("broke the protocol ({what})"))?
        {
            self.shared.frames.fetch_add(1, Ordering::SeqCst);
            self.route(&frame)?;
        }
        Ok(filled != Filled::End)
    }

    /// Hands one frame to its VM's route, after checking it was asked for.
    fn route(&self, frame: &[u8]) -> Result<(), String> {
        let message: FromChild = serde_json::from_slice(frame).map_err(|error| {
            format!(
                "broke the protocol (a malformed frame: {})",
                super::death::clip(&error.to_string())
            )
        })?;
        let (vm, answer) = match &message {
            FromChild::Bridge { vm, .. } => (*vm, false),
            FromChild::Done { vm, .. } => (*vm, true),
        };
        if vm == 0 || vm > self.shared.issued_vms.load(Ordering::SeqCst) {
            return Err(format!(
                "broke the protocol (a message for VM {vm}, which was never opened)"
            ));
        }
        let mut commands = self.shared.commands.lock();
        let asked = if answer {
            commands.remove(&vm)
        } else {
            commands.contains(&vm)
        };
        drop(commands);
        if !asked {
            // A released VM's stray message is dropped; any other is not the protocol.
            if !self.shared.routes.lock().contains_key(&vm) {
                return Ok(());
            }
            let what = if answer {
                "an answer to no command"
            } else {
                "a request outside a command"
            };
            return Err(format!("broke the protocol ({what} for VM {vm})"));
        }
        // Not under the lock: a route may call into the session, which may open a VM.
        let route = self.shared.routes.lock().get(&vm).cloned();
        let Some(route) = route else { return Ok(()) };
        // A panic in a route is a bug; the process is ended as if it had crashed, rather
        // than left with nobody reading it.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| route(message)))
            .map_err(|_| "was dropped after a fault in the addon".to_owned())
    }

    /// Whether the process stopped reading its input: bytes wait and the pipe takes none.
    fn judge(&self) -> Option<String> {
        let (bytes, stalled) = self.shared.outbox.waiting()?;
        super::liveness::stalled(stalled, self.shared.pid).then(|| {
            format!(
                "stopped reading its input ({bytes} bytes waited {} s)",
                stalled / 1_000_000_000
            )
        })
    }
}

#[cfg(unix)]
fn poll_fd(fd: i32, events: i16) -> libc::pollfd {
    libc::pollfd {
        fd,
        events,
        revents: 0,
    }
}
