//! A durable run's recorded deliveries sent to a sandboxed VM in one command, each with
//! its clock and a job drain, in ledger order: what one command per delivery would do.
//! Replies are addressed by the sandbox's own ids, which the gateway can predict only
//! while every call the guest made was accepted; the `Done` says whether each one landed.

use super::super::wire::{own_call_id, Step};
use super::{clock, RemoteVm};
use std::sync::atomic::{AtomicU64, Ordering};

/// Recorded deliveries sent in batches, in this process: for stats and tests.
pub static REPLAYED_IN_BATCHES: AtomicU64 = AtomicU64::new(0);

/// Deliveries one command carries at most: the sandbox runs a command's steps without a
/// check-in, so a long record goes as several.
pub const MAX_BATCH_DELIVERIES: usize = 1024;
/// Recorded payload bytes one command carries at most (a larger single one goes alone).
pub const MAX_BATCH_BYTES: usize = 1 << 20;

/// One recorded delivery to replay.
#[derive(Clone, Debug)]
pub enum ReplayStep {
    /// The answer to the guest's host call number `position` (0-based, the order it made
    /// its calls in), which the run knows as `bridge_id`.
    Reply {
        position: u32,
        bridge_id: u32,
        ok: bool,
        payload: String,
        clock_ms: f64,
    },
    /// Timer `id` (the run's id) fires.
    Timer { id: u32, clock_ms: f64 },
}

impl ReplayStep {
    /// The recorded payload bytes it carries.
    pub fn bytes(&self) -> usize {
        match self {
            ReplayStep::Reply { payload, .. } => payload.len(),
            ReplayStep::Timer { .. } => 0,
        }
    }
}

/// What a batch did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// How many of the steps went (the first ones, within the caps above).
    pub sent: usize,
    /// How many of those, from the first, reached the call or timer they answer: fewer
    /// than `sent` means the guest did not make them as recorded (it diverged).
    pub landed: usize,
}

/// What one command may still carry: deliveries and payload bytes are counted as they
/// are admitted, and the first always goes (a larger single one goes alone).
#[derive(Default)]
pub struct BatchRoom {
    count: usize,
    bytes: usize,
}

impl BatchRoom {
    /// Admits a delivery of `bytes` payload bytes if it fits.
    pub fn admits(&mut self, bytes: usize) -> bool {
        let bytes = self.bytes + bytes;
        if self.count >= MAX_BATCH_DELIVERIES || (self.count > 0 && bytes > MAX_BATCH_BYTES) {
            return false;
        }
        self.count += 1;
        self.bytes = bytes;
        true
    }
}

/// How many of `steps`, from the first, one command carries.
fn fitting(steps: &[ReplayStep]) -> usize {
    let mut room = BatchRoom::default();
    steps
        .iter()
        .take_while(|step| room.admits(step.bytes()))
        .count()
}

impl RemoteVm {
    /// Sends the first of `steps` that fit one command and waits for it (see the module
    /// doc); `None` if the sandbox did not answer (the VM is lost).
    pub fn replay_batch(&self, steps: &[ReplayStep]) -> Option<Replayed> {
        let sent = fitting(steps);
        // Deliveries already queued would come first and shift the sandbox's count of
        // those that landed (a replay queues none).
        if sent == 0 || clock::needs_command(&self.link.pending.lock()) {
            return Some(Replayed { sent: 0, landed: 0 });
        }
        let steps = &steps[..sent];
        let deterministic = self.deterministic.load(Ordering::SeqCst);
        let mut command = Vec::with_capacity(sent * 3);
        for step in steps {
            let (clock_ms, step) = match step {
                ReplayStep::Reply {
                    position,
                    ok,
                    payload,
                    clock_ms,
                    ..
                } => (
                    *clock_ms,
                    Step::Settle {
                        id: own_call_id(*position),
                        ok: *ok,
                        payload: payload.clone(),
                    },
                ),
                ReplayStep::Timer { id, clock_ms } => (*clock_ms, Step::FireTimer { id: *id }),
            };
            if deterministic {
                clock::queue(&mut command, clock_ms);
            }
            command.push(step);
            command.push(Step::DrainJobs);
        }
        REPLAYED_IN_BATCHES.fetch_add(sent as u64, Ordering::Relaxed);
        self.link.hold_calls.store(true, Ordering::SeqCst);
        let done = self.run(command);
        self.link.hold_calls.store(false, Ordering::SeqCst);
        let done = done?;
        // Every call the guest made in the command was started before its `Done` was read:
        // each reply must have gone to the id its call got, and found it waiting.
        let mut calls = self.link.calls.lock();
        let mut landed = 0;
        for (index, step) in steps.iter().enumerate() {
            let addressed = match step {
                ReplayStep::Reply {
                    position,
                    bridge_id,
                    ..
                } => calls.remove(bridge_id) == Some(own_call_id(*position)),
                ReplayStep::Timer { .. } => true,
            };
            if addressed && landed == index {
                landed += 1;
            }
        }
        let before_miss = done
            .landed_before_miss
            .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
        Some(Replayed {
            sent,
            landed: landed.min(before_miss),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(bytes: usize) -> ReplayStep {
        ReplayStep::Reply {
            position: 0,
            bridge_id: 1,
            ok: true,
            payload: "x".repeat(bytes),
            clock_ms: 0.0,
        }
    }

    #[test]
    fn a_command_carries_at_most_its_count_and_bytes_but_always_one() {
        let timers = vec![
            ReplayStep::Timer {
                id: 1,
                clock_ms: 0.0
            };
            MAX_BATCH_DELIVERIES + 5
        ];
        assert_eq!(fitting(&timers), MAX_BATCH_DELIVERIES);
        let half = MAX_BATCH_BYTES / 2;
        assert_eq!(fitting(&[reply(half), reply(half), reply(1)]), 2);
        assert_eq!(
            fitting(&[reply(MAX_BATCH_BYTES * 2), reply(1)]),
            1,
            "a large one goes alone"
        );
        assert_eq!(fitting(&[]), 0);
    }
}
