//! The shared output budget of one cell (docs/contract.md, Output budget). Invariants: bytes
//! delivered over a run never exceed `maxOutputBytes`, undelivered output is stored in at
//! most that many, cuts fall on char boundaries, nothing is re-delivered.

mod entry;

pub use entry::OutputEntry;

use crate::json_size::{marker_len, Unit};
use entry::JSON_HEAD;
use serde_json::Value;
use std::io::{self, Write};

mod marker;
mod writers;

pub use crate::json_size::GUIDANCE;
pub use marker::{fit_marker, truncate_error, truncation_marker, TruncationMarker, ERROR_SUFFIX};
use writers::{counted_len, LimitedWriter};

const BYTES: Unit = Unit::Bytes;

// An output marker travels as `[{"type":"json","value":<marker>}]`.
const OUTPUT_WRAP: usize = JSON_HEAD.len() + 3;

/// The result cannot be projected into the remaining budget at all; the caller reports
/// `output_limit_exceeded`. Nothing was consumed from the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overflow;

impl std::fmt::Display for Overflow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the result cannot fit the remaining output budget")
    }
}

impl std::error::Error for Overflow {}
/// Budget of one cell run. See the module docs for the rules.
#[derive(Debug)]
pub struct OutputBudget {
    max_bytes: usize,
    delivered: usize,
    pending: Pending,
}

/// Output recorded but not delivered yet.
#[derive(Debug, Default)]
struct Pending {
    /// Entries kept whole; emptied once `clipped`.
    values: Vec<OutputEntry>,
    /// Comma-joined compact JSON of the entries, cut once it would pass the cap.
    json: String,
    /// Full length of that comma-joined JSON, including bytes never stored.
    joined_len: usize,
    count: usize,
    clipped: bool,
}

impl Pending {
    /// Cost of the compact JSON array of these entries; an empty array costs nothing.
    fn cost(&self) -> usize {
        if self.count == 0 {
            0
        } else {
            self.joined_len + 2
        }
    }

    /// The stored leading part of that array's JSON.
    fn array_text(&self) -> String {
        let close = if self.clipped { "" } else { "]" };
        format!("[{}{close}", self.json)
    }

    /// Smallest size this output can be delivered in.
    fn min_cost(&self) -> usize {
        let cost = self.cost();
        cost.min(marker_len(cost, 2) + OUTPUT_WRAP)
    }
}

impl OutputBudget {
    /// A budget of `max_bytes` compact-JSON bytes for the whole run.
    pub fn new(max_bytes: usize) -> Self {
        OutputBudget {
            max_bytes,
            delivered: 0,
            pending: Pending::default(),
        }
    }

    /// The whole run's budget (`maxOutputBytes`).
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// Bytes of the budget not yet delivered.
    pub fn remaining(&self) -> usize {
        self.max_bytes.saturating_sub(self.delivered)
    }

    /// Compact-JSON bytes of pending output held in memory (never above `max_bytes`).
    pub fn stored_bytes(&self) -> usize {
        self.pending.json.len()
    }

    /// Pending output bytes counted but not stored because storage stopped.
    pub fn unstored_bytes(&self) -> usize {
        self.pending.joined_len - self.pending.json.len()
    }

    /// Records an entry. Once pending output would pass `max_bytes`, its leading bytes
    /// are kept for a marker prefix and later entries are only counted, so a guest
    /// flooding `text()` cannot grow host memory.
    pub fn push(&mut self, entry: OutputEntry) {
        let p = &mut self.pending;
        let sep = usize::from(p.count > 0);
        p.count += 1;
        if p.clipped {
            p.joined_len += sep + counted_len(|w| entry.write_json(w));
            return;
        }
        let mut w = LimitedWriter::new(self.max_bytes.saturating_sub(p.json.len()));
        let fits = w
            .write_all(&b","[..sep])
            .and_then(|()| entry.write_json(&mut w))
            .is_ok();
        if fits {
            p.joined_len += w.buf.len();
            p.json.push_str(&w.into_text());
            p.values.push(entry);
        } else {
            p.joined_len += sep + counted_len(|w| entry.write_json(w));
            p.json.push_str(&w.into_text());
            p.clipped = true;
            p.values = Vec::new();
        }
    }

