//! `isolation: "process"` against the real sandbox executable (cargo builds it for this
//! test with `--features sandbox-bin`): same results as in-process VMs, and a crash, a
//! forbidden system call or a stuck built-in ends only that session's process.

mod common;

use codemode_native::run::cell::Cell;
use codemode_native::run::protocol::Event;
use codemode_native::sandbox::isolation::Isolation;
use codemode_native::sandbox::process::LIVE_PROCESSES;
use codemode_native::session::core::SessionCore;
use common::hosts::FakeHost;
use common::settle::{serial, until};
use common::{exec_within, run_id, session_in, start_exec, tool, wait_within};
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

// Longer than any cell budget here, so a slow cell answers with its status first.
const PATIENCE: Duration = Duration::from_secs(120);

fn sandboxed(id: &str, mut limits: Value) -> Arc<SessionCore> {
    // The probe markers are read once per process, before the first cell.
    std::env::set_var("CODEMODE_NATIVE_PANIC_PROBE", "1");
    // A cell's budget is the longest allowed unless a test is about deadlines: a loaded
    // machine may start a cell seconds late, which must not fail or park it.
    if let Some(limits) = limits.as_object_mut() {
        limits.entry("timeoutMs").or_insert(json!(60_000));
    }
    session_in(
        Isolation::Process,
        id,
        limits,
        vec![tool("echo"), tool("never")],
        FakeHost::echoing().shared(),
    )
}

fn exec(session: &Arc<SessionCore>, code: &str) -> Value {
    exec_within(session, code, PATIENCE).expect("the cell answers")
}

#[test]
fn a_sandboxed_cell_searches_calls_tools_and_prints_like_an_in_process_one() {
    let _serial = serial();
    let code = r#"
        const found = catalog.search("echo");
        text("found " + found.length);
        const a = await echo({ n: 1 });
        const [b, c] = await Promise.all([echo({ n: 2 }), echo({ n: 3 })]);
        return { a, b, c, sum: [1, 2, 3].reduce((x, y) => x + y) };
    "#;
    let process = exec(&sandboxed("sb-same", json!({})), code);
    let thread = exec(
        &session_in(
            Isolation::Thread,
            "th-same",
            json!({}),
            vec![tool("echo")],
            FakeHost::echoing().shared(),
        ),
        code,
    );
    assert_eq!(process["status"], "completed", "{process}");
    assert_eq!(process["value"], thread["value"]);
    assert_eq!(process["output"], thread["output"]);
    assert_eq!(process["value"]["c"], json!({ "echo": { "n": 3 } }));
}

#[test]
fn many_concurrent_cells_of_a_session_each_get_their_own_replies() {
    let _serial = serial();
    let session = sandboxed("sb-many", json!({}));
    // Each cell waits on replies (catalog reads, tool ids) while the others run, so the
    // process's threads must keep reading for every one of them.
    let cells: Vec<_> = (0..12)
        .map(|i| {
            let code = format!(
                r#"
                let total = 0;
                for (let k = 0; k < 20; k++) {{
                    const found = catalog.search("echo");
                    text("cell {i} step " + k + " found " + found.length);
                    const [a, b] = await Promise.all([echo({{ n: {i} }}), echo({{ n: k }})]);
                    total += a.echo.n + b.echo.n;
                }}
                return total;
                "#
            );
            start_exec(&session, &code).1
        })
        .collect();
    for (i, result) in cells.into_iter().enumerate() {
        let result = result.recv_timeout(PATIENCE).expect("the cell answers");
        assert_eq!(result["status"], "completed", "cell {i}: {result}");
        assert_eq!(result["value"], 20 * i + 190, "cell {i}: {result}");
        let output = result["output"].to_string();
        for k in 0..20 {
            assert!(
                output.contains(&format!("cell {i} step {k} found")),
                "cell {i} printed step {k} in its own output: {output}"
            );
        }
    }
}

#[test]
fn syntax_errors_guest_throws_and_memory_limits_read_as_in_process() {
    let _serial = serial();
    let session = sandboxed("sb-errors", json!({ "memoryLimitBytes": 8 * 1024 * 1024 }));
    let syntax = exec(&session, "return (;");
    assert_eq!(syntax["code"], "invalid_input", "{syntax}");
    let thrown = exec(&session, "throw new TypeError('nope')");
    assert_eq!(thrown["status"], "failed", "{thrown}");
    assert!(
        thrown["error"].as_str().unwrap_or("").contains("nope"),
        "{thrown}"
    );
    let hog = exec(&session, "const a = []; for (;;) a.push('x'.repeat(1024));");
    assert_eq!(hog["status"], "failed", "{hog}");
    assert!(
        hog["error"].as_str().unwrap_or("").contains("memory"),
        "{hog}"
    );
    let after = exec(&session, "return 1 + 1");
    assert_eq!(
        after["value"], 2,
        "the session's process still serves: {after}"
    );
}

