//! Abort signals of exec/wait calls, in one table keyed by the token of the call's result
//! promise: the binding's listener is a plain JS closure calling the session's one abort
//! function with that token, and the entry goes when the call's result is taken.

use crate::run::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Weak};

/// What an abort signal stops.
pub enum AbortTarget {
    /// The call of `epoch` on a cell that exists.
    Call { cell: Weak<Cell>, epoch: u64 },
    /// An exec whose cell starts later (it waits for MCP tools).
    Gate(Arc<AbortGate>),
}

impl AbortTarget {
    pub fn call(cell: &Arc<Cell>) -> AbortTarget {
        AbortTarget::Call {
            cell: Arc::downgrade(cell),
            epoch: cell.call_epoch(),
        }
    }

    fn fire(&self) {
        match self {
            AbortTarget::Call { cell, epoch } => abort_call(cell, *epoch),
            AbortTarget::Gate(gate) => gate.abort(),
        }
    }
}

/// Aborts the call of `epoch` if its cell still exists (a later call on it is untouched).
fn abort_call(cell: &Weak<Cell>, epoch: u64) {
    if let Some(cell) = cell.upgrade() {
        cell.abort_call(epoch);
    }
}

/// The watched signals of one session. Only the Node thread uses it; the lock is never
/// contended.
#[derive(Default)]
pub struct AbortWatches {
    targets: parking_lot::Mutex<HashMap<u32, AbortTarget>>,
}

impl AbortWatches {
    pub fn watch(&self, token: u32, target: AbortTarget) {
        self.targets.lock().insert(token, target);
    }

    /// The signal of the call under `token` fired (once: the glue's listener is `once`).
    pub fn fire(&self, token: u32) {
        let target = self.targets.lock().remove(&token);
        if let Some(target) = target {
            target.fire();
        }
    }

    /// The call under `token` settled: its signal no longer stops anything.
    pub fn forget(&self, token: u32) {
        self.targets.lock().remove(&token);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.targets.lock().len()
    }
}

/// An abort signal that may fire before its cell exists.
#[derive(Default)]
pub struct AbortGate {
    state: parking_lot::Mutex<GateState>,
}

#[derive(Default)]
struct GateState {
    aborted: bool,
    /// The cell and the call epoch it was started with, once it exists.
    call: Option<(Weak<Cell>, u64)>,
}

impl AbortGate {
    pub fn abort(&self) {
        let mut state = self.state.lock();
        state.aborted = true;
        if let Some((cell, epoch)) = state.call.as_ref() {
            abort_call(cell, *epoch);
        }
    }

    pub fn is_aborted(&self) -> bool {
        self.state.lock().aborted
    }

    pub fn attach(&self, cell: &Arc<Cell>) {
        self.state.lock().call = Some((Arc::downgrade(cell), cell.call_epoch()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fired_gate_is_aborted_and_its_entry_is_gone() {
        let watches = AbortWatches::default();
        let gate = Arc::new(AbortGate::default());
        watches.watch(7, AbortTarget::Gate(gate.clone()));
        watches.fire(7);
        assert!(gate.is_aborted());
        assert_eq!(watches.len(), 0);
    }

    #[test]
    fn a_forgotten_token_fires_nothing() {
        let watches = AbortWatches::default();
        let gate = Arc::new(AbortGate::default());
        watches.watch(3, AbortTarget::Gate(gate.clone()));
        watches.forget(3);
        watches.fire(3);
        assert!(!gate.is_aborted());
        assert_eq!(watches.len(), 0);
    }

    #[test]
    fn a_signal_firing_after_its_cell_is_gone_does_nothing() {
        let watches = AbortWatches::default();
        watches.watch(
            1,
            AbortTarget::Call {
                cell: Weak::new(),
                epoch: 0,
            },
        );
        watches.fire(1);
        watches.fire(1);
        assert_eq!(watches.len(), 0);
    }
}
