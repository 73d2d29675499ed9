//! A durable run's catalog reads (`catalog.search`, `describe()`, a handle's metadata, the
//! `API` files, `MCP.$api`), in issue order with what the guest was given: a replay is
//! answered from here, so it sees the catalog as the original run saw it.

use super::{same_json, Journal, ENTRY_BYTES};
use serde::{Deserialize, Serialize};

/// Which catalog question the guest asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReadKind {
    #[serde(rename = "s")]
    Search,
    #[serde(rename = "d")]
    Describe,
    #[serde(rename = "m")]
    ToolMeta,
    #[serde(rename = "l")]
    ApiList,
    #[serde(rename = "f")]
    ApiRead,
    #[serde(rename = "p")]
    McpApi,
}

impl ReadKind {
    /// The guest's name for the read, for divergence messages.
    fn guest_name(self) -> &'static str {
        match self {
            ReadKind::Search => "catalog.search",
            ReadKind::Describe => "describe",
            ReadKind::ToolMeta => "handle",
            ReadKind::ApiList => "API.list",
            ReadKind::ApiRead => "API.read",
            ReadKind::McpApi => "MCP.$api",
        }
    }
}

/// One catalog read: its kind, its arguments (a JSON array) and its answer, a text the
/// guest parsed or an error message it was thrown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogRead {
    #[serde(rename = "k")]
    pub kind: ReadKind,
    #[serde(rename = "a")]
    pub args: String,
    #[serde(rename = "v")]
    pub text: String,
    #[serde(rename = "e", default, skip_serializing_if = "super::is_false")]
    pub refused: bool,
}

impl CatalogRead {
    pub fn answer(&self) -> Result<String, String> {
        if self.refused {
            Err(self.text.clone())
        } else {
            Ok(self.text.clone())
        }
    }
}

pub(super) fn read_bytes(read: &CatalogRead) -> usize {
    ENTRY_BYTES + read.args.len() + read.text.len()
}

impl Journal {
    /// The guest asks the catalog `kind` with `args`: the recorded answer while the ledger
    /// has reads the VM has not caught up with (`Ok(None)`: ask the live catalog, then
    /// [`Journal::record_read`]); a read of another kind or with other arguments at that
    /// position, or one where the record has none, is a divergence.
    pub fn recorded_read(
        &mut self,
        kind: ReadKind,
        args: &str,
    ) -> Result<Option<Result<String, String>>, String> {
        let position = self.reads_seen + 1;
        if let Some(recorded) = self.ledger.reads.get(self.reads_seen) {
            if recorded.kind != kind || !same_json(&recorded.args, args) {
                return Err(format!(
                    "the run's catalog read #{position} was {}{} and is now {}{}",
                    recorded.kind.guest_name(),
                    shown(&recorded.args),
                    kind.guest_name(),
                    shown(args)
                ));
            }
            self.reads_seen += 1;
            return Ok(Some(recorded.answer()));
        }
        if self.replaying() {
            return Err(format!(
                "the run now reads the catalog ({}{}) where its record has none",
                kind.guest_name(),
                shown(args)
            ));
        }
        Ok(None)
    }

    /// The guest issues `what` (a call when `call`, else a timer): past the record, every
    /// recorded read must have been read again, since the run read them all before
    /// anything it issued after its record was written.
    pub fn reads_done_before(&self, call: bool, what: &str) -> Result<(), String> {
        let past_record = if call {
            self.calls_seen >= self.ledger.calls.len()
        } else {
            self.timers_seen >= self.ledger.timers.len()
        };
        match self.ledger.reads.get(self.reads_seen) {
            Some(unread) if past_record => Err(format!(
                "the run now makes {what} where its record has catalog read #{} ({}{})",
                self.reads_seen + 1,
                unread.kind.guest_name(),
                shown(&unread.args)
            )),
            _ => Ok(()),
        }
    }

    /// A live read's answer, appended after the reads the ledger has.
    pub fn record_read(&mut self, kind: ReadKind, args: &str, answer: &Result<String, String>) {
        let (text, refused) = match answer {
            Ok(text) => (text.clone(), false),
            Err(message) => (message.clone(), true),
        };
        let read = CatalogRead {
            kind,
            args: args.to_string(),
            text,
            refused,
        };
        self.bytes += read_bytes(&read);
        self.ledger.reads.push(read);
        self.reads_seen = self.ledger.reads.len();
    }
}

/// Arguments as the guest wrote them: `["a",3]` becomes `("a",3)`, cut to stay readable.
fn shown(args: &str) -> String {
    let inner = args
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .unwrap_or(args);
    let cut: String = inner.chars().take(80).collect();
    let more = if cut.len() < inner.len() { "…" } else { "" };
    format!("({cut}{more})")
}

#[cfg(test)]
#[path = "reads_tests.rs"]
mod tests;
