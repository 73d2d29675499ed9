//! Who the sandbox process is once it serves: started by root it becomes nobody/nogroup
//! (65534) with every capability set empty, before its first thread starts so all inherit
//! it; and it dies with the gateway thread that started it (Linux).

/// nobody and nogroup, by number: the jail reads no user database.
#[cfg(unix)]
const NOBODY: libc::uid_t = 65534;
#[cfg(unix)]
const NOGROUP: libc::gid_t = 65534;

/// Whether the gateway was still there once the process asked to die with it.
#[derive(Debug, PartialEq, Eq)]
pub enum Parent {
    Alive,
    /// It died before the parent-death signal was set.
    Gone,
}

/// Gives up root and every capability (nothing to give up for an unprivileged process),
/// then asks to die with the gateway, in that order: a change of credentials clears the
/// parent-death signal.
pub fn give_up(parent_pid: u32) -> Result<Parent, String> {
    drop_privileges()?;
    die_with_parent(parent_pid)
}

#[cfg(target_os = "linux")]
use linux::drop_privileges;
#[cfg(target_os = "macos")]
use macos::drop_privileges;

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn drop_privileges() -> Result<(), String> {
    Ok(())
}

/// Asks for SIGKILL when the gateway thread that started this process ends (Linux), then
/// checks the gateway is still its parent (`parent_pid` 0: unknown, not checked): if it
/// died before the request, the signal will never come.
fn die_with_parent(parent_pid: u32) -> Result<Parent, String> {
    #[cfg(target_os = "linux")]
    {
        let signal = libc::SIGKILL as libc::c_ulong;
        // SAFETY: PR_SET_PDEATHSIG takes a signal number and no pointers.
        let set = unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, signal, 0, 0, 0) };
        if set != 0 {
            return Err(os_error("prctl(PR_SET_PDEATHSIG)"));
        }
    }
    #[cfg(unix)]
    // SAFETY: getppid has no preconditions.
    if parent_pid != 0 && i64::from(unsafe { libc::getppid() }) != i64::from(parent_pid) {
        return Ok(Parent::Gone);
    }
    #[cfg(not(unix))]
    let _ = parent_pid;
    Ok(Parent::Alive)
}

#[cfg(unix)]
fn os_error(call: &str) -> String {
    format!("{call} failed: {}", std::io::Error::last_os_error())
}

#[cfg(target_os = "linux")]
mod linux {
    use super::{os_error, NOBODY, NOGROUP};
    use caps::{CapSet, Capability};

    const SETS: [CapSet; 4] = [
        CapSet::Effective,
        CapSet::Permitted,
        CapSet::Inheritable,
        CapSet::Ambient,
    ];

    pub(super) fn drop_privileges() -> Result<(), String> {
        let root = is_root()?;
        if !root && !holds_any_capability()? {
            return Ok(());
        }
        // Emptying the bounding set needs CAP_SETPCAP, so it goes before the uid change
        // that takes it away. An unprivileged process with a few capabilities may lack it;
        // its bounding set only matters to an execve, which the filter kills.
        if caps::has_cap(None, CapSet::Effective, Capability::CAP_SETPCAP).map_err(text)? {
            empty_bounding_set()?;
        }
        caps::clear(None, CapSet::Ambient).map_err(text)?;
        if root {
            become_nobody()?;
        }
        // A uid change empties the permitted and effective sets, not the inheritable one;
        // a process that is not root keeps its uid and loses its capabilities here.
        caps::clear(None, CapSet::Inheritable).map_err(text)?;
        caps::clear(None, CapSet::Permitted).map_err(text)?;
        verify(root)
    }

    fn holds_any_capability() -> Result<bool, String> {
        for set in SETS {
            if !caps::read(None, set).map_err(text)?.is_empty() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Drops every capability the kernel knows, up to its last (a read past it fails),
    /// including any newer than the `caps` crate's list.
    fn empty_bounding_set() -> Result<(), String> {
        for cap in 0..64 as libc::c_ulong {
            // SAFETY: PR_CAPBSET_READ takes a number and no pointers.
            let held = unsafe { libc::prctl(libc::PR_CAPBSET_READ, cap, 0, 0, 0) };
            if held < 0 {
                break;
            }
            // SAFETY: PR_CAPBSET_DROP takes a number and no pointers.
            if held == 1 && unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) } != 0 {
                return Err(os_error(&format!("prctl(PR_CAPBSET_DROP, {cap})")));
            }
        }
        Ok(())
    }

