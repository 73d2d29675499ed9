//! Warm VMs and retired ones, handled by one housekeeping thread off the critical path:
//! it keeps a few blank runtimes (context, natives, prelude; no user code, no session)
//! ready for new cells, and frees the VMs of finished cells. A warm VM is bound to exactly
//! one cell and dropped with it, never reused.

use crate::guest::vm::{StartError, Vm};
use crossbeam_channel::{unbounded, Sender};
use parking_lot::Mutex;
use std::sync::OnceLock;

/// Blank VMs kept ready (a blank VM is about 200 KB).
const TARGET: usize = 4;

static WARM: Mutex<Vec<Vm>> = Mutex::new(Vec::new());

enum Chore {
    Refill,
    Retire(Vm),
}

fn housekeeper() -> Option<&'static Sender<Chore>> {
    static SENDER: OnceLock<Option<Sender<Chore>>> = OnceLock::new();
    SENDER
        .get_or_init(|| {
            let (sender, receiver) = unbounded::<Chore>();
            let spawned = std::thread::Builder::new()
                .name("codemode-housekeeping".into())
                .stack_size(super::pool::WORKER_STACK_BYTES)
                .spawn(move || {
                    while let Ok(chore) = receiver.recv() {
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match chore {
                            Chore::Retire(vm) => drop(vm),
                            Chore::Refill => refill(),
                        }));
                    }
                });
            spawned.ok().map(|_| sender)
        })
        .as_ref()
}

fn refill() {
    while WARM.lock().len() < TARGET {
        match Vm::blank() {
            Ok(vm) => WARM.lock().push(vm),
            Err(_) => return,
        }
    }
}

/// A blank VM: a warm one if any (asking for a refill), else a new one.
pub fn take() -> Result<Vm, StartError> {
    let warm = WARM.lock().pop();
    if let Some(sender) = housekeeper() {
        let _ = sender.send(Chore::Refill);
    }
    match warm {
        Some(vm) => Ok(vm),
        None => Vm::blank(),
    }
}

/// Frees a finished cell's VM on the housekeeping thread.
pub fn retire(vm: Vm) {
    match housekeeper() {
        Some(sender) => {
            if let Err(returned) = sender.send(Chore::Retire(vm)) {
                drop(returned);
            }
        }
        None => drop(vm),
    }
}
