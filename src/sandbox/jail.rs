//! What the sandbox process gives up once its threads run: inherited descriptors, resource
//! limits (`rlimits`) and, on Linux, every system call the engine does not need (`filter`).

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
/// `data_limit_bytes`: see `rlimits::apply`.
pub fn lock_down(data_limit_bytes: u64) -> Result<(), String> {
    #[cfg(unix)]
    {
        // Resolve the time zone while files can still be read: later `Date` calls reuse it.
        // SAFETY: tzset has no preconditions.
        unsafe { tzset() };
    }
    super::rlimits::apply(data_limit_bytes)?;
    #[cfg(target_os = "linux")]
    super::filter::install()?;
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
