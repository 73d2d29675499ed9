//! CPU-time clocks of threads and processes (Linux), read by the watchdog to tell a stuck
//! turn from a starved one; elsewhere no clock is known and the judgement is wall-clock only.

/// No clock known.
pub const NO_CLOCK: i64 = i64::MIN;

pub use imp::{current, read};

#[cfg(target_os = "linux")]
mod imp {
    use super::NO_CLOCK;

    thread_local! {
        static CLOCK: i64 = own_clock();
    }

    fn own_clock() -> i64 {
        let mut clock: libc::clockid_t = 0;
        // SAFETY: pthread_self() is this live thread; `clock` is a valid out-pointer.
        let status = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
        if status == 0 {
            i64::from(clock)
        } else {
            NO_CLOCK
        }
    }

    /// This thread's CPU-time clock.
    pub fn current() -> i64 {
        CLOCK.with(|clock| *clock)
    }

    pub fn read(clock: i64) -> Option<u64> {
        let clock = libc::clockid_t::try_from(clock).ok()?;
        let mut time = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `time` is a valid out-pointer; a clock of a thread that has exited
        // makes the call fail, which reads as "unknown".
        if unsafe { libc::clock_gettime(clock, &mut time) } != 0 {
            return None;
        }
        let seconds = u64::try_from(time.tv_sec).ok()?;
        let nanos = u64::try_from(time.tv_nsec).ok()?;
        Some(seconds.saturating_mul(1_000_000_000).saturating_add(nanos))
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub fn current() -> i64 {
        super::NO_CLOCK
    }

    pub fn read(_clock: i64) -> Option<u64> {
        None
    }
}