    fn become_nobody() -> Result<(), String> {
        // SAFETY: a zero-length group list needs no pointer.
        if unsafe { libc::setgroups(0, std::ptr::null()) } != 0 {
            return Err(os_error("setgroups(0)"));
        }
        // SAFETY: setresgid and setresuid take plain ids. No other thread exists yet, so
        // every thread started later inherits them.
        if unsafe { libc::setresgid(NOGROUP, NOGROUP, NOGROUP) } != 0 {
            return Err(os_error("setresgid(65534)"));
        }
        // SAFETY: as above.
        if unsafe { libc::setresuid(NOBODY, NOBODY, NOBODY) } != 0 {
            return Err(os_error("setresuid(65534)"));
        }
        Ok(())
    }

    /// Checks the result rather than trusting each call, and that root cannot come back.
    fn verify(was_root: bool) -> Result<(), String> {
        if holds_any_capability()? {
            return Err("capabilities remain after clearing them".into());
        }
        if !was_root {
            return Ok(());
        }
        // SAFETY: a zero-length query of the group list needs no buffer.
        let groups = unsafe { libc::getgroups(0, std::ptr::null_mut()) };
        // SAFETY: setuid takes a plain id; it must fail once no id is root.
        let regained = unsafe { libc::setuid(0) } == 0;
        if resuid()? != [NOBODY; 3] || resgid()? != [NOGROUP; 3] || groups != 0 || regained {
            return Err("the process still holds a root id or group".into());
        }
        Ok(())
    }

    fn text(error: caps::errors::CapsError) -> String {
        error.to_string()
    }

    /// Whether any of the real, effective and saved user ids is root.
    fn is_root() -> Result<bool, String> {
        let ids = resuid()?;
        Ok(ids.contains(&0))
    }

    pub(super) fn resuid() -> Result<[libc::uid_t; 3], String> {
        ids(libc::getresuid, "getresuid")
    }

    fn resgid() -> Result<[libc::gid_t; 3], String> {
        ids(libc::getresgid, "getresgid")
    }

    /// Real, effective and saved ids, from `getresuid` or `getresgid` (both `u32`).
    fn ids(
        get: unsafe extern "C" fn(*mut u32, *mut u32, *mut u32) -> libc::c_int,
        name: &str,
    ) -> Result<[u32; 3], String> {
        let mut ids = [0; 3];
        let [real, effective, saved] = &mut ids;
        // SAFETY: three valid out-pointers for the duration of the call.
        if unsafe { get(real, effective, saved) } != 0 {
            return Err(os_error(name));
        }
        Ok(ids)
    }
}

/// macOS has no capabilities; root becomes nobody/nogroup.
#[cfg(target_os = "macos")]
mod macos {
    use super::{os_error, NOBODY, NOGROUP};

    pub(super) fn drop_privileges() -> Result<(), String> {
        // SAFETY: getuid and geteuid have no preconditions.
        if unsafe { libc::getuid() != 0 && libc::geteuid() != 0 } {
            return Ok(());
        }
        // SAFETY: a zero-length group list needs no pointer; setgid and setuid take plain
        // ids, and as root set the real, effective and saved ids at once.
        unsafe {
            if libc::setgroups(0, std::ptr::null()) != 0 {
                return Err(os_error("setgroups(0)"));
            }
            if libc::setgid(NOGROUP) != 0 {
                return Err(os_error("setgid(65534)"));
            }
            if libc::setuid(NOBODY) != 0 {
                return Err(os_error("setuid(65534)"));
            }
            if libc::setuid(0) == 0 || libc::geteuid() != NOBODY || libc::getegid() != NOGROUP {
                return Err("the process still holds a root id or group".into());
            }
        }
        Ok(())
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::{give_up, Parent};

    #[test]
    fn root_gives_up_its_ids_and_capabilities_for_good() {
        let ended = crate::sandbox::forked::run(|| {
            // SAFETY: getuid has no preconditions.
            let was_root = unsafe { libc::getuid() } == 0;
            match give_up(0) {
                Ok(Parent::Alive) => {}
                _ => return 1,
            }
            let ids = super::linux::resuid().unwrap_or([0; 3]);
            let no_caps = caps::read(None, caps::CapSet::Permitted).is_ok_and(|set| set.is_empty());
            if was_root && (ids != [super::NOBODY; 3] || !no_caps) {
                return 2;
            }
            0
        });
        assert_eq!(ended, Ok(0));
    }

    #[test]
    fn a_parent_other_than_the_real_one_is_seen_gone() {
        let ended = crate::sandbox::forked::run(|| match give_up(1) {
            Ok(Parent::Gone) => 0,
            _ => 1,
        });
        assert_eq!(ended, Ok(0));
    }
}
