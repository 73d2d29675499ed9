//! Waiting for the addon's pipe with a time limit, and a way for one thread to end
//! another's wait: `poll` on stdin and an eventfd (a pipe off Linux).

use std::time::Duration;

/// Why a wait ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Ready {
    /// stdin has data, or has ended (the read that follows notices).
    Input,
    /// Another thread called `Wake::signal`.
    Woken,
    TimedOut,
}

/// A signal one thread sends to end another's `wait_for_input`; created before the jail,
/// which forbids creating descriptors.
pub(super) struct Wake {
    #[cfg(unix)]
    read_fd: i32,
    #[cfg(unix)]
    write_fd: i32,
}

impl Wake {
    #[cfg(target_os = "linux")]
    pub(super) fn new() -> std::io::Result<Wake> {
        // SAFETY: eventfd takes no pointers.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Wake {
            read_fd: fd,
            write_fd: fd,
        })
    }

    #[cfg(all(unix, not(target_os = "linux")))]
    pub(super) fn new() -> std::io::Result<Wake> {
        let mut fds = [0i32; 2];
        // SAFETY: `fds` has room for the two descriptors pipe writes.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        for fd in fds {
            // SAFETY: fcntl on descriptors just created.
            unsafe {
                libc::fcntl(fd, libc::F_SETFL, libc::O_NONBLOCK);
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
        }
        Ok(Wake {
            read_fd: fds[0],
            write_fd: fds[1],
        })
    }

    #[cfg(not(unix))]
    pub(super) fn new() -> std::io::Result<Wake> {
        Ok(Wake {})
    }

    /// Ends the other thread's current or next wait with `Woken`.
    pub(super) fn signal(&self) {
        #[cfg(unix)]
        {
            let one = 1u64.to_ne_bytes();
            // SAFETY: writes 8 bytes from a live buffer. A full counter or pipe already
            // holds a signal, so a failed write loses nothing.
            unsafe { libc::write(self.write_fd, one.as_ptr().cast(), one.len()) };
        }
    }

    #[cfg(unix)]
    fn drain(&self) {
        let mut buffer = [0u8; 64];
        // SAFETY: reads into a live buffer of that length; the descriptor never blocks.
        while unsafe { libc::read(self.read_fd, buffer.as_mut_ptr().cast(), buffer.len()) } > 0 {}
    }
}

/// Waits until stdin can be read, `wake` is signalled, or `timeout` passes (`None`: no
/// limit). A signal is used up by the wait that reports it.
#[cfg(unix)]
pub(super) fn wait_for_input(wake: Option<&Wake>, timeout: Option<Duration>) -> Ready {
    let mut fds = [
        libc::pollfd {
            fd: 0,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: wake.map_or(-1, |wake| wake.read_fd),
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    let ms = timeout.map_or(-1, |t| i32::try_from(t.as_millis()).unwrap_or(i32::MAX));
    loop {
        // SAFETY: `fds` is a live array of two pollfd; a negative fd is ignored by poll.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
        if n > 0 {
            break;
        }
        if n == 0 {
            return Ready::TimedOut;
        }
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            // The read that follows reports what is wrong with the pipe.
            return Ready::Input;
        }
    }
    if let (Some(wake), true) = (wake, fds[1].revents != 0) {
        wake.drain();
        return Ready::Woken;
    }
    Ready::Input
}

/// Without `poll` the read itself waits: no idle time is noticed and no wait is ended.
#[cfg(not(unix))]
pub(super) fn wait_for_input(_wake: Option<&Wake>, _timeout: Option<Duration>) -> Ready {
    Ready::Input
}
