//! The resolved external calls of ended runs, so a `resolveCall` that comes after its run
//! ended still answers `already_resolved`: process-wide, for the newest
//! [`KEPT_RUNS`] runs that had any, each with its scope (a stranger learns nothing).

use super::store::Scope;
use crate::run::state::external::call_seq;
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::OnceLock;

/// Ended runs remembered; the oldest is forgotten beyond this.
pub const KEPT_RUNS: usize = 4096;

#[derive(Default)]
struct Ended {
    runs: HashMap<String, (Scope, HashSet<u32>)>,
    /// Run ids, oldest first.
    order: VecDeque<String>,
}

pub struct EndedRuns(Mutex<Ended>);

pub fn global() -> &'static EndedRuns {
    static ENDED: OnceLock<EndedRuns> = OnceLock::new();
    ENDED.get_or_init(|| EndedRuns(Mutex::new(Ended::default())))
}

impl EndedRuns {
    /// Run `run_id` of `scope` ended after its calls `resolved` (sequence numbers) were.
    pub fn remember(&self, run_id: &str, scope: &Scope, resolved: HashSet<u32>) {
        let mut ended = self.0.lock();
        if ended.runs.contains_key(run_id) {
            return;
        }
        if ended.order.len() >= KEPT_RUNS {
            if let Some(oldest) = ended.order.pop_front() {
                ended.runs.remove(&oldest);
            }
        }
        ended.order.push_back(run_id.to_string());
        ended
            .runs
            .insert(run_id.to_string(), (scope.clone(), resolved));
    }

    /// Whether `call_id` of the ended run `run_id` of `scope` was resolved.
    pub fn was_resolved(&self, run_id: &str, scope: &Scope, call_id: &str) -> bool {
        let Some(seq) = call_seq(run_id, call_id) else {
            return false;
        };
        let ended = self.0.lock();
        ended
            .runs
            .get(run_id)
            .is_some_and(|(owner, resolved)| owner == scope && resolved.contains(&seq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(id: &str) -> Scope {
        Scope {
            session_id: id.into(),
            session_key: None,
            agent_id: None,
            agent_run_id: None,
        }
    }

    #[test]
    fn a_resolved_call_of_an_ended_run_is_known_to_its_scope_only() {
        let runs = EndedRuns(Mutex::new(Ended::default()));
        runs.remember("cm_e", &scope("a"), HashSet::from([2]));
        assert!(runs.was_resolved("cm_e", &scope("a"), "cm_e:2"));
        assert!(!runs.was_resolved("cm_e", &scope("a"), "cm_e:1"));
        assert!(!runs.was_resolved("cm_e", &scope("b"), "cm_e:2"));
        assert!(!runs.was_resolved("cm_f", &scope("a"), "cm_f:2"));
    }

    #[test]
    fn only_the_newest_runs_are_kept() {
        let runs = EndedRuns(Mutex::new(Ended::default()));
        for n in 0..=KEPT_RUNS {
            runs.remember(&format!("cm_{n}"), &scope("a"), HashSet::from([1]));
        }
        assert!(!runs.was_resolved("cm_0", &scope("a"), "cm_0:1"));
        let newest = format!("cm_{KEPT_RUNS}");
        assert!(runs.was_resolved(&newest, &scope("a"), &format!("{newest}:1")));
        assert_eq!(runs.0.lock().runs.len(), KEPT_RUNS);
    }
}
