//! Spare VMs: blank runtimes (no user code, no session) kept ready so a new cell skips
//! making one, by a housekeeping thread in the addon and by their owner in a sandbox
//! process (`on_demand`). A spare is bound to exactly one cell and dropped with it.

use crate::guest::vm::{StartError, Vm};
use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Blank VMs the addon keeps ready (a blank VM is about 200 KB).
const ADDON_TARGET: usize = 4;

enum Chore {
    Refill,
    Free(Box<dyn Send>),
}

pub struct Spares {
    ready: Mutex<Vec<Vm>>,
    /// The housekeeper's queue; `None` when the owner refills and frees (`tidy`, `clear`).
    chores: Option<Sender<Chore>>,
    /// What `free` was handed when there is no housekeeper, until the next `tidy`.
    to_free: Mutex<Vec<Box<dyn Send>>>,
    refill_asked: AtomicBool,
    target: usize,
}

impl Spares {
    /// The spares and their housekeeping loop, for a thread of its own: it makes `first`
    /// VMs, then fills to `target` after each take and frees what `free` hands it.
    pub fn new(target: usize, first: usize) -> (Spares, impl FnOnce(&Spares)) {
        let (chores, queue) = crossbeam_channel::unbounded();
        let spares = Spares::with(Some(chores), target);
        (spares, move |spares: &Spares| {
            spares.keep_house(first, &queue)
        })
    }

    /// Spares with no housekeeper: the owner calls `tidy` when it has time to spare and
    /// `clear` when it goes idle.
    pub fn on_demand(target: usize) -> Spares {
        Spares::with(None, target)
    }

    fn with(chores: Option<Sender<Chore>>, target: usize) -> Spares {
        Spares {
            ready: Mutex::new(Vec::new()),
            chores,
            to_free: Mutex::new(Vec::new()),
            refill_asked: AtomicBool::new(false),
            target,
        }
    }

    /// A blank VM: a ready one if any, else one made now.
    pub fn take(&self) -> Result<Vm, StartError> {
        let ready = self.ready.lock().pop();
        if let Some(chores) = &self.chores {
            if !self.refill_asked.swap(true, Ordering::SeqCst) {
                let _ = chores.send(Chore::Refill);
            }
        }
        match ready {
            Some(vm) => Ok(vm),
            None => Vm::blank(),
        }
    }

    /// Frees `thing` (a released VM) off the caller's path: on the housekeeper, or at the
    /// owner's next `tidy`.
    pub fn free(&self, thing: Box<dyn Send>) {
        match &self.chores {
            // Only fails when the housekeeper is gone, and then dropping here is all we can do.
            Some(chores) => drop(chores.send(Chore::Free(thing))),
            None => self.to_free.lock().push(thing),
        }
    }

    /// Frees what `free` was handed, then, if `refill`, makes spares up to the target.
    pub fn tidy(&self, refill: bool) {
        self.drop_freed();
        if refill {
            self.fill_to(self.target);
        }
    }

    /// Frees what `free` was handed and every spare: the process is idle.
    pub fn clear(&self) {
        self.drop_freed();
        let spares = std::mem::take(&mut *self.ready.lock());
        drop(spares);
    }

    fn drop_freed(&self) {
        let freed = std::mem::take(&mut *self.to_free.lock());
        drop(freed);
    }

    fn keep_house(&self, first: usize, queue: &Receiver<Chore>) {
        self.fill_to(first);
        for chore in queue.iter() {
            // A panic while building or freeing one VM must not end the housekeeping.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match chore {
                Chore::Free(thing) => drop(thing),
                Chore::Refill => {
                    self.refill_asked.store(false, Ordering::SeqCst);
                    self.fill_to(self.target);
                }
            }));
            crate::runtime::priority::offer_core();
        }
    }

    /// Makes spares until there are `count`.
    pub fn fill_to(&self, count: usize) {
        while self.ready.lock().len() < count {
            match Vm::blank() {
                Ok(vm) => self.ready.lock().push(vm),
                Err(_) => return,
            }
            crate::runtime::priority::offer_core();
        }
    }
}

/// A blank VM for a cell of this process: from the addon's spares, whose housekeeper
/// starts on first use, or made now if that thread could not start.
pub fn take() -> Result<Vm, StartError> {
    match addon_spares() {
        Some(spares) => spares.take(),
        None => Vm::blank(),
    }
}

fn addon_spares() -> Option<&'static Spares> {
    static SPARES: OnceLock<Option<&'static Spares>> = OnceLock::new();
    *SPARES.get_or_init(|| {
        let (spares, keep_house) = Spares::new(ADDON_TARGET, ADDON_TARGET);
        // Lives as long as the process, as its housekeeper does.
        let spares: &'static Spares = Box::leak(Box::new(spares));
        let spawned =
            crate::runtime::pool::spawn_guest_thread("codemode-housekeeping".into(), move || {
                keep_house(spares)
            });
        spawned.ok().map(|()| spares)
    })
}

#[cfg(test)]
mod tests {
    use super::Spares;

    #[test]
    fn spares_without_a_housekeeper_fill_on_tidy_and_empty_on_clear() {
        let spares = Spares::on_demand(2);
        assert_eq!(spares.ready.lock().len(), 0, "none before the first tidy");
        spares.tidy(true);
        assert_eq!(spares.ready.lock().len(), 2);
        let vm = spares.take().expect("a blank VM");
        assert_eq!(spares.ready.lock().len(), 1, "taking asks nobody to refill");
        spares.free(Box::new(vm));
        assert_eq!(
            spares.to_free.lock().len(),
            1,
            "freed at the next tidy, not now"
        );
        spares.tidy(false);
        assert_eq!(
            (spares.to_free.lock().len(), spares.ready.lock().len()),
            (0, 1)
        );
        spares.clear();
        assert_eq!(spares.ready.lock().len(), 0);
        assert!(
            spares.take().is_ok(),
            "with no spare, one is made on the spot"
        );
    }
}
