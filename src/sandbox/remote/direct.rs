//! Host replies sent straight into a VM's open command (`ToChild::Apply`), exactly once:
//! what the addon sent, what the sandbox's `Done` says it applied, and what waits for the
//! next command (docs/design.md, "A reply goes straight into the command that waits for it").

use super::super::wire::{Step, ToChild};
use super::Link;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Host replies sent straight into a sandbox's open command, in this process: for stats
/// and tests.
pub static DIRECT_REPLIES: AtomicU64 = AtomicU64::new(0);

/// What the addon knows of the `Apply` frames it sent a VM. The sandbox's `Done` says how
/// many it applied; the frames reach it in order, before any later command.
#[derive(Default)]
pub(super) struct OpenTurn {
    /// A command is out (sent, its `Done` not read): answers may go straight to it.
    open: bool,
    /// `Apply` frames sent, ever.
    sent: u64,
    /// Frames sent before the command now out: it applies them all before its steps.
    due: u64,
    /// Sent and not applied when the last `Done` came: the next command applies them.
    unapplied: u64,
    /// Answers that came while the hub's thread was still starting their call, by the
    /// run's bridge id: sent once the call's sandbox id is known.
    early: HashMap<u32, (bool, String)>,
}

impl OpenTurn {
    /// A command goes out: it applies every frame sent so far.
    pub(super) fn open(&mut self) {
        self.open = true;
        self.due = self.sent;
    }

    /// The command's `Done` came, saying `applied` frames were applied so far: later
    /// answers wait for the next command. A count below what the command had to apply or
    /// above what was sent is a protocol violation.
    pub(super) fn close(&mut self, applied: u64) -> Result<(), &'static str> {
        self.open = false;
        if applied < self.due || applied > self.sent {
            return Err("miscounted the host replies sent to it");
        }
        self.unapplied = self.sent - applied;
        Ok(())
    }

    /// The VM is lost: nothing goes to it any more.
    pub(super) fn lose(&mut self) {
        self.open = false;
        self.early.clear();
    }

    /// Replies went to a command that had ended: the sandbox holds them for the next.
    pub(super) fn has_unapplied(&self) -> bool {
        self.unapplied > 0
    }
}

/// The way a host reply reaches a VM's open command without the turn that waits for it:
/// held by the cell, used on the Node thread. Never blocks (the sandbox's writes are
/// queued), and a reply goes exactly once, in an `Apply` frame or in the next command.
#[derive(Clone)]
pub struct DirectLink(pub(super) Arc<Link>);

impl DirectLink {
    /// Whether a command is out now (it may end any time).
    pub fn is_open(&self) -> bool {
        self.0.turn.lock().open
    }

    /// How long the next commands may stay open waiting for host replies.
    pub fn set_linger(&self, linger: Duration) {
        let ns = u64::try_from(linger.as_nanos()).unwrap_or(u64::MAX);
        self.0.linger_ns.store(ns, Ordering::SeqCst);
    }

    /// Answers host call `id` (the run's bridge id) in the open command, with what
    /// `answer` makes of it (`None`: nothing to send), made under the command's lock so
    /// its `Done` cannot be read meanwhile. `None` (and `answer` not called) when no
    /// command is out or a clock change waits for the next; `Some(false)` when the answer waits for the next command (the
    /// process is going), which the caller must see runs.
    pub fn settle_with(
        &self,
        id: u32,
        answer: impl FnOnce() -> Option<(bool, String)>,
    ) -> Option<bool> {
        let mut turn = self.0.turn.lock();
        // A reply never overtakes a clock change queued before it: the turn delivers it.
        if !turn.open || super::clock::waits(&self.0.pending.lock()) {
            return None;
        }
        let Some((ok, payload)) = answer() else {
            return Some(true);
        };
        let Some(own) = self.0.calls.lock().remove(&id) else {
            // The hub's thread is still starting the call (a host that answers at once):
            // `Link::started` sends the answer when it learns the sandbox's id, before it
            // reads the command's `Done`.
            turn.early.insert(id, (ok, payload));
            return Some(true);
        };
        Some(self.0.send_or_queue(
            &mut turn,
            Step::Settle {
                id: own,
                ok,
                payload,
            },
        ))
    }
}

impl Link {
    /// The command's `Done` came (see [`OpenTurn::close`]).
    pub(super) fn close_turn(&self, applied: u64) -> Result<(), &'static str> {
        let closed = self.turn.lock().close(applied);
        self.out.store(false, Ordering::SeqCst);
        closed
    }

    /// Host call `id` of the sandbox started as the run's `bridge_id`: its answer, if it
    /// came already, goes now; else the call waits for it.
    pub(super) fn started(&self, bridge_id: u32, id: u32) {
        let mut turn = self.turn.lock();
        match turn.early.remove(&bridge_id) {
            Some((ok, payload)) => {
                self.send_or_queue(&mut turn, Step::Settle { id, ok, payload });
            }
            None => {
                self.calls.lock().insert(bridge_id, id);
            }
        }
    }

    /// Sends `step` (an answer) into the open command: true. Else it goes with the next
    /// command: false. Under the turn's lock, so a `Done` read meanwhile counts it.
    pub(super) fn apply_or_queue(&self, step: Step) -> bool {
        self.send_or_queue(&mut self.turn.lock(), step)
    }

    fn send_or_queue(&self, turn: &mut OpenTurn, step: Step) -> bool {
        let step = match self.process.upgrade() {
            Some(process) if turn.open => {
                let message = ToChild::Apply { vm: self.vm, step };
                if process.send(&message) {
                    turn.sent += 1;
                    DIRECT_REPLIES.fetch_add(1, Ordering::Relaxed);
                    return true;
                }
                let ToChild::Apply { step, .. } = message else {
                    return false;
                };
                step
            }
            _ => step,
        };
        self.pending.lock().push(step);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::OpenTurn;

    fn sent(turn: &mut OpenTurn, n: u64) {
        turn.sent += n;
    }

    #[test]
    fn a_done_must_count_every_frame_due_and_none_unsent() {
        let mut turn = OpenTurn::default();
        turn.open();
        sent(&mut turn, 2);
        // The command ended before it read the second frame: the next one applies it.
        assert_eq!(turn.close(1), Ok(()));
        assert!(turn.has_unapplied());
        turn.open();
        // The next command had to apply both.
        assert!(turn.close(1).is_err(), "fewer than were due");
        let mut turn = OpenTurn::default();
        turn.open();
        sent(&mut turn, 1);
        assert!(turn.close(2).is_err(), "more than were sent");
        let mut turn = OpenTurn::default();
        turn.open();
        sent(&mut turn, 3);
        assert_eq!(turn.close(3), Ok(()));
        assert!(!turn.has_unapplied());
    }

    #[test]
    fn a_lost_vm_takes_no_more_answers() {
        let mut turn = OpenTurn::default();
        turn.open();
        turn.early.insert(7, (true, "{}".into()));
        turn.lose();
        assert!(!turn.open);
        assert!(turn.early.is_empty());
    }
}
