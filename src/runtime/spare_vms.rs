//! Warm VMs: a housekeeping thread keeps a few blank runtimes (context, natives, prelude;
//! no user code, no session) ready so a new cell skips creating one. A warm VM is bound
//! to exactly one cell and dropped with it, never reused; at most one refill is pending.

use crate::guest::vm::{StartError, Vm};
use crossbeam_channel::{unbounded, Sender};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Blank VMs kept ready (a blank VM is about 200 KB).
const TARGET: usize = 4;

static WARM: Mutex<Vec<Vm>> = Mutex::new(Vec::new());
static REFILL_REQUESTED: AtomicBool = AtomicBool::new(false);

fn housekeeper() -> Option<&'static Sender<()>> {
    static SENDER: OnceLock<Option<Sender<()>>> = OnceLock::new();
    SENDER
        .get_or_init(|| {
            let (sender, receiver) = unbounded::<()>();
            let spawned = crate::runtime::pool::spawn_guest_thread(
                "codemode-housekeeping".into(),
                move || {
                    while receiver.recv().is_ok() {
                        REFILL_REQUESTED.store(false, Ordering::SeqCst);
                        let _ = std::panic::catch_unwind(refill);
                    }
                },
            );
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
        crate::runtime::priority::offer_core();
    }
}

fn request_refill() {
    if !REFILL_REQUESTED.swap(true, Ordering::SeqCst) {
        let sent = housekeeper().is_some_and(|sender| sender.send(()).is_ok());
        if !sent {
            REFILL_REQUESTED.store(false, Ordering::SeqCst);
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
