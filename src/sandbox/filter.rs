//! The sandbox process's system-call filter (Linux): the calls the engine makes once running
//! are allowed, a forbidden call kills the process, and a few that libc and the allocator
//! make on their own fail with EACCES instead.

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

/// What the engine does once running: pipe I/O (and `poll`, to wait on the pipe and the
/// process's own eventfd with a time limit), memory, futexes, clocks, randomness,
/// yielding, and dying. `tgkill` is not here: it is allowed only towards this process
/// (`to_itself`), which is how abort raises SIGABRT.
const ALLOWED: &[i64] = &[
    libc::SYS_read,
    libc::SYS_write,
    libc::SYS_writev,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_poll,
    libc::SYS_ppoll,
    libc::SYS_close,
    libc::SYS_mmap,
    libc::SYS_munmap,
    libc::SYS_mremap,
    libc::SYS_mprotect,
    libc::SYS_madvise,
    libc::SYS_brk,
    libc::SYS_futex,
    libc::SYS_clock_gettime,
    libc::SYS_clock_getres,
    libc::SYS_gettimeofday,
    libc::SYS_sched_yield,
    libc::SYS_getrandom,
    libc::SYS_exit,
    libc::SYS_exit_group,
    libc::SYS_rt_sigreturn,
    libc::SYS_rt_sigprocmask,
    libc::SYS_rt_sigaction,
    libc::SYS_sigaltstack,
    libc::SYS_restart_syscall,
    libc::SYS_gettid,
    libc::SYS_getpid,
    libc::SYS_rseq,
    libc::SYS_getcpu,
    libc::SYS_sched_getaffinity,
    libc::SYS_nanosleep,
    libc::SYS_clock_nanosleep,
    libc::SYS_seccomp,
];

/// Calls that fail with EACCES rather than kill: libc and the allocator make them on
/// their own (probing locale and time-zone files, naming or placing memory) and cope
/// with a refusal; the guest cannot steer them.
const REFUSED: &[i64] = &[
    libc::SYS_openat,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_open,
    libc::SYS_prctl,
    libc::SYS_ioctl,
    libc::SYS_readlinkat,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_readlink,
    libc::SYS_newfstatat,
    libc::SYS_statx,
    libc::SYS_fstat,
    libc::SYS_lseek,
    libc::SYS_mbind,
    libc::SYS_get_mempolicy,
    libc::SYS_set_mempolicy,
    libc::SYS_sysinfo,
];

/// Installs both filters on every thread of the process.
pub fn install() -> Result<(), String> {
    // The kernel runs every installed filter and applies the strictest answer: the
    // allow-list lets `openat` through, the second filter turns it into EACCES.
    // Installing the second filter needs `prctl` and `seccomp` through the first; more
    // filters can only ever forbid more.
    for program in programs()? {
        seccompiler::apply_filter_all_threads(&program).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The allow-list, then the refusals, compiled for this process (the `tgkill` rule names
/// its pid).
fn programs() -> Result<[BpfProgram; 2], String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let mut allowed: BTreeMap<i64, Vec<SeccompRule>> = ALLOWED
        .iter()
        .chain(REFUSED)
        .map(|call| (*call, Vec::new()))
        .collect();
    allowed.insert(libc::SYS_tgkill, vec![to_itself()?]);
    let allow = SeccompFilter::new(
        allowed,
        SeccompAction::KillProcess,
        SeccompAction::Allow,
        arch,
    )
    .map_err(|e| e.to_string())?;
    let refused: BTreeMap<i64, Vec<SeccompRule>> =
        REFUSED.iter().map(|call| (*call, Vec::new())).collect();
    let refuse = SeccompFilter::new(
        refused,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let compile = |filter: SeccompFilter| -> Result<BpfProgram, String> {
        filter
            .try_into()
            .map_err(|e: seccompiler::BackendError| e.to_string())
    };
    Ok([compile(allow)?, compile(refuse)?])
}

/// `tgkill(tgid, tid, sig)` only with this process's id as `tgid`: glibc's `raise`
/// (abort) sends `tgkill(getpid(), gettid(), SIGABRT)`; any other target, such as the
/// gateway, kills the process instead. The id is read now: it never changes, and a
/// pid is 32 bits, so the low double word of the argument is all of it.
fn to_itself() -> Result<SeccompRule, String> {
    let pid = u64::from(std::process::id());
    let tgid = SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, pid)
        .map_err(|e| e.to_string())?;
    SeccompRule::new(vec![tgid]).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    /// How a forked child ended that installed the filter, then ran `attempt`: its exit
    /// code, or the signal that killed it.
    fn jailed(attempt: fn() -> i32) -> Result<i32, i32> {
        crate::sandbox::forked::run(|| match super::programs() {
            Ok(programs)
                if programs
                    .iter()
                    .all(|p| seccompiler::apply_filter(p).is_ok()) =>
            {
                attempt()
            }
            _ => 100,
        })
    }

    /// Makes system call `nr` with plain numbers for arguments; its result as an exit
    /// code: 0, or its errno.
    fn call(nr: libc::c_long, args: [libc::c_long; 4]) -> i32 {
        // SAFETY: every call here takes numbers, null pointers or a static C string; the
        // filter kills the caller of a forbidden one before the kernel reads an argument.
        match unsafe { libc::syscall(nr, args[0], args[1], args[2], args[3]) } {
            0 => 0,
            _ => std::io::Error::last_os_error().raw_os_error().unwrap_or(99),
        }
    }

    fn parent() -> libc::c_long {
        // SAFETY: getppid has no preconditions.
        libc::c_long::from(unsafe { libc::getppid() })
    }

    #[test]
    fn abort_still_raises_sigabrt() {
        assert_eq!(jailed(|| std::process::abort()), Err(libc::SIGABRT));
    }

    #[test]
    fn a_signal_to_itself_is_allowed() {
        let to_itself = || {
            let pid = libc::c_long::from(std::process::id());
            // SAFETY: gettid has no preconditions.
            let tid = libc::c_long::from(unsafe { libc::gettid() });
            call(libc::SYS_tgkill, [pid, tid, 0, 0])
        };
        assert_eq!(jailed(to_itself), Ok(0));
    }

    #[test]
    fn every_way_to_signal_another_process_kills_the_caller() {
        let attempts: [fn() -> i32; 7] = [
            || call(libc::SYS_kill, [parent(), 0, 0, 0]),
            || call(libc::SYS_tkill, [parent(), 0, 0, 0]),
            || call(libc::SYS_tgkill, [parent(), parent(), 0, 0]),
            || call(libc::SYS_rt_sigqueueinfo, [parent(), 0, 0, 0]),
            || call(libc::SYS_rt_tgsigqueueinfo, [parent(), parent(), 0, 0]),
            || call(libc::SYS_pidfd_open, [parent(), 0, 0, 0]),
            || call(libc::SYS_pidfd_send_signal, [0, 0, 0, 0]),
        ];
        for (at, attempt) in attempts.into_iter().enumerate() {
            assert_eq!(jailed(attempt), Err(libc::SIGSYS), "attempt {at}");
        }
    }

    #[test]
    fn opening_a_file_is_refused_without_killing() {
        let open = || {
            let path = c"/etc/hostname".as_ptr() as libc::c_long;
            call(libc::SYS_openat, [libc::AT_FDCWD.into(), path, 0, 0])
        };
        assert_eq!(jailed(open), Ok(libc::EACCES));
    }
}
