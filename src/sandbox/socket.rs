//! The one descriptor between the gateway and a sandbox process: a Unix stream socket pair
//! closed on exec, whose child end becomes the sandbox's stdin and stdout; the gateway's
//! end is non-blocking, the child's blocks.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// `(gateway end, child end)`; both are closed on exec, so a sandbox spawned meanwhile
/// by another thread never inherits either.
pub fn pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0i32; 2];
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    let kind = libc::SOCK_STREAM | libc::SOCK_CLOEXEC;
    // Elsewhere (macOS) the flag does not exist: set right after, with the same effect for
    // this addon, whose sandboxes are all spawned from one thread.
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    let kind = libc::SOCK_STREAM;
    // SAFETY: `fds` is a valid out-array of two descriptors.
    if unsafe { libc::socketpair(libc::AF_UNIX, kind, 0, fds.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: socketpair() just returned these two open descriptors; nothing else owns them.
    let (gateway, child) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    for fd in [&gateway, &child] {
        set_flag(fd, libc::F_GETFD, libc::F_SETFD, libc::FD_CLOEXEC)?;
    }
    // Each end is its own open file description: the child's stays blocking.
    set_nonblocking(&gateway)?;
    Ok((gateway, child))
}

/// Stops the gateway's writes for good: the sandbox reads the end of its input.
pub fn shut_down_writes(fd: &OwnedFd) {
    // SAFETY: shutdown on a socket we own; an error (already shut) changes nothing.
    unsafe { libc::shutdown(fd.as_raw_fd(), libc::SHUT_WR) };
}

pub fn set_nonblocking(fd: &impl AsRawFd) -> io::Result<()> {
    set_flag(fd, libc::F_GETFL, libc::F_SETFL, libc::O_NONBLOCK)
}

fn set_flag(fd: &impl AsRawFd, get: i32, set: i32, flag: i32) -> io::Result<()> {
    let fd = fd.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own, reading then setting its flags.
    let flags = unsafe { libc::fcntl(fd, get) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, set, flags | flag) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
