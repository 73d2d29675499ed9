//! The process-wide store of parked runs (docs/contract.md, Suspension and wait): live VMs,
//! so parking and resuming are O(1). It bounds how many runs may be parked or resuming at
//! once, scopes each to the session that made it, and expires them.

use crate::error::{messages, CodeModeError, ErrorCode};
use crate::limits;
use crate::run::cell::Cell;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// Who may resume a run: everything must match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    pub session_id: String,
    pub session_key: Option<String>,
    pub agent_id: Option<String>,
    pub agent_run_id: Option<String>,
}

struct Entry {
    cell: Arc<Cell>,
    scope: Scope,
    parked_at: Instant,
    /// Bumped on every park, so a TTL timer of an earlier park does nothing.
    epoch: u64,
    resuming: bool,
    reason: &'static str,
    bytes: u64,
    pending: usize,
    /// The expiry timer of the current park, cancelled when the run leaves the store.
    expiry: Option<crate::runtime::timer::TimerKey>,
}

impl Drop for Entry {
    fn drop(&mut self) {
        if let Some(key) = self.expiry.take() {
            crate::runtime::timer::cancel(key);
        }
    }
}

pub struct Store {
    runs: Mutex<HashMap<String, Entry>>,
    max: AtomicUsize,
}

/// A parked run as `runs()` lists it.
pub struct ParkedInfo {
    pub run_id: String,
    pub reason: &'static str,
    pub pending: usize,
    pub parked_ms: f64,
    pub bytes: u64,
}

pub fn global() -> &'static Store {
    static STORE: OnceLock<Store> = OnceLock::new();
    STORE.get_or_init(|| Store {
        runs: Mutex::new(HashMap::new()),
        max: AtomicUsize::new(limits::DEFAULT_MAX_SUSPENDED_RUNS),
    })
}

impl Store {
    pub fn set_max(&self, max: usize) {
        self.max.store(max.max(1), Ordering::SeqCst);
    }

    pub fn len(&self) -> usize {
        self.runs.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.runs.lock().is_empty()
    }

    /// Parks (or re-parks) a run; returns the park epoch for its TTL timer.
    pub fn park(
        &self,
        cell: &Arc<Cell>,
        scope: &Scope,
        reason: &'static str,
        bytes: u64,
        pending: usize,
    ) -> Result<u64, CodeModeError> {
        let mut runs = self.runs.lock();
        if let Some(entry) = runs.get_mut(&cell.run_id) {
            entry.resuming = false;
            entry.parked_at = Instant::now();
            entry.epoch += 1;
            entry.reason = reason;
            entry.bytes = bytes;
            entry.pending = pending;
            if let Some(key) = entry.expiry.take() {
                crate::runtime::timer::cancel(key);
            }
            return Ok(entry.epoch);
        }
        if runs.len() >= self.max.load(Ordering::SeqCst) {
            return Err(CodeModeError::invalid_input(
                "too many suspended code mode runs.",
            ));
        }
        runs.insert(
            cell.run_id.clone(),
            Entry {
                cell: cell.clone(),
                scope: scope.clone(),
                parked_at: Instant::now(),
                epoch: 1,
                resuming: false,
                reason,
                bytes,
                pending,
                expiry: None,
            },
        );
        Ok(1)
    }

    /// Records the expiry timer of a run's current park.
    pub fn set_expiry(&self, run_id: &str, epoch: u64, key: crate::runtime::timer::TimerKey) {
        let mut runs = self.runs.lock();
        match runs.get_mut(run_id) {
            Some(entry) if entry.epoch == epoch => {
                if let Some(previous) = entry.expiry.replace(key) {
                    crate::runtime::timer::cancel(previous);
                }
            }
            _ => crate::runtime::timer::cancel(key),
        }
    }

    /// Claims a parked run for `wait`; the slot stays reserved while it resumes.
    pub fn claim(&self, run_id: &str, scope: &Scope) -> Result<Arc<Cell>, CodeModeError> {
        let mut runs = self.runs.lock();
        let Some(entry) = runs.get_mut(run_id) else {
            return Err(CodeModeError::invalid_input(messages::RUN_UNAVAILABLE));
        };
        if entry.scope.session_id != scope.session_id
            || entry.scope.session_key != scope.session_key
            || entry.scope.agent_id != scope.agent_id
        {
            return Err(CodeModeError::invalid_input(
                "code mode run belongs to a different session.",
            ));
        }
        if entry.scope.agent_run_id != scope.agent_run_id {
            return Err(CodeModeError::invalid_input(
                "code mode run belongs to a different agent run.",
            ));
        }
        if entry.resuming {
            return Err(CodeModeError::invalid_input(
                "code mode run is already being resumed.",
            ));
        }
        entry.resuming = true;
        Ok(entry.cell.clone())
    }

    /// A parked (or resuming) run of `scope`, for `resolveCall`. A run of another scope is
    /// `None`, as an unknown one: resolving never tells a caller that another's run exists.
    pub fn find(&self, run_id: &str, scope: &Scope) -> Option<Arc<Cell>> {
        let runs = self.runs.lock();
        let entry = runs.get(run_id)?;
        (entry.scope == *scope).then(|| entry.cell.clone())
    }

    /// Removes a run that settled, expired or was cancelled.
    pub fn remove(&self, run_id: &str) -> Option<Arc<Cell>> {
        let entry = self.runs.lock().remove(run_id);
        // Dropped outside the lock: dropping cancels its timer, which takes the timer lock.
        entry.map(|e| e.cell.clone())
    }

    /// Removes run `cell` if the store holds that very cell (not another under its id).
    pub fn remove_cell(&self, cell: &Arc<Cell>) -> Option<Arc<Cell>> {
        let mut runs = self.runs.lock();
        let same = runs
            .get(&cell.run_id)
            .is_some_and(|entry| Arc::ptr_eq(&entry.cell, cell));
        let entry = if same {
            runs.remove(&cell.run_id)
        } else {
            None
        };
        drop(runs);
        entry.map(|e| e.cell.clone())
    }

    /// Removes the run if it is still parked from park `epoch` (TTL expiry).
    pub fn expire(&self, run_id: &str, epoch: u64) -> Option<Arc<Cell>> {
        let mut runs = self.runs.lock();
        let stale = runs
            .get(run_id)
            .is_some_and(|e| e.epoch == epoch && !e.resuming);
        if stale {
            runs.remove(run_id).map(|e| e.cell.clone())
        } else {
            None
        }
    }

    pub fn list(&self, session_id: &str) -> Vec<ParkedInfo> {
        let runs = self.runs.lock();
        let mut out: Vec<ParkedInfo> = runs
            .iter()
            .filter(|(_, e)| e.scope.session_id == session_id && !e.resuming)
            .map(|(id, e)| ParkedInfo {
                run_id: id.clone(),
                reason: e.reason,
                pending: e.pending,
                parked_ms: e.parked_at.elapsed().as_secs_f64() * 1000.0,
                bytes: e.bytes,
            })
            .collect();
        out.sort_by(|a, b| a.run_id.cmp(&b.run_id));
        out
    }
}

/// Exact failure when a run is too big to park.
pub fn snapshot_limit() -> CodeModeError {
    CodeModeError::new(
        ErrorCode::SnapshotLimitExceeded,
        "code mode snapshot limit exceeded",
    )
}
