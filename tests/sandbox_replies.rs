//! Host replies in process mode, against the real sandbox executable: a reply that comes
//! while the sandbox's command is out goes straight into it, one that comes after the
//! command ended goes with the next, and either way each call runs once and is answered
//! once, through aborts, yields and deadlines.

mod common;

use codemode_native::run::protocol::Event;
use codemode_native::sandbox::isolation::Isolation;
use codemode_native::sandbox::pool::group_for;
use codemode_native::sandbox::remote::DIRECT_REPLIES;
use codemode_native::session::core::SessionCore;
use common::hosts::{Answer, Behaviour, FakeHost};
use common::settle::{serial, until};
use common::{exec_within, run_id, session_in, start_exec, tool, wait_within};
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

// Longer than any cell budget here, so a slow cell answers with its status first.
const PATIENCE: Duration = Duration::from_secs(120);

/// `echo` answers inside `call_tool` (on the thread that reads the sandbox's call, while
/// its command is out); `held` waits for the test.
fn host() -> Arc<FakeHost> {
    FakeHost::new(Behaviour::Hold)
        .on("echo", Behaviour::Now(Answer::Echo))
        .shared()
}

fn sandboxed(id: &str, host: &Arc<FakeHost>, timeout_ms: u64) -> Arc<SessionCore> {
    session_in(
        Isolation::Process,
        id,
        json!({ "timeoutMs": timeout_ms }),
        vec![tool("echo"), tool("held")],
        host.clone(),
    )
}

fn exec(session: &Arc<SessionCore>, code: &str) -> Value {
    exec_within(session, code, PATIENCE).expect("the cell answers")
}

/// No sandbox of the default group has a command out: every turn has ended.
fn no_command_out() -> bool {
    group_for(None)
        .processes()
        .iter()
        .all(|process| process.commands_in_flight() == 0)
}

/// Waits until the host holds `n` calls and the sandbox has ended its command.
fn held_after_the_command(host: &FakeHost, n: usize) {
    assert!(
        until(PATIENCE, || host.held_count() == n && no_command_out()),
        "the host never held {n} calls with no command out"
    );
}

#[test]
fn replies_that_come_while_the_command_is_out_go_straight_into_it_once_each() {
    let _serial = serial();
    let host = host();
    let session = sandboxed("rd-direct", &host, 60_000);
    let before = DIRECT_REPLIES.load(Ordering::SeqCst);
    let result = exec(
        &session,
        "let sum = 0; for (let i = 0; i < 50; i++) { sum += (await echo({ n: i })).echo.n; } return sum;",
    );
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"], 1225);
    assert_eq!(host.calls().len(), 50, "each call runs once");
    let direct = DIRECT_REPLIES.load(Ordering::SeqCst) - before;
    assert_eq!(
        direct, 50,
        "every reply came while the call's command was out"
    );
    let records = result["nestedCalls"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(records.len(), 50, "{result}");
    assert!(
        records.iter().all(|record| record["status"] == "ok"),
        "{result}"
    );
}

#[test]
fn a_reply_after_the_sandbox_ended_its_command_goes_with_the_next_one() {
    let _serial = serial();
    let host = host();
    let session = sandboxed("rd-late", &host, 60_000);
    let (_cell, result) = start_exec(
        &session,
        "const a = await held({ first: true }); const b = await echo({ n: 1 }); return [a, b];",
    );
    held_after_the_command(&host, 1);
    assert_eq!(host.answer_held(r#"{"late":true}"#), 1);
    let result = result.recv_timeout(PATIENCE).expect("the cell answers");
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(
        result["value"],
        json!([{ "late": true }, { "echo": { "n": 1 } }])
    );
    assert_eq!(host.calls().len(), 2, "each call runs once");
}

#[test]
fn an_abort_while_the_guest_awaits_a_call_answers_aborted_and_the_sandbox_serves_on() {
    let _serial = serial();
    let host = host();
    let session = sandboxed("rd-abort", &host, 60_000);
    let (cell, result) = start_exec(&session, "await held({}); return 'not reached';");
    let cell = cell.expect("a cell");
    assert!(until(PATIENCE, || host.held_count() == 1));
    cell.push(Event::Abort);
    let aborted = result.recv_timeout(PATIENCE).expect("the abort answers");
    assert_eq!(aborted["code"], "aborted", "{aborted}");
    // The reply that comes after the end changes nothing.
    host.answer_held(r#"{"late":true}"#);
    let next = exec(&session, "return (await echo({ n: 2 })).echo.n;");
    assert_eq!(next["value"], 2, "{next}");
}

#[test]
fn a_yield_while_a_call_is_out_parks_and_a_reply_while_parked_waits_for_the_wait() {
    let _serial = serial();
    let host = host();
    let session = sandboxed("rd-yield", &host, 60_000);
    let first = exec(
        &session,
        "const p = held({}); await yield_control('step'); return await p;",
    );
    assert_eq!(first["status"], "waiting", "{first}");
    // Answered while the run is parked: it is kept for the wait, not sent to the sandbox.
    held_after_the_command(&host, 1);
    host.answer_held(r#"{"while":"parked"}"#);
    let result = wait_within(&session, &run_id(&first), PATIENCE).expect("the wait answers");
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"], json!({ "while": "parked" }));
    assert_eq!(host.calls().len(), 1, "the call ran once");
}

#[test]
fn a_deadline_while_the_guest_awaits_a_call_parks_the_run_as_before() {
    let _serial = serial();
    let host = host();
    let session = sandboxed("rd-deadline", &host, 300);
    let first = exec(&session, "return await held({});");
    assert_eq!(first["status"], "waiting", "{first}");
    assert_eq!(first["reason"], "pending_tools", "{first}");
    host.answer_held(r#"{"after":"deadline"}"#);
    let result = wait_within(&session, &run_id(&first), PATIENCE).expect("the wait answers");
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"], json!({ "after": "deadline" }));
}
