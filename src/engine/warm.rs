//! Warm VMs and retired ones, handled by one housekeeping thread off the critical path:
//! it keeps a few blank runtimes (context, natives, prelude; no user code, no session)
//! ready for new cells, and frees the VMs of finished cells. A warm VM is bound to exactly
//! one cell and dropped with it, never reused.
//!
//! The housekeeper only absorbs slack: under sustained load it cannot keep up, so at most
//! `MAX_QUEUED_RETIRES` VMs wait to be freed (beyond that the caller frees its own) and at
//! most one refill request is outstanding. An unbounded backlog would hold every finished
//! VM's heap.

use crate::guest::vm::{StartError, Vm};
use crossbeam_channel::{unbounded, Sender};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Blank VMs kept ready (a blank VM is about 200 KB).
const TARGET: usize = 4;
const MAX_QUEUED_RETIRES: usize = 4;

static WARM: Mutex<Vec<Vm>> = Mutex::new(Vec::new());
static QUEUED_RETIRES: AtomicUsize = AtomicUsize::new(0);
static REFILL_REQUESTED: AtomicBool = AtomicBool::new(false);

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
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(
                            || match chore {
                                Chore::Retire(vm) => {
                                    drop(vm);
                                    QUEUED_RETIRES.fetch_sub(1, Ordering::SeqCst);
                                }
                                Chore::Refill => {
                                    REFILL_REQUESTED.store(false, Ordering::SeqCst);
                                    refill();
                                }
                            },
                        ));
                    }
                });
            spawned.ok().map(|_| sender)
        })
        .as_ref()
}

fn refill() {
    while WARM.lock().len() < TARGET {
        // Freeing finished VMs comes first: it returns memory, a warm VM only saves time.
        if QUEUED_RETIRES.load(Ordering::SeqCst) > 0 {
            request_refill();
            return;
        }
        match Vm::blank() {
            Ok(vm) => WARM.lock().push(vm),
            Err(_) => return,
        }
    }
}

fn request_refill() {
    if !REFILL_REQUESTED.swap(true, Ordering::SeqCst) {
        if let Some(sender) = housekeeper() {
            if sender.send(Chore::Refill).is_err() {
                REFILL_REQUESTED.store(false, Ordering::SeqCst);
            }
        }
    }
}

/// A blank VM: a warm one if any (asking for a refill), else a new one.
pub fn take() -> Result<Vm, StartError> {
    let warm = WARM.lock().pop();
    request_refill();
    match warm {
        Some(vm) => Ok(vm),
        None => Vm::blank(),
    }
}

/// Frees a finished cell's VM, on the housekeeping thread when it has room.
pub fn retire(vm: Vm) {
    let Some(sender) = housekeeper() else {
        drop(vm);
        return;
    };
    if QUEUED_RETIRES.fetch_add(1, Ordering::SeqCst) >= MAX_QUEUED_RETIRES {
        QUEUED_RETIRES.fetch_sub(1, Ordering::SeqCst);
        drop(vm);
        return;
    }
    if let Err(returned) = sender.send(Chore::Retire(vm)) {
        QUEUED_RETIRES.fetch_sub(1, Ordering::SeqCst);
        drop(returned);
    }
}