    /// Output for a `waiting` result: the entries not delivered yet, or one marker entry,
    /// within half of the remaining budget so the other half stays for the final value.
    /// If not even a marker fits, nothing is delivered and the output stays pending.
    pub fn take_partial_entries(&mut self) -> Vec<OutputEntry> {
        let share = self.remaining() / 2;
        let output = self.project_output(share).unwrap_or_default();
        if !output.is_empty() {
            self.pending = Pending::default();
        }
        output
    }

    /// Output and value for a `completed` result; an oversized value becomes a marker.
    pub fn finish_value_entries(
        &mut self,
        value: Value,
    ) -> Result<(Vec<OutputEntry>, Value), Overflow> {
        let cost = counted_len(|w| serde_json::to_writer(w, &value).map_err(io::Error::from));
        let (output, share) = self.finish_output(cost, cost.min(marker_len(cost, 2)))?;
        if cost <= share {
            self.delivered += cost;
            return Ok((output, value));
        }
        let mut w = LimitedWriter::new(share);
        let _ = serde_json::to_writer(&mut w, &value); // cut at `share`: a longer prefix cannot fit
        let marker = fit_marker(BYTES, &w.into_text(), cost, share).ok_or(Overflow)?;
        self.delivered += marker.json_len();
        Ok((output, marker.to_value()))
    }

    /// Output and error text for a `failed` result; an oversized error is cut.
    pub fn finish_error_entries(
        &mut self,
        error: &str,
    ) -> Result<(Vec<OutputEntry>, String), Overflow> {
        let cost = BYTES.json_string_len(error);
        let suffix_len = BYTES.json_string_len(ERROR_SUFFIX);
        let (output, share) = self.finish_output(cost, cost.min(suffix_len))?;
        let error = truncate_error(error, share).ok_or(Overflow)?;
        self.delivered += BYTES.json_string_len(&error);
        Ok((output, error))
    }

    /// Splits the remaining budget between pending output and a final channel of
    /// `final_cost` bytes (at least `final_min` once projected), delivers the output and
    /// returns the final channel's share.
    fn finish_output(
        &mut self,
        final_cost: usize,
        final_min: usize,
    ) -> Result<(Vec<OutputEntry>, usize), Overflow> {
        let remaining = self.remaining();
        let (out_cost, out_min) = (self.pending.cost(), self.pending.min_cost());
        let (out_share, final_share) = if out_cost + final_cost <= remaining {
            (out_cost, remaining - out_cost)
        } else {
            if out_min + final_min > remaining {
                return Err(Overflow);
            }
            let out_half = remaining / 2;
            let final_half = remaining - out_half;
            // A channel needing less than its half passes the rest to the other.
            let mut out_share = if out_cost <= out_half {
                out_cost
            } else if final_cost <= final_half {
                remaining - final_cost
            } else {
                out_half
            };
            // A share below a channel's smallest projection borrows from the other;
            // the check above guarantees the other keeps its own minimum.
            if out_share < out_min {
                out_share = out_min;
            } else if remaining - out_share < final_min {
                out_share = remaining - final_min;
            }
            (out_share, remaining - out_share)
        };
        let output = self.project_output(out_share).ok_or(Overflow)?;
        self.pending = Pending::default();
        Ok((output, final_share))
    }

    /// Pending output within `share`: unchanged, as one marker entry, or `None`. Counts
    /// what it returns as delivered.
    fn project_output(&mut self, share: usize) -> Option<Vec<OutputEntry>> {
        let cost = self.pending.cost();
        if cost <= share && !self.pending.clipped {
            self.delivered += cost;
            return Some(std::mem::take(&mut self.pending.values));
        }
        let budget = share.checked_sub(OUTPUT_WRAP)?;
        let marker = fit_marker(BYTES, &self.pending.array_text(), cost, budget)?;
        self.delivered += marker.json_len() + OUTPUT_WRAP;
        Some(vec![OutputEntry::Json(marker.to_value())])
    }
}

#[cfg(test)]
mod tests;
