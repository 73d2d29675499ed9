//! A durable run's bridge: what its guest issues is checked against its ledger (a replay)
//! or added to it, within the record's size bound.

use super::CellBridge;
use crate::error::{messages, CodeModeError, ErrorCode};
use crate::run::ledger::{Issued, ReadKind};

impl CellBridge {
    /// A durable run's call, checked against or added to its journal: true when the
    /// ledger already has it.
    pub(super) fn journal_call(
        &self,
        bridge_id: u32,
        call_id: &str,
        tool: &super::owner::ToolRef,
        input_json: &str,
    ) -> Result<bool, String> {
        let Some(journal) = &self.journal else {
            return Ok(false);
        };
        let mut journal = journal.lock();
        let what = format!("a call ({})", tool.callable_name);
        if let Err(why) = journal.reads_done_before(true, &what) {
            drop(journal);
            return self.issued(Err(why));
        }
        let issued = journal.issue_call(
            bridge_id,
            call_id,
            &tool.callable_name,
            input_json,
            tool.replay_safe,
        );
        let bytes = journal.bytes();
        drop(journal);
        self.within_record(bytes)?;
        self.issued(issued)
    }

    /// A catalog read: a durable run's replay is answered from its ledger, a live read is
    /// asked of the catalog and recorded. `args` is the read's arguments as a JSON array.
    pub(super) fn read(
        &self,
        kind: ReadKind,
        args: serde_json::Value,
        live: impl FnOnce() -> Result<String, String>,
    ) -> Result<String, String> {
        let Some(journal) = &self.journal else {
            return live();
        };
        let args = args.to_string();
        let recorded = journal.lock().recorded_read(kind, &args);
        match recorded {
            Ok(Some(answer)) => answer,
            Ok(None) => {
                // Asked without the journal's lock: the catalog takes locks of its own.
                let answer = live();
                let bytes = {
                    let mut journal = journal.lock();
                    journal.record_read(kind, &args, &answer);
                    journal.bytes()
                };
                self.within_record(bytes)?;
                answer
            }
            Err(why) => self.issued(Err(why)).map(|_| String::new()),
        }
    }

    /// A call of a durable run's guest was refused: its journal learns it (a replay of a
    /// record that had none there diverges).
    pub(super) fn journal_refusal(&self) {
        if let Some(journal) = &self.journal {
            let refused = journal.lock().refused_call();
            let _ = self.issued(refused.map(|()| Issued::Live));
        }
    }

    /// A durable run's record stays within `maxSnapshotBytes`: past it, the call is
    /// refused and the run fails (its ledger would grow outside the VM's memory limit).
    pub(super) fn within_record(&self, bytes: usize) -> Result<(), String> {
        let max = self.context.limits().max_snapshot_bytes;
        if bytes as u64 <= max {
            return Ok(());
        }
        let message = messages::ledger_too_large(max);
        self.book.lock().fatal.get_or_insert_with(|| {
            CodeModeError::new(ErrorCode::SnapshotLimitExceeded, message.clone())
        });
        Err(message)
    }

    /// A divergence from the ledger fails the run; nothing is dispatched for it.
    pub(super) fn issued(&self, issued: Result<Issued, String>) -> Result<bool, String> {
        match issued {
            Ok(issued) => Ok(issued == Issued::Recorded),
            Err(why) => {
                let message = messages::replay_divergence(&why);
                self.book.lock().fatal.get_or_insert_with(|| {
                    CodeModeError::new(ErrorCode::ReplayDivergence, message.clone())
                });
                Err(message)
            }
        }
    }
}
