//! The process's monotonic clock in nanoseconds, shared by interrupt checks, deadlines,
//! the watchdog and thread priority.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Nanoseconds since the process epoch; a u64 fits centuries.
pub fn now_ns() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

pub fn instant_of(ns: u64) -> Instant {
    let now = now_ns();
    let now_instant = Instant::now();
    if ns >= now {
        now_instant + Duration::from_nanos(ns - now)
    } else {
        now_instant
            .checked_sub(Duration::from_nanos(now - ns))
            .unwrap_or(now_instant)
    }
}
