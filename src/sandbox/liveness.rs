//! Whether a sandbox that owes an answer is still working on it, judged by the thread
//! waiting for that answer: a frame or CPU time is progress; a process that makes none
//! while no thread of it waits for a CPU has stopped, and one past its answer time is done.

use crate::runtime::clock::now_ns;
use std::time::Duration;

/// How often the waiting thread looks.
pub const CHECK: Duration = Duration::from_millis(250);
/// How long a command may go without a frame or CPU time (or the input without being
/// read) before a process that is not waiting for a CPU is judged to have stopped.
pub const STALL_NS: u64 = 2_000_000_000;
/// How long a process that is waiting for a CPU (a loaded host) may stall all the same.
pub const STARVED_STALL_NS: u64 = 30_000_000_000;

/// What the waiting thread reads of the process at each look.
#[derive(Clone, Copy)]
pub struct Seen {
    pub pid: u32,
    /// Frames read from it so far.
    pub frames: u64,
    /// Its CPU time, where it can be read.
    pub cpu_ns: Option<u64>,
}

impl Seen {
    /// Its CPU time and its descendants' (a wrapper that forks computes in a child).
    fn cpu(self) -> Option<(u64, u64)> {
        self.cpu_ns.map(|ns| (ns, descendants_cpu_ticks(self.pid)))
    }
}

pub struct Liveness {
    /// When the process last sent a frame or used CPU time, and those readings.
    progress_ns: u64,
    frames: u64,
    /// The process's CPU clock and its descendants' CPU ticks.
    cpu: Option<(u64, u64)>,
    /// When the answer is due: past it, nothing the process does counts.
    due_ns: u64,
}

impl Liveness {
    /// `seen`: the process's readings now (see [`Seen`]).
    pub fn new(seen: Seen, within: Duration) -> Liveness {
        let now = now_ns();
        Liveness {
            progress_ns: now,
            frames: seen.frames,
            cpu: seen.cpu(),
            due_ns: now.saturating_add(u64::try_from(within.as_nanos()).unwrap_or(u64::MAX)),
        }
    }

    /// Why the process must be killed, if it must.
    pub fn judge(&mut self, seen: Seen) -> Option<String> {
        let now = now_ns();
        if now > self.due_ns {
            return Some("did not answer a command by its deadline".into());
        }
        let (frames, cpu) = (seen.frames, seen.cpu());
        // Any CPU time counts: a command may compute until its deadline.
        if frames != self.frames || cpu != self.cpu {
            (self.frames, self.cpu, self.progress_ns) = (frames, cpu, now);
            return None;
        }
        // Where CPU time cannot be read, a guest that computes looks the same as one that
        // stopped: only the deadline judges it.
        cpu?;
        let quiet = now.saturating_sub(self.progress_ns);
        stalled(quiet, seen.pid).then(|| {
            format!(
                "stopped answering (a command went {} s without output or CPU time)",
                quiet / 1_000_000_000
            )
        })
    }
}

/// Whether `quiet_ns` without progress means the process stopped: past the stall time
/// unless it waits for a CPU, past the starved stall time in any case.
pub fn stalled(quiet_ns: u64, pid: u32) -> bool {
    quiet_ns >= STARVED_STALL_NS || (quiet_ns >= STALL_NS && !waiting_for_cpu(pid))
}

/// Whether a thread of `pid` or of a process it started is runnable but not running: a
/// loaded host, not a process that stopped. Linux reads the threads' states; elsewhere
/// nothing is known.
fn waiting_for_cpu(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        family(pid).into_iter().any(|member| {
            let Ok(tasks) = std::fs::read_dir(format!("/proc/{member}/task")) else {
                return false;
            };
            tasks.filter_map(Result::ok).any(|task| {
                std::fs::read_to_string(task.path().join("stat"))
                    .ok()
                    .and_then(|stat| stat_field(&stat, 0).map(|state| state == "R"))
                    .unwrap_or(false)
            })
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        false
    }
}

/// CPU time (in clock ticks) of the processes `pid` started, if any: a sandbox started
/// through a wrapper that forks (a container tool) computes in a descendant.
pub fn descendants_cpu_ticks(pid: u32) -> u64 {
    #[cfg(target_os = "linux")]
    {
        family(pid)
            .into_iter()
            .skip(1)
            .filter_map(|member| std::fs::read_to_string(format!("/proc/{member}/stat")).ok())
            .map(|stat| {
                // utime and stime: fields 14 and 15, the 12th and 13th after the state.
                let field = |n| stat_field(&stat, n).and_then(|v| v.parse::<u64>().ok());
                field(11).unwrap_or(0) + field(12).unwrap_or(0)
            })
            .sum()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        0
    }
}

/// `pid` and the processes below it, a bounded number (a real sandbox starts none).
#[cfg(target_os = "linux")]
fn family(pid: u32) -> Vec<u32> {
    let mut found = vec![pid];
    let mut next = 0;
    while next < found.len() && found.len() < 64 {
        let member = found[next];
        next += 1;
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{member}/task")) else {
            continue;
        };
        for task in tasks.filter_map(Result::ok) {
            let children =
                std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            found.extend(
                children
                    .split_whitespace()
                    .filter_map(|c| c.parse::<u32>().ok()),
            );
        }
    }
    found.truncate(64);
    found
}

/// Field `n` of a `/proc` stat line, counted from the state (0) after the command name.
#[cfg(target_os = "linux")]
fn stat_field(stat: &str, n: usize) -> Option<&str> {
    let after = stat.rfind(')')?;
    stat.get(after + 2..)?.split(' ').nth(n)
}
