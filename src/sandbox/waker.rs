//! Wakes a sandbox's reader thread out of `poll` (a self-pipe: two descriptors, both
//! non-blocking and closed on exec), and the descriptor flags the reader needs.

use std::io;
#[cfg(unix)]
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

pub struct Waker {
    #[cfg(unix)]
    read: OwnedFd,
    #[cfg(unix)]
    write: OwnedFd,
}

impl Waker {
    #[cfg(unix)]
    pub fn new() -> io::Result<Waker> {
        let mut fds = [0i32; 2];
        // SAFETY: `fds` is a valid out-array of two descriptors.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: pipe() just returned these two open descriptors; nothing else owns them.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        for fd in [&read, &write] {
            set_nonblocking(fd)?;
            set_cloexec(fd)?;
        }
        Ok(Waker { read, write })
    }

    /// Makes the next `poll` on [`Self::fd`] return; a full pipe already will.
    pub fn wake(&self) {
        #[cfg(unix)]
        // SAFETY: writing one byte from a valid buffer to our own non-blocking pipe.
        unsafe {
            libc::write(self.write.as_raw_fd(), [1u8].as_ptr().cast(), 1);
        }
    }

    /// Empties the pipe after a wake.
    pub fn drain(&self) {
        #[cfg(unix)]
        {
            let mut buffer = [0u8; 64];
            // SAFETY: reading into a valid buffer from our own non-blocking pipe.
            while unsafe { libc::read(self.read.as_raw_fd(), buffer.as_mut_ptr().cast(), 64) } > 0 {
            }
        }
    }

    #[cfg(unix)]
    pub fn fd(&self) -> i32 {
        self.read.as_raw_fd()
    }
}

#[cfg(unix)]
pub fn set_nonblocking(fd: &impl AsRawFd) -> io::Result<()> {
    set_flag(
        fd.as_raw_fd(),
        libc::F_GETFL,
        libc::F_SETFL,
        libc::O_NONBLOCK,
    )
}

#[cfg(unix)]
fn set_cloexec(fd: &impl AsRawFd) -> io::Result<()> {
    set_flag(
        fd.as_raw_fd(),
        libc::F_GETFD,
        libc::F_SETFD,
        libc::FD_CLOEXEC,
    )
}

#[cfg(unix)]
fn set_flag(fd: i32, get: i32, set: i32, flag: i32) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own, reading then setting its flags.
    let flags = unsafe { libc::fcntl(fd, get) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, set, flags | flag) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
