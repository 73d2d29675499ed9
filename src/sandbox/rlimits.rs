//! The sandbox process's resource limits, set once its threads run: no core files, 16
//! descriptors, no new processes, an hour of CPU time and (Linux) data and address-space
//! ceilings a fixed amount above what the process holds at that moment.

/// Guest data when the addon does not say (`data_limit_bytes` 0): four guests at the
/// largest memory limit (1 GiB) or sixty-four at the default (64 MiB), on top of what
/// the process already holds (the allocator's first arena: 64 MiB in the sandbox).
pub const DEFAULT_DATA_LIMIT_BYTES: u64 = 4 << 30;

/// Address space beyond the data ceiling, for reservations RLIMIT_DATA does not count: one
/// more allocator arena of up to 1 GiB (mimalloc reserves them inaccessible and commits
/// piecemeal where the kernel does not overcommit) and the transient over-reservation of
/// an aligned allocation. Measurements: docs/security.md.
#[cfg(target_os = "linux")]
const ADDRESS_SPACE_SLACK_BYTES: u64 = 1 << 30;

/// CPU seconds (soft: SIGXCPU, hard: SIGKILL) over the whole life of the process: a
/// backstop for a process whose watchdog was evaded; the gateway starts a fresh one.
const CPU_SECONDS: (u64, u64) = (3600, 3605);

/// Sets every limit. `data_limit_bytes`: what the process may map beyond what it holds
/// now (Linux); 0 means `DEFAULT_DATA_LIMIT_BYTES`.
#[cfg(unix)]
pub fn apply(data_limit_bytes: u64) -> Result<(), String> {
    let data_limit = match data_limit_bytes {
        0 => DEFAULT_DATA_LIMIT_BYTES,
        bytes => bytes,
    };
    let mut limits = vec![
        (libc::RLIMIT_CORE, 0, 0),
        (libc::RLIMIT_NOFILE, 16, 16),
        (libc::RLIMIT_NPROC, 0, 0),
        (libc::RLIMIT_CPU, CPU_SECONDS.0, CPU_SECONDS.1),
    ];
    limits.extend(memory_ceilings(data_limit)?);
    for (resource, soft, hard) in limits {
        let limit = libc::rlimit {
            rlim_cur: soft as libc::rlim_t,
            rlim_max: hard as libc::rlim_t,
        };
        // SAFETY: `limit` is a valid rlimit for the duration of the call.
        if unsafe { libc::setrlimit(resource, &limit) } != 0 {
            return Err(format!(
                "setrlimit({resource}) failed: {}",
                std::io::Error::last_os_error()
            ));
        }
    }
    Ok(())
}

/// On Linux, RLIMIT_DATA counts private writable mappings (the heap, thread stacks, the
/// allocator's arenas) and RLIMIT_AS every mapping.
#[cfg(target_os = "linux")]
fn memory_ceilings(data_limit: u64) -> Result<Vec<(Resource, u64, u64)>, String> {
    // Without /proc (a bare container) what the process holds is unknown, and a ceiling
    // below it would fail every allocation: the guests' own memory limits stay.
    let Ok(held) = held() else {
        return Ok(Vec::new());
    };
    let data = held.data.saturating_add(data_limit);
    let space = held
        .address_space
        .saturating_add(data_limit)
        .saturating_add(ADDRESS_SPACE_SLACK_BYTES);
    Ok(vec![
        (libc::RLIMIT_DATA, data, data),
        (libc::RLIMIT_AS, space, space),
    ])
}

/// macOS does not hold mmap to RLIMIT_DATA or RLIMIT_AS.
#[cfg(all(unix, not(target_os = "linux")))]
fn memory_ceilings(_data_limit: u64) -> Result<Vec<(Resource, u64, u64)>, String> {
    Ok(Vec::new())
}

/// `setrlimit`'s resource type, which differs between libcs.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
type Resource = libc::c_int;

#[cfg(not(unix))]
pub fn apply(_data_limit_bytes: u64) -> Result<(), String> {
    Ok(())
}

/// What the process maps when it locks down: its thread stacks (one per executor) and
/// the allocator's first arena are already there, and vary with the machine.
#[cfg(target_os = "linux")]
struct Held {
    data: u64,
    address_space: u64,
}

#[cfg(target_os = "linux")]
fn held() -> Result<Held, String> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|error| format!("cannot measure the memory held: /proc/self/status: {error}"))?;
    let field = |name: &str| {
        parse_kib(&status, name).ok_or_else(|| {
            format!("cannot measure the memory held: no {name} in /proc/self/status")
        })
    };
    Ok(Held {
        data: field("VmData")?,
        address_space: field("VmSize")?,
    })
}

/// Bytes of a `Name:   1234 kB` line of a /proc status file.
#[cfg(any(target_os = "linux", test))]
fn parse_kib(status: &str, name: &str) -> Option<u64> {
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::parse_kib;

    #[test]
    fn status_fields_are_read_in_bytes() {
        let status = "Name:\tcodemode-sandbo\nVmSize:\t 1533620 kB\nVmData:\t1185236 kB\n";
        assert_eq!(parse_kib(status, "VmSize"), Some(1_533_620 * 1024));
        assert_eq!(parse_kib(status, "VmData"), Some(1_185_236 * 1024));
        assert_eq!(parse_kib(status, "VmRSS"), None);
        assert_eq!(parse_kib("VmData:\tlots kB\n", "VmData"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_can_be_measured() {
        let held = super::held().expect("/proc/self/status is readable in tests");
        assert!(held.data > 0 && held.address_space >= held.data);
    }
}
