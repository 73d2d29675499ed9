//! Guest threads yield the CPU to the gateway's own: workers, the housekeeper and the
//! reaper run at a lower scheduling priority and offer their core back every 250 µs of
//! work, so guests computing on every core cannot starve the Node event loop.

/// Nice value of guest threads (Linux): the lowest. Linux's EEVDF scheduler still gives
/// a lower-weight thread its share, and pays it in turns of up to a scheduler tick
/// during which the Node thread, having had more than its share, must wait; the lower the
/// weight, the rarer those turns. Nice never leaves a free core idle, so guests lose
/// throughput only while the gateway's own threads want every core. `SCHED_IDLE` did no
/// better and would leave guests less under a fully loaded host (docs/design.md).
#[cfg(target_os = "linux")]
const GUEST_THREAD_NICE: libc::c_int = 19;

thread_local! {
    /// Set on threads that run at guest priority (workers, housekeeping, reaping).
    static GUEST_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// When this thread last offered its core (`now_ns` clock).
    static LAST_OFFER_NS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How long a guest thread works before it offers its core to any thread the kernel
/// would rather run (the Node thread, at a higher priority).
const OFFER_CORE_EVERY_NS: u64 = 250_000;

/// Yields the core if this thread has worked `OFFER_CORE_EVERY_NS` since it last did.
///
/// Why: the kernel preempts a running thread only at a wake-up or a scheduler tick, and
/// EEVDF lets a thread it just picked finish its slice before a woken one runs. A worker
/// picked while the Node thread was busy then kept the core for a whole tick while the
/// Node thread, runnable, waited. Guest code offers from the QuickJS interrupt handler;
/// the threads' own loops offer between jobs, since building, loading and freeing VMs
/// runs no guest code. A yield costs a syscall and returns at once when nobody else is
/// runnable.
pub fn offer_core_at(now_ns: u64) {
    LAST_OFFER_NS.with(|last| {
        if now_ns.saturating_sub(last.get()) >= OFFER_CORE_EVERY_NS {
            last.set(now_ns);
            std::thread::yield_now();
        }
    });
}

/// `offer_core_at` with a fresh clock reading: for a guest thread between two jobs.
pub fn offer_core() {
    offer_core_at(crate::runtime::clock::now_ns());
}

/// Whether the calling thread is one of ours at guest priority, as opposed to the
/// gateway's (Node's) threads or the timer thread.
pub fn is_guest_thread() -> bool {
    GUEST_THREAD.with(|flag| flag.get())
}

/// Lowers the priority of the calling thread; best effort (a refusal leaves it as is).
#[cfg(target_os = "linux")]
pub fn lower_current_thread() {
    GUEST_THREAD.with(|flag| flag.set(true));
    // SAFETY: `gettid` has no preconditions, and `setpriority` on the caller's own thread
    // id changes only that thread's nice value; both only return error codes.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, GUEST_THREAD_NICE);
    }
}

/// Other platforms keep the default priority (their thread-priority APIs differ).
#[cfg(not(target_os = "linux"))]
pub fn lower_current_thread() {
    GUEST_THREAD.with(|flag| flag.set(true));
}

/// Lowers another thread of this process, by kernel thread id, to guest priority; best
/// effort, and a no-op off Linux or for an unknown id (negative).
pub fn lower_thread(tid: i64) {
    #[cfg(target_os = "linux")]
    if let Ok(tid) = libc::id_t::try_from(tid) {
        // SAFETY: `setpriority` only changes the nice value of the thread it names and
        // returns an error code for an id that is gone.
        unsafe {
            libc::setpriority(libc::PRIO_PROCESS, tid, GUEST_THREAD_NICE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = tid;
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn a_lowered_thread_runs_at_the_guest_nice_value() {
        let nice = std::thread::spawn(|| {
            super::lower_current_thread();
            // SAFETY: reading the caller's own priority has no preconditions.
            unsafe {
                let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                libc::getpriority(libc::PRIO_PROCESS, tid)
            }
        })
        .join()
        .unwrap();
        assert_eq!(nice, super::GUEST_THREAD_NICE);
    }

    #[test]
    fn a_thread_offers_its_core_at_most_once_per_interval() {
        let offers = std::thread::spawn(|| {
            let last = || super::LAST_OFFER_NS.with(|last| last.get());
            let start = super::OFFER_CORE_EVERY_NS * 10;
            super::offer_core_at(start);
            let first = last();
            super::offer_core_at(start + super::OFFER_CORE_EVERY_NS - 1);
            let too_soon = last();
            super::offer_core_at(start + super::OFFER_CORE_EVERY_NS);
            (first, too_soon, last())
        })
        .join()
        .unwrap();
        let start = super::OFFER_CORE_EVERY_NS * 10;
        assert_eq!(offers, (start, start, start + super::OFFER_CORE_EVERY_NS));
    }

    #[test]
    fn only_lowered_threads_count_as_guest_threads() {
        let lowered = std::thread::spawn(|| {
            super::lower_current_thread();
            super::is_guest_thread()
        })
        .join()
        .unwrap();
        assert!(lowered);
        assert!(!std::thread::spawn(super::is_guest_thread).join().unwrap());
    }
}
