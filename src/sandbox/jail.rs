//! What the sandbox process gives up once its threads run: inherited descriptors, resource
//! limits and, on Linux, every system call the engine does not need (a forbidden call
//! kills the process; opening a file and a few calls libc makes on its own fail instead).

/// Closes every descriptor but stdin, stdout and stderr: the gateway's sockets and files
/// must not be reachable from the sandbox even by a memory-safety bug.
pub fn close_inherited_fds() {
    #[cfg(unix)]
    {
        let open: Vec<i32> =
            match std::fs::read_dir("/proc/self/fd").or_else(|_| std::fs::read_dir("/dev/fd")) {
                Ok(entries) => entries
                    .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
                    .collect(),
                // SAFETY: getdtablesize has no preconditions.
                Err(_) => (0..unsafe { libc::getdtablesize() }).collect(),
            };
        for fd in open.into_iter().filter(|fd| *fd > 2) {
            // SAFETY: closing a descriptor number; one that is not open (the directory
            // listing's own, closed by now) only returns EBADF.
            unsafe { libc::close(fd) };
        }
    }
}

/// Resource limits, then (Linux) the system-call filter for every thread.
pub fn lock_down() -> Result<(), String> {
    #[cfg(unix)]
    {
        // Resolve the time zone while files can still be read: later `Date` calls reuse it.
        // SAFETY: tzset has no preconditions.
        unsafe { tzset() };
        for (resource, value) in [
            (libc::RLIMIT_CORE, 0),
            (libc::RLIMIT_NOFILE, 16),
            (libc::RLIMIT_NPROC, 0),
        ] {
            let limit = libc::rlimit {
                rlim_cur: value,
                rlim_max: value,
            };
            // SAFETY: `limit` is a valid rlimit for the duration of the call.
            if unsafe { libc::setrlimit(resource, &limit) } != 0 {
                return Err(format!(
                    "setrlimit({resource}) failed: {}",
                    std::io::Error::last_os_error()
                ));
            }
        }
    }
    #[cfg(target_os = "linux")]
    linux::filter()?;
    Ok(())
}

#[cfg(unix)]
extern "C" {
    fn tzset();
}

/// Test builds of the addon ask for this to show that a forbidden call kills the sandbox.
pub fn attempt_forbidden(call: &str) {
    #[cfg(not(unix))]
    let _ = call;
    #[cfg(unix)]
    match call {
        // SAFETY: plain system calls with valid arguments; the filter stops them.
        "socket" => unsafe {
            libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
        },
        "execve" => unsafe {
            let path = c"/bin/sh".as_ptr();
            let argv = [path, std::ptr::null()];
            libc::execve(path, argv.as_ptr(), std::ptr::null());
        },
        _ => {}
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, SeccompRule, TargetArch};
    use std::collections::BTreeMap;

    /// What the engine does once running: pipe I/O, memory, futexes, clocks, randomness,
    /// yielding, and dying (abort raises a signal at itself).
    const ALLOWED: &[i64] = &[
        libc::SYS_read,
        libc::SYS_write,
        libc::SYS_writev,
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
        libc::SYS_tgkill,
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

    pub(super) fn filter() -> Result<(), String> {
        let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
        let allowed: BTreeMap<i64, Vec<SeccompRule>> = ALLOWED
            .iter()
            .chain(REFUSED)
            .map(|call| (*call, Vec::new()))
            .collect();
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
        // The kernel runs every installed filter and applies the strictest answer: the
        // allow-list lets `openat` through, the second filter turns it into EACCES.
        // Installing the second filter needs `prctl` and `seccomp` through the first; more
        // filters can only ever forbid more.
        for filter in [allow, refuse] {
            let program: BpfProgram = filter
                .try_into()
                .map_err(|e: seccompiler::BackendError| e.to_string())?;
            seccompiler::apply_filter_all_threads(&program).map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}
