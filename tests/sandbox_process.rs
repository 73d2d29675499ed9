//! `SandboxProcess` against small stand-in executables (shell scripts): the poller reads
//! a `Fatal` frame into the death message, kills a process that breaks the framing,
//! reaps a process whose input was closed, and serves many processes on one thread.
#![cfg(unix)]

use codemode_native::sandbox::process::{ProcessLimits, SandboxProcess};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

const LIMITS: ProcessLimits = ProcessLimits {
    max_frame_bytes: 1 << 20,
    data_limit_bytes: 0,
};

/// A folder of its own for each test's scripts.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("codemode-process-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Waits for the process's death message; a hang guard, not a timing check.
fn death(process: &SandboxProcess) -> String {
    let give_up = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(how) = process.death() {
            return how.to_owned();
        }
        assert!(
            Instant::now() < give_up,
            "process {} never ended",
            process.pid()
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_fatal_frame_names_why_the_process_could_not_start() {
    let dir = folder("fatal");
    let body = br#"{"Fatal":{"message":"cannot drop privileges: not permitted"}}"#;
    let mut frame = (body.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(body);
    std::fs::write(dir.join("frame"), frame).unwrap();
    let exe = script(
        &dir,
        "sandbox",
        &format!("cat '{}'\nexit 71", dir.join("frame").display()),
    );
    let process = SandboxProcess::spawn(&exe, 1, LIMITS).unwrap();
    assert_eq!(
        death(&process),
        "code mode sandbox process exited with status 71: cannot drop privileges: not permitted"
    );
    assert!(!process.is_usable());
}

#[test]
fn bytes_that_are_not_the_framing_get_the_process_killed() {
    let dir = folder("garbage");
    // "xxxx" reads as a length of 2 GB, over the cap; the script then waits to be killed.
    let exe = script(&dir, "sandbox", "printf xxxx\nexec sleep 60");
    let process = SandboxProcess::spawn(&exe, 1, LIMITS).unwrap();
    let how = death(&process);
    assert!(
        how.starts_with(
            "code mode sandbox process broke the protocol (a frame of 2021161080 bytes"
        ),
        "{how}"
    );
    assert!(how.ends_with("and was killed"), "{how}");
}

#[test]
fn closing_the_input_ends_a_process_that_exits_at_its_end() {
    let dir = folder("close");
    let exe = script(&dir, "sandbox", "cat >/dev/null\nexit 0");
    let process = SandboxProcess::spawn(&exe, 1, LIMITS).unwrap();
    assert_eq!((process.open_vms(), process.commands_in_flight()), (0, 0));
    process.close_input();
    assert!(
        !process.is_usable(),
        "no new VMs go to a process whose input ended"
    );
    assert_eq!(
        death(&process),
        "code mode sandbox process exited with status 0"
    );
}

#[test]
fn many_processes_are_served_and_reaped_together() {
    let dir = folder("many");
    let exe = script(&dir, "sandbox", "cat >/dev/null\nexit 3");
    let processes: Vec<Arc<SandboxProcess>> = (0..50)
        .map(|_| SandboxProcess::spawn(&exe, 1, LIMITS).unwrap())
        .collect();
    for process in &processes {
        process.close_input();
    }
    for process in &processes {
        assert_eq!(
            death(process),
            "code mode sandbox process exited with status 3"
        );
    }
}

#[test]
fn a_process_that_ends_with_its_input_unread_ended_and_broke_nothing() {
    let dir = folder("unread");
    // The frame is sent before the script exits: the gateway's socket then sees a reset
    // (the sandbox never read its input), which is the end of its output, not an attack.
    let exe = script(&dir, "sandbox", "sleep 0.2\nexit 71");
    let process = SandboxProcess::spawn(&exe, 1, LIMITS).unwrap();
    let vm = process.new_vm_id();
    assert!(process.send(&codemode_native::sandbox::wire::ToChild::Release { vm }));
    assert_eq!(
        death(&process),
        "code mode sandbox process exited with status 71"
    );
}
