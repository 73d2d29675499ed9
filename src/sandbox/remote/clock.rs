//! A deterministic sandboxed VM's clock changes: queued with the steps they precede, never
//! a frame of their own. Back-to-back changes keep only the last, so they add at most one
//! step per other step waiting.

use super::super::wire::Step;

/// Queues a move of the clock to `ms` before whatever is queued next; one that is not
/// finite leaves the clock as it is, so it is not queued.
pub(super) fn queue(pending: &mut Vec<Step>, ms: f64) {
    if !ms.is_finite() {
        return;
    }
    match pending.last_mut() {
        Some(Step::SetClock { ms: last }) => *last = ms,
        _ => pending.push(Step::SetClock { ms }),
    }
}

/// Whether `pending` holds a step the guest must see now: clock changes alone wait for one.
pub(super) fn needs_command(pending: &[Step]) -> bool {
    pending.iter().any(|step| !is_clock(step))
}

/// Whether a clock change waits to go with the next command.
pub(super) fn waits(pending: &[Step]) -> bool {
    pending.iter().any(is_clock)
}

fn is_clock(step: &Step) -> bool {
    matches!(step, Step::SetClock { .. })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clocks(pending: &[Step]) -> Vec<f64> {
        pending
            .iter()
            .filter_map(|step| match step {
                Step::SetClock { ms } => Some(*ms),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn back_to_back_changes_keep_the_last_and_others_keep_their_place() {
        let mut pending = Vec::new();
        queue(&mut pending, 1.0);
        queue(&mut pending, 2.0);
        assert_eq!(clocks(&pending), [2.0]);
        assert!(!needs_command(&pending), "a clock change alone waits");
        assert!(waits(&pending));
        pending.push(Step::FireTimer { id: 1 });
        queue(&mut pending, 3.0);
        assert_eq!(clocks(&pending), [2.0, 3.0]);
        assert!(matches!(pending[1], Step::FireTimer { id: 1 }));
        assert!(needs_command(&pending));
    }

    #[test]
    fn a_time_that_is_not_finite_is_not_queued() {
        let mut pending = Vec::new();
        queue(&mut pending, f64::NAN);
        queue(&mut pending, f64::INFINITY);
        assert!(pending.is_empty());
        queue(&mut pending, 5.0);
        queue(&mut pending, f64::NEG_INFINITY);
        assert_eq!(clocks(&pending), [5.0]);
    }
}
