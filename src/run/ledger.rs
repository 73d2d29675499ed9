//! A durable run's journal of its host boundary: the calls and timers its guest issued,
//! in issue order, and what reached the guest, in the order it was applied (one delivery
//! per job drain). Replaying it in a fresh VM must issue the same things in the same
//! order; anything else is a divergence and nothing is dispatched for it.

mod reads;
pub use reads::{CatalogRead, ReadKind};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A host call the guest issued.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IssuedCall {
    #[serde(rename = "b")]
    pub bridge_id: u32,
    /// `ToolCallContext.callId`, for `resolveCall` on a record.
    #[serde(rename = "id")]
    pub call_id: String,
    /// The guest's name for the tool.
    #[serde(rename = "t")]
    pub callable: String,
    /// The guest's input as JSON (compared as a value: key order does not matter).
    #[serde(rename = "i")]
    pub input: String,
    #[serde(rename = "s", default, skip_serializing_if = "is_false")]
    pub replay_safe: bool,
    /// Set when the call suspended itself (`ctx.suspend`), with its payload.
    #[serde(rename = "x", default, skip_serializing_if = "Option::is_none")]
    pub external: Option<String>,
    /// An outcome known but not yet delivered (an external call resolved while parked).
    #[serde(rename = "o", default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// Dispatched and still running in the process that wrote the record: it records the
    /// outcome, or renews this, before this time (Unix ms); past it, the call is lost.
    #[serde(rename = "h", default, skip_serializing_if = "Option::is_none")]
    pub held_until_ms: Option<f64>,
}

/// A guest timer, with the logical clock when it was started.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IssuedTimer {
    pub id: u32,
    #[serde(rename = "d")]
    pub delay_ms: u64,
    #[serde(rename = "c")]
    pub clock_ms: f64,
}

/// How a host call settled in the guest: a value, or a rejection's error JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    #[serde(rename = "k")]
    pub ok: bool,
    #[serde(rename = "v")]
    pub payload: String,
}

/// One thing applied to the guest, with the logical clock it read from then on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "e")]
pub enum Delivery {
    #[serde(rename = "r")]
    Reply {
        #[serde(rename = "b")]
        bridge_id: u32,
        #[serde(flatten)]
        outcome: Outcome,
        #[serde(rename = "c")]
        clock_ms: f64,
    },
    #[serde(rename = "t")]
    Timer {
        id: u32,
        #[serde(rename = "c")]
        clock_ms: f64,
    },
}

impl Delivery {
    pub fn clock_ms(&self) -> f64 {
        match self {
            Delivery::Reply { clock_ms, .. } | Delivery::Timer { clock_ms, .. } => *clock_ms,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    pub calls: Vec<IssuedCall>,
    pub timers: Vec<IssuedTimer>,
    pub deliveries: Vec<Delivery>,
    /// Catalog reads in issue order (`reads.rs`); absent in records made without any.
    #[serde(rename = "r", default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<CatalogRead>,
    /// Known: the run had no call refused (an unknown tool, say), so a call's position in
    /// `calls` is its position among all the calls the guest made, and a sandboxed replay
    /// may send its answers ahead of the calls. Records without it (older ones) or with a
    /// refusal replay one delivery per drain.
    #[serde(rename = "a", default, skip_serializing_if = "is_false")]
    pub all_accepted: bool,
}

impl Ledger {
    /// The ledger a new run starts with: nothing recorded, nothing refused yet.
    pub fn fresh() -> Ledger {
        Ledger {
            all_accepted: true,
            ..Ledger::default()
        }
    }
}

/// Whether an issued call or timer is new (dispatch it) or already in the ledger.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Issued {
    Live,
    Recorded,
}

/// A ledger being written, or replayed and then written: the cursors say how much of it
/// the fresh VM has caught up with.
#[derive(Debug, Default)]
pub struct Journal {
    ledger: Ledger,
    calls_seen: usize,
    timers_seen: usize,
    reads_seen: usize,
    applied: usize,
    /// How many calls and timers the record had when the replay began: only those can
    /// have been lost with the process that wrote it.
    recorded_calls: usize,
    recorded_timers: usize,
    /// About how many bytes the ledger holds: bounded by the run's `maxSnapshotBytes`.
    bytes: usize,
    /// The logical clock the guest reads: the run's origin, then each delivery's.
    clock_ms: f64,
}

impl Journal {
    /// A journal to replay `ledger` from its start (an empty one for a new run) for a
    /// run whose clock starts at `origin_ms`.
    pub fn replay(ledger: Ledger, origin_ms: f64) -> Journal {
        let bytes = ledger.calls.iter().map(call_bytes).sum::<usize>()
            + ledger.timers.len() * ENTRY_BYTES
            + ledger.deliveries.iter().map(delivery_bytes).sum::<usize>()
            + ledger.reads.iter().map(reads::read_bytes).sum::<usize>();
        Journal {
            bytes,
            recorded_calls: ledger.calls.len(),
            recorded_timers: ledger.timers.len(),
            ledger,
            clock_ms: origin_ms,
            ..Journal::default()
        }
    }

