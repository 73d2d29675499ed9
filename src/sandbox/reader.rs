//! One sandbox process as its hub serves it (on a Node thread or the poller thread): routes each whole frame to its VM,
//! kills the process for a frame it was not asked for or an input it stopped reading, then
//! reaps it without waiting (`WNOHANG`; the poller retries) and records how it ended.

use super::inbox::{Filled, Inbox};
use super::shared::{Shared, LIVE_PROCESSES};
use super::wire::FromChild;
use std::process::Child;
use std::sync::atomic::Ordering;
use std::sync::Arc;

pub(super) struct Reader {
    shared: Arc<Shared>,
    inbox: Inbox,
    child: Child,
}

impl Reader {
    pub(super) fn new(shared: Arc<Shared>, child: Child, max_frame: usize) -> Reader {
        Reader {
            shared,
            inbox: Inbox::new(max_frame),
            child,
        }
    }

    pub(super) fn shared(&self) -> &Shared {
        &self.shared
    }

    /// Reads (at most `reads` times) and routes what arrived; `Ok(false)` at the end of
    /// the output, `Err` names what the process did that it must be killed for.
    #[cfg(unix)]
    pub(super) fn read(&mut self, scratch: &mut [u8], reads: usize) -> Result<bool, String> {
        let filled = self
            .inbox
            .fill(self.shared.outbox.fd(), scratch, reads)
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
            FromChild::Fatal { message } => {
                // Why it cannot start, for the death message; only the first counts.
                let _ = self.shared.fatal.set(super::death::clip(message));
                return Ok(());
            }
            FromChild::Ready => {
                if self.shared.boot.ready() {
                    return Ok(());
                }
                return Err("broke the protocol (a second Ready)".into());
            }
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

    /// Whether the process stopped reading its input: bytes wait and the socket takes none.
    pub(super) fn judge(&self) -> Option<String> {
        let (bytes, stalled) = self.shared.outbox.waiting()?;
        super::liveness::stalled(stalled, self.shared.pid).then(|| {
            format!(
                "stopped reading its input ({bytes} bytes waited {} s)",
                stalled / 1_000_000_000
            )
        })
    }

    /// The process is done with (its output ended, or it is killed for `violation`): it is
    /// killed (one that closed its output but lives on ends here) and its socket closed.
    /// Its hub stopped watching the socket first.
    pub(super) fn end(&mut self, violation: Option<String>) {
        match violation {
            Some(what) => self.shared.violate(what),
            None => self.shared.signal_kill(),
        }
        self.shared.outbox.release();
    }

    /// Reaps the killed process if it has ended, without waiting; true once reaped, when
    /// every run it held has been told how it ended.
    pub(super) fn try_reap(&mut self) -> bool {
        let how = {
            let mut unreaped = self.shared.unreaped.lock();
            let status = match self.child.try_wait() {
                Ok(None) => return false,
                Ok(Some(status)) => Ok(status),
                Err(error) => Err(error),
            };
            // Reaped (or lost to an error): its pid may be reused from now on.
            *unreaped = false;
            super::death::describe(&self.shared, status)
        };
        let _ = self.shared.death.set(how);
        self.shared.boot.gone();
        self.shared.commands.lock().clear();
        // Dropping the routes disconnects every VM still waiting.
        let routes = std::mem::take(&mut *self.shared.routes.lock());
        drop(routes);
        LIVE_PROCESSES.fetch_sub(1, Ordering::SeqCst);
        true
    }
}
