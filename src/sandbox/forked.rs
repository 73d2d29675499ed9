//! Test helper: runs a closure in a forked child, for what must not happen to the test
//! process itself (a system-call filter, a uid change, a deadly system call).

/// How the child ended that ran `attempt`: its result as exit code, or the signal that
/// killed it. The child writes no core file.
pub fn run(attempt: impl FnOnce() -> i32) -> Result<i32, i32> {
    // SAFETY: the child makes its calls (malloc is usable after fork) and leaves with
    // `_exit`, never returning into the test harness.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let no_core = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: a valid rlimit for the duration of the call.
        unsafe { libc::setrlimit(libc::RLIMIT_CORE, &no_core) };
        let code = attempt();
        // SAFETY: ends the forked child without running the harness's exit code.
        unsafe { libc::_exit(code) }
    }
    let mut status = 0;
    // SAFETY: waits for our own child with a valid out-pointer.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    if libc::WIFSIGNALED(status) {
        Err(libc::WTERMSIG(status))
    } else {
        Ok(libc::WEXITSTATUS(status))
    }
}