#[test]
fn a_parked_run_stays_in_its_process_and_resumes() {
    let _serial = serial();
    let session = sandboxed("sb-park", json!({}));
    let first = exec(
        &session,
        "let n = 0; for (let i = 0; i < 3; i++) { n += i; await yield_control('step'); } return n;",
    );
    assert_eq!(first["status"], "waiting", "{first}");
    let mut result = first;
    for _ in 0..3 {
        result = wait_within(&session, &run_id(&result), PATIENCE).expect("the wait answers");
    }
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"], 3);
}

#[test]
fn a_forbidden_system_call_kills_only_that_process_and_a_fresh_one_serves_next() {
    let _serial = serial();
    let session = sandboxed("sb-forbidden", json!({}));
    let bystander = sandboxed("sb-bystander", json!({}));
    assert_eq!(exec(&bystander, "return 'up'")["value"], "up");
    let killed = exec(&session, "/* __sandbox_probe_forbidden__ */ for (;;) {}");
    assert_eq!(killed["status"], "failed", "{killed}");
    assert_eq!(killed["code"], "internal_error", "{killed}");
    let error = killed["error"].as_str().unwrap_or("");
    assert!(error.contains("crashed (SIGSYS)"), "{killed}");
    assert_eq!(
        exec(&session, "return 2")["value"],
        2,
        "a fresh process serves the session"
    );
    assert_eq!(exec(&bystander, "return 'still up'")["value"], "still up");
}

#[test]
fn a_stuck_built_in_is_answered_timeout_and_its_process_killed() {
    let _serial = serial();
    let session = sandboxed("sb-stuck", json!({ "timeoutMs": 200 }));
    let stuck = exec(&session, "return new Array(2 ** 32 - 1).join('').length");
    assert_eq!(stuck["code"], "timeout", "{stuck}");
    // The next cell needs a fresh process, which a loaded machine may not start within the
    // session's 200 ms: what counts is that the session is served again.
    assert!(
        until(PATIENCE, || exec(&session, "return 3")["value"] == 3),
        "the session is served by a fresh process"
    );
}

#[test]
fn abort_reaches_a_computing_guest_in_its_process() {
    let _serial = serial();
    let session = sandboxed("sb-abort", json!({ "timeoutMs": 60_000 }));
    let (cell, result) = start_exec(&session, "let i = 0; for (;;) { i++; }");
    let cell: Arc<Cell> = cell.expect("a cell");
    cell.push(Event::Abort);
    let aborted = result.recv_timeout(PATIENCE).expect("the abort answers");
    assert_eq!(aborted["code"], "aborted", "{aborted}");
}

#[test]
fn closing_a_session_ends_its_process() {
    let _serial = serial();
    let session = sandboxed("sb-close", json!({}));
    assert_eq!(exec(&session, "return 1")["value"], 1);
    let before = LIVE_PROCESSES.load(Ordering::SeqCst);
    assert!(before >= 1);
    session.close();
    drop(session);
    assert!(
        until(PATIENCE, || LIVE_PROCESSES.load(Ordering::SeqCst) < before),
        "the process is reaped"
    );
}

#[test]
fn a_parked_run_whose_process_died_answers_wait_as_unavailable() {
    use codemode_native::run::owner::RunContext;
    let _serial = serial();
    let session = sandboxed("sb-parked-lost", json!({}));
    let parked = exec(&session, "await yield_control('later'); return 1");
    assert_eq!(parked["status"], "waiting", "{parked}");
    let process = session
        .sandbox()
        .and_then(|sandbox| sandbox.processes().pop())
        .expect("the session runs a sandbox process");
    process.kill();
    let resumed = wait_within(&session, &run_id(&parked), PATIENCE).expect("the wait answers");
    assert_eq!(resumed["code"], "invalid_input", "{resumed}");
    let error = resumed["error"].as_str().unwrap_or("");
    assert!(
        error.starts_with("code mode run is unavailable or expired."),
        "{resumed}"
    );
    assert_eq!(
        exec(&session, "return 4")["value"],
        4,
        "a fresh process serves the session"
    );
}
