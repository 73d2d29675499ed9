//! The process's global allocator, which can hold one thread to a byte budget. The source
//! front-end parses hostile source under one: oxc's speculation on some inputs allocates
//! without bound and can neither be told to stop nor fail an allocation without aborting,
//! so a thread over its budget runs its overrun hook and then never returns.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;

const UNLIMITED: usize = usize::MAX;

// Plain `Cell`s of `Copy` values: reading them from inside the allocator never allocates.
thread_local! {
    static LEFT: Cell<usize> = const { Cell::new(UNLIMITED) };
    static GRANT: Cell<usize> = const { Cell::new(UNLIMITED) };
}

thread_local! {
    /// What this thread does right before it stops for good (set before any budget, so
    /// the allocator never initialises it).
    static HOOK: std::cell::RefCell<Option<Box<dyn Fn()>>> = const { std::cell::RefCell::new(None) };
}

/// `A` with per-thread budgets; unbudgeted threads pay one thread-local read per call.
pub struct Budgeted<A>(pub A);

// SAFETY: every call is forwarded to `A` unchanged; the budget only counts sizes.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Budgeted<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        charge(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { self.0.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        charge(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { self.0.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        refund(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { self.0.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            charge(new_size - layout.size());
        } else {
            refund(layout.size() - new_size);
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { self.0.realloc(ptr, layout, new_size) }
    }
}

/// What the calling thread does if it runs over a budget: answer whoever waits on its
/// work, since it stops for good right after (inside an allocation, so the hook may
/// allocate but must not wait on a lock the stopped work may hold).
pub fn on_overrun_here(hook: Box<dyn Fn()>) {
    HOOK.with(|slot| *slot.borrow_mut() = Some(hook));
}

/// Forgets the calling thread's overrun hook.
pub fn clear_overrun_hook() {
    HOOK.with(|slot| slot.borrow_mut().take());
}

/// Runs `work` with the calling thread's live allocations held to `bytes` more than at
/// the start. Past that, the thread's overrun hook runs and it parks forever, holding what
/// it had: the caller must have a way to give up on it (a budget in time, the watchdog).
pub fn with_budget<R>(bytes: usize, work: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            LEFT.set(UNLIMITED);
            GRANT.set(UNLIMITED);
        }
    }
    if LEFT.get() != UNLIMITED {
        // Already under a budget (a nested front-end call): that one holds.
        return work();
    }
    let _reset = Reset;
    GRANT.set(bytes);
    LEFT.set(bytes);
    work()
}

fn charge(bytes: usize) {
    // `try_with`: the slot is gone while the thread's own locals are torn down.
    let over = LEFT
        .try_with(|left| match left.get() {
            UNLIMITED => false,
            now if bytes <= now => {
                left.set(now - bytes);
                false
            }
            _ => {
                left.set(UNLIMITED);
                true
            }
        })
        .unwrap_or(false);
    if over {
        overrun();
    }
}

fn refund(bytes: usize) {
    let _ = LEFT.try_with(|left| {
        let now = left.get();
        if now != UNLIMITED {
            left.set(now.saturating_add(bytes).min(GRANT.get()));
        }
    });
}

/// The work that asked for memory can neither be given none nor unwind out of the
/// allocator, so the thread stops here for good.
#[cold]
fn overrun() -> ! {
    let _ = HOOK.try_with(|slot| {
        if let Some(hook) = slot.borrow().as_ref() {
            hook();
        }
    });
    loop {
        std::thread::park();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    static OVERRUNS: AtomicUsize = AtomicUsize::new(0);

    #[test]
    fn a_budget_is_the_growth_of_live_bytes_and_ends_with_its_work() {
        // Freed memory is given back, so churn within the budget never runs over it.
        let kept = super::with_budget(1 << 20, || {
            let mut total = 0;
            for _ in 0..64 {
                let chunk = std::hint::black_box(vec![1u8; 256 * 1024]);
                total += chunk.len();
            }
            total
        });
        assert_eq!(kept, 64 * 256 * 1024);
        assert_eq!(super::LEFT.get(), super::UNLIMITED);
    }

    #[test]
    fn a_thread_over_its_budget_runs_the_hook_and_stops_for_good() {
        let (finished, done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            super::on_overrun_here(Box::new(|| {
                OVERRUNS.fetch_add(1, Ordering::SeqCst);
            }));
            let grew =
                super::with_budget(1 << 20, || std::hint::black_box(vec![1u8; 4 << 20]).len());
            let _ = finished.send(grew);
        });
        while OVERRUNS.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        // The thread is parked inside the allocation: it has not sent, and never will.
        assert!(done.try_recv().is_err());
    }
}
