//! Who waits for a group's process to finish starting: cells whose clocks stand still
//! until it has. The waiters of a start ahead move to its process once it is spawned.

use super::{choose, Group, NO_START};
use crate::sandbox::boot::Waiter;
use crate::sandbox::process::{ProcessLimits, SandboxProcess};
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl Group {
    /// Keeps `then` until the process a VM with these limits will go to is ready, while
    /// that process is still starting (queued, spawning or booting); hands it back when
    /// one is ready, none is starting, or the group is busy. Never waits (Node thread).
    pub fn when_booted(&self, limits: ProcessLimits, then: Waiter) -> Result<(), Waiter> {
        let Some(held) = self.held.try_lock() else {
            return Err(then);
        };
        if let Some(process) = choose(&held, limits) {
            if process.is_ready() {
                return Err(then);
            }
            return process.when_settled(then);
        }
        // Told by `finish_start` (under `held`'s lock) or the next `new_vm`, whichever
        // places the start; a cell's own turn ends its pause in any case.
        if self.start.load(Ordering::SeqCst) == NO_START {
            return Err(then);
        }
        self.booting.lock().push(then);
        Ok(())
    }

    /// The start ahead ended: its waiters wait for `process` (if it started) or are told.
    pub(super) fn hand_over_booting(&self, process: Option<&Arc<SandboxProcess>>) {
        let waiters = std::mem::take(&mut *self.booting.lock());
        for waiter in waiters {
            let rest = match process {
                Some(process) => process.when_settled(waiter),
                None => Err(waiter),
            };
            if let Err(waiter) = rest {
                waiter();
            }
        }
    }
}
