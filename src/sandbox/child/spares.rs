//! The sandbox's housekeeping thread: it keeps blank VMs ready, as the addon's own warm
//! VMs are, and frees released ones, so neither building nor freeing a VM (together most
//! of a trivial cell's cost) runs on the path of a command.

use crate::guest::vm::{StartError, Vm};
use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Blank VMs kept ready: enough for the cells a session starts back to back.
const TARGET: usize = 2;

enum Chore {
    Refill,
    Free(Box<dyn Send>),
}

pub(super) struct Spares {
    ready: Mutex<Vec<Vm>>,
    chores: Sender<Chore>,
    refill_asked: AtomicBool,
}

impl Spares {
    /// The spares and the housekeeper's loop, to run on a thread started before the jail.
    pub(super) fn new() -> (Spares, impl FnOnce(&Spares)) {
        let (chores, queue) = crossbeam_channel::unbounded();
        let spares = Spares {
            ready: Mutex::new(Vec::new()),
            chores,
            refill_asked: AtomicBool::new(false),
        };
        (spares, move |spares: &Spares| spares.keep_house(&queue))
    }

    /// A blank VM: a ready one if any, else one made now.
    pub(super) fn take(&self) -> Result<Vm, StartError> {
        let ready = self.ready.lock().pop();
        self.ask_refill();
        match ready {
            Some(vm) => Ok(vm),
            None => Vm::blank(),
        }
    }

    /// Frees `thing` (a released VM) on the housekeeper.
    pub(super) fn free(&self, thing: Box<dyn Send>) {
        // Only fails when the housekeeper is gone, and then dropping here is all we can do.
        let _ = self.chores.send(Chore::Free(thing));
    }

    fn ask_refill(&self) {
        if !self.refill_asked.swap(true, Ordering::SeqCst) {
            let _ = self.chores.send(Chore::Refill);
        }
    }

    fn keep_house(&self, queue: &Receiver<Chore>) {
        // One to start with: a second would compete with the session's first cell.
        self.fill_to(1);
        for chore in queue.iter() {
            match chore {
                Chore::Free(thing) => drop(thing),
                Chore::Refill => {
                    self.refill_asked.store(false, Ordering::SeqCst);
                    self.fill_to(TARGET);
                }
            }
        }
    }

    fn fill_to(&self, count: usize) {
        while self.ready.lock().len() < count {
            match Vm::blank() {
                Ok(vm) => self.ready.lock().push(vm),
                Err(_) => return,
            }
        }
    }
}
