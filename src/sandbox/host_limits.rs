//! The default cap on sandbox processes, from what the host leaves room for: the gateway's
//! open-file limit (with room for its own sockets) and the pid space (threads count).

/// The most `maxSandboxProcesses` may be, and the default's ceiling.
pub const MAX_PROCESSES: usize = 65_536;

/// fds kept for the gateway's own files and sockets.
const RESERVED_FDS: u64 = 1_024;
/// Threads a sandbox process may hold (its reader and one executor), plus one for slack.
const TASKS_PER_PROCESS: u64 = 3;

pub fn default_max_processes() -> usize {
    let by_fds = open_file_limit().map(|limit| limit.saturating_sub(RESERVED_FDS).max(64));
    let by_pids = pid_max().map(|max| max / TASKS_PER_PROCESS);
    let cap = [by_fds, by_pids]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(MAX_PROCESSES as u64);
    usize::try_from(cap)
        .unwrap_or(MAX_PROCESSES)
        .min(MAX_PROCESSES)
}

/// The soft `RLIMIT_NOFILE` (Node raises it to the hard limit at start-up).
fn open_file_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `limit` is a valid out-pointer for the call.
        let status = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
        (status == 0 && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
    }
    #[cfg(not(unix))]
    None
}

fn pid_max() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|text| text.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_default_is_within_the_accepted_range() {
        let cap = super::default_max_processes();
        assert!((1..=super::MAX_PROCESSES).contains(&cap), "{cap}");
    }
}
