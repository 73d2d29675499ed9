//! The interrupt side of a VM: abort flag, wall-clock deadline and pause accounting,
//! shared between the QuickJS interrupt handler (on whichever worker runs the VM), the
//! host (abort signals, `pauseBudget`) and the timer thread.

use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::time::Duration;

/// Why the interrupt handler stopped the guest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interrupt {
    None,
    Deadline,
    Abort,
    /// The VM's heap refused an allocation: the cell fails whatever the guest caught.
    Memory,
}

pub use crate::runtime::clock::{instant_of, now_ns};

#[derive(Debug, Default)]
pub struct Control {
    abort: AtomicBool,
    deadline_ns: AtomicU64,
    /// The last budget set, in ms: a timeout's message names the limit it exceeded.
    budget_ms: AtomicU64,
    interrupted: AtomicU8,
    /// Open `pauseBudget()` windows: the clock is stopped while any is open.
    pauses: Mutex<PauseState>,
    /// Told of an abort: a VM in a sandbox process has its own control to stop.
    on_abort: AbortHook,
}

/// `Control::on_abort`'s callback.
#[derive(Default)]
struct AbortHook(Mutex<Option<Box<dyn Fn() + Send + Sync>>>);

impl std::fmt::Debug for AbortHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AbortHook")
    }
}

#[derive(Debug, Default)]
struct PauseState {
    open: u32,
    since_ns: u64,
}

impl Control {
    pub fn new() -> Self {
        Control {
            deadline_ns: AtomicU64::new(u64::MAX),
            ..Default::default()
        }
    }

    pub fn set_deadline_after(&self, budget: Duration) {
        let ns = now_ns().saturating_add(u64::try_from(budget.as_nanos()).unwrap_or(u64::MAX));
        self.deadline_ns.store(ns, Ordering::SeqCst);
        let ms = u64::try_from(budget.as_millis()).unwrap_or(u64::MAX);
        self.budget_ms.store(ms, Ordering::SeqCst);
    }

    /// The budget of the last [`Control::set_deadline_after`], in ms (0 before any).
    pub fn budget_ms(&self) -> u64 {
        self.budget_ms.load(Ordering::SeqCst)
    }

    pub fn deadline_ns(&self) -> u64 {
        self.deadline_ns.load(Ordering::SeqCst)
    }

    pub fn abort(&self) {
        self.abort.store(true, Ordering::SeqCst);
        if let Some(hook) = self.on_abort.0.lock().as_ref() {
            hook();
        }
    }

    /// Calls `hook` on every later abort.
    pub fn on_abort(&self, hook: Box<dyn Fn() + Send + Sync>) {
        *self.on_abort.0.lock() = Some(hook);
    }

    /// Time left before the deadline; `None` while a pause window is open or without one.
    pub fn remaining_ns(&self) -> Option<u64> {
        if self.pauses.lock().open > 0 {
            return None;
        }
        let deadline = self.deadline_ns();
        (deadline != u64::MAX).then(|| deadline.saturating_sub(now_ns()))
    }

    /// Adopts an interrupt reason recorded elsewhere (by a sandbox process's control);
    /// 0 (none) changes nothing.
    pub fn adopt_interrupt(&self, reason: u8) {
        if (1..=3).contains(&reason) {
            self.interrupted.store(reason, Ordering::SeqCst);
        }
    }

    /// The interrupt reason as [`Control::adopt_interrupt`] takes it.
    pub fn interrupt_code(&self) -> u8 {
        self.interrupted.load(Ordering::SeqCst)
    }

    pub fn is_aborted(&self) -> bool {
        self.abort.load(Ordering::SeqCst)
    }

    /// The budget is over: the deadline passed and no pause window is open.
    pub fn deadline_passed(&self) -> bool {
        if self.pauses.lock().open > 0 {
            return false;
        }
        now_ns() >= self.deadline_ns()
    }

    /// Called by QuickJS every few thousand instructions; true stops the guest with an
    /// uncatchable exception.
    pub fn should_interrupt(&self) -> bool {
        if self.is_aborted() {
            self.interrupted.store(2, Ordering::SeqCst);
            return true;
        }
        let now = now_ns();
        crate::runtime::priority::offer_core_at(now);
        // A pause only stops the clock while the host waits; guest computation always counts.
        if now >= self.deadline_ns() && self.pauses.lock().open == 0 {
            self.interrupted.store(1, Ordering::SeqCst);
            return true;
        }
        false
    }

    pub fn interrupt(&self) -> Interrupt {
        match self.interrupted.load(Ordering::SeqCst) {
            1 => Interrupt::Deadline,
            2 => Interrupt::Abort,
            3 => Interrupt::Memory,
            _ => Interrupt::None,
        }
    }

    /// The heap hit its limit: records why the interrupt handler stops the guest.
    pub fn stop_for_memory(&self) {
        self.interrupted.store(3, Ordering::SeqCst);
    }

    /// Opens a pause window (`ctx.pauseBudget()`).
    pub fn pause(&self) {
        let mut state = self.pauses.lock();
        if state.open == 0 {
            state.since_ns = now_ns();
        }
        state.open += 1;
    }

    /// Closes a pause window; the deadline moves by exactly the time all windows were open.
    pub fn resume(&self) {
        let mut state = self.pauses.lock();
        if state.open == 0 {
            return;
        }
        state.open -= 1;
        if state.open == 0 {
            let paused = now_ns().saturating_sub(state.since_ns);
            let current = self.deadline_ns.load(Ordering::SeqCst);
            self.deadline_ns
                .store(current.saturating_add(paused), Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abort_interrupts_with_the_abort_reason() {
        let control = Control::new();
        assert!(!control.should_interrupt());
        control.abort();
        assert!(control.should_interrupt());
        assert_eq!(control.interrupt(), Interrupt::Abort);
    }

    #[test]
    fn a_passed_deadline_interrupts_with_the_deadline_reason() {
        let control = Control::new();
        control.set_deadline_after(Duration::from_millis(0));
        assert!(control.should_interrupt());
        assert_eq!(control.interrupt(), Interrupt::Deadline);
    }

    #[test]
    fn a_pause_moves_the_deadline_by_the_paused_time() {
        let control = Control::new();
        control.set_deadline_after(Duration::from_millis(20));
        let before = control.deadline_ns();
        control.pause();
        std::thread::sleep(Duration::from_millis(30));
        assert!(!control.deadline_passed());
        control.resume();
        assert!(control.deadline_ns() >= before + 30_000_000);
        assert!(!control.deadline_passed());
    }
}