    pub fn clock_ms(&self) -> f64 {
        self.clock_ms
    }

    /// About how many bytes the ledger holds.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    pub fn into_ledger(self) -> Ledger {
        self.ledger
    }

    /// Deliveries recorded and not yet applied remain.
    pub fn replaying(&self) -> bool {
        self.applied < self.ledger.deliveries.len()
    }

    /// The guest issued host call `bridge_id`: checked against the ledger while it has
    /// calls the VM has not caught up with, appended after.
    pub fn issue_call(
        &mut self,
        bridge_id: u32,
        call_id: &str,
        callable: &str,
        input: &str,
        replay_safe: bool,
    ) -> Result<Issued, String> {
        if let Some(recorded) = self.ledger.calls.get(self.calls_seen) {
            let position = self.calls_seen + 1;
            if recorded.bridge_id != bridge_id || recorded.callable != callable {
                return Err(format!(
                    "the run's call #{position} was {}(...) and is now {callable}(...)",
                    recorded.callable
                ));
            }
            if !same_json(&recorded.input, input) {
                return Err(format!(
                    "the run's call #{position} to {callable} had other arguments"
                ));
            }
            self.calls_seen += 1;
            return Ok(Issued::Recorded);
        }
        if self.replaying() {
            return Err(format!(
                "the run now makes a call ({callable}) where its record has none"
            ));
        }
        let call = IssuedCall {
            bridge_id,
            call_id: call_id.to_string(),
            callable: callable.to_string(),
            input: input.to_string(),
            replay_safe,
            external: None,
            outcome: None,
            held_until_ms: None,
        };
        self.bytes += call_bytes(&call);
        self.ledger.calls.push(call);
        self.calls_seen += 1;
        Ok(Issued::Live)
    }

    /// A call the guest made was refused (never issued). While a record that had none
    /// is replayed, that is a divergence (its catalog lost a tool, say); otherwise the
    /// ledger no longer says every call was accepted.
    pub fn refused_call(&mut self) -> Result<(), String> {
        if self.replaying() && self.ledger.all_accepted {
            let recorded = self.ledger.calls.get(self.calls_seen);
            return Err(format!(
                "the run's call #{} ({}) was refused now and accepted when it was recorded (is a tool it called gone?)",
                self.calls_seen + 1,
                recorded.map_or("none recorded", |call| call.callable.as_str())
            ));
        }
        self.ledger.all_accepted = false;
        Ok(())
    }

    /// Whether every call the recorded run made was accepted (see [`Ledger::all_accepted`]).
    pub fn all_accepted(&self) -> bool {
        self.ledger.all_accepted
    }

    /// The recorded deliveries the VM has not had yet.
    pub fn recorded_ahead(&self) -> &[Delivery] {
        self.ledger
            .deliveries
            .get(self.applied..)
            .unwrap_or_default()
    }

    /// The guest started timer `id`.
    pub fn issue_timer(&mut self, id: u32, delay_ms: u64, clock_ms: f64) -> Result<Issued, String> {
        if let Some(recorded) = self.ledger.timers.get(self.timers_seen) {
            if recorded.id != id || recorded.delay_ms != delay_ms {
                return Err(format!(
                    "the run's timer #{} waited {} ms and now waits {delay_ms} ms",
                    self.timers_seen + 1,
                    recorded.delay_ms
                ));
            }
            self.timers_seen += 1;
            return Ok(Issued::Recorded);
        }
        if self.replaying() {
            return Err("the run now starts a timer where its record has none".to_string());
        }
        self.bytes += ENTRY_BYTES;
        self.ledger.timers.push(IssuedTimer {
            id,
            delay_ms,
            clock_ms,
        });
        self.timers_seen += 1;
        Ok(Issued::Live)
    }

    /// The next recorded delivery the VM has not had yet.
    pub fn next_recorded(&self) -> Option<&Delivery> {
        self.ledger.deliveries.get(self.applied)
    }

    /// The recorded delivery `next_recorded` gave was applied.
    pub fn applied_recorded(&mut self) {
        if let Some(delivery) = self.ledger.deliveries.get(self.applied) {
            self.clock_ms = delivery.clock_ms();
            self.applied += 1;
        }
    }

    /// A live delivery was applied: appended (and counted as caught up).
    pub fn applied_live(&mut self, delivery: Delivery) {
        if let Delivery::Reply { bridge_id, .. } = &delivery {
            if let Some(call) = self.call_mut(*bridge_id) {
                call.outcome = None;
            }
        }
        self.clock_ms = delivery.clock_ms();
        self.bytes += delivery_bytes(&delivery);
        self.ledger.deliveries.push(delivery);
        self.applied = self.ledger.deliveries.len();
    }

    /// Recorded calls and timers the VM has issued again whose delivery is not in the
    /// ledger: what was still out when the record was written (not what this replay
    /// issued live after it).
    pub fn undelivered(&self) -> (Vec<IssuedCall>, Vec<IssuedTimer>) {
        let delivered =
            |matches: &dyn Fn(&Delivery) -> bool| self.ledger.deliveries.iter().any(matches);
        let calls = self.ledger.calls[..self.calls_seen.min(self.recorded_calls)]
            .iter()
            .filter(|c| !delivered(&|d| matches!(d, Delivery::Reply { bridge_id, .. } if *bridge_id == c.bridge_id)))
            .cloned()
            .collect();
        let timers = self.ledger.timers[..self.timers_seen.min(self.recorded_timers)]
            .iter()
            .filter(|t| !delivered(&|d| matches!(d, Delivery::Timer { id, .. } if *id == t.id)))
            .cloned()
            .collect();
        (calls, timers)
    }

    /// How many calls the record had when this journal began: those were dispatched by
    /// another process (or an earlier life of this run).
    pub fn recorded_calls(&self) -> usize {
        self.recorded_calls
    }

    pub(super) fn ledger_mut(&mut self) -> &mut Ledger {
        &mut self.ledger
    }

    /// Whether every recorded call and timer has been issued again.
    pub fn caught_up(&self) -> bool {
        self.calls_seen >= self.recorded_calls && self.timers_seen >= self.recorded_timers
    }

    /// Call `bridge_id` suspended itself with `payload`.
    pub fn mark_external(&mut self, bridge_id: u32, payload: &str) {
        if let Some(call) = self.call_mut(bridge_id) {
            call.external = Some(payload.to_string());
        }
    }

    /// Sets the outcome of external call `bridge_id`, once: false if it has one or was
    /// delivered, or is not external.
    pub fn resolve_external(&mut self, bridge_id: u32, outcome: Outcome) -> bool {
        let delivered = self.ledger.delivered(bridge_id);
        match self.call_mut(bridge_id) {
            Some(call) if call.external.is_some() && call.outcome.is_none() && !delivered => {
                call.outcome = Some(outcome);
                true
            }
            _ => false,
        }
    }

    /// The bridge id of call `call_id`.
    pub fn bridge_id_of(&self, call_id: &str) -> Option<u32> {
        self.ledger
            .calls
            .iter()
            .find(|call| call.call_id == call_id)
            .map(|call| call.bridge_id)
    }

    fn call_mut(&mut self, bridge_id: u32) -> Option<&mut IssuedCall> {
        self.ledger
            .calls
            .iter_mut()
            .find(|call| call.bridge_id == bridge_id)
    }
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// What an entry costs beyond its text: ids, flags, clock and serialisation.
const ENTRY_BYTES: usize = 96;

fn call_bytes(call: &IssuedCall) -> usize {
    ENTRY_BYTES + call.call_id.len() + call.callable.len() + call.input.len()
}

fn delivery_bytes(delivery: &Delivery) -> usize {
    match delivery {
        Delivery::Reply { outcome, .. } => ENTRY_BYTES + outcome.payload.len(),
        Delivery::Timer { .. } => ENTRY_BYTES,
    }
}

/// Equal as JSON values; text that does not parse compares as text.
fn same_json(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    match (
        serde_json::from_str::<Value>(a),
        serde_json::from_str::<Value>(b),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
#[path = "ledger_tests.rs"]
mod tests;
