//! How a run ends without the host: an abort while a call is pending, a yield that parks
//! and resumes, timers, a guest throw, and running out of memory.

use crate::common::hosts::{Answer, Behaviour, FakeHost};
use crate::common::settle::{serial, until, Leftovers, PATIENCE};
use crate::common::{run_id, start_exec};
use crate::{exec, nested_statuses, plain_session, session, wait};
use codemode_native::run::protocol::Event;
use serde_json::json;

#[test]
fn an_abort_while_a_call_is_pending_cancels_the_call() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Hold).shared();
    let s = plain_session("core-abort", &host);

    let (cell, result) = start_exec(&s, "setTimeout(() => 1, 3600000); return await slow({})");
    let cell = cell.expect("a cell starts");
    assert!(
        until(PATIENCE, || host.held_count() == 1),
        "the call reaches the host"
    );
    cell.push(Event::Abort);
    drop(cell);

    let result = result.recv_timeout(PATIENCE).expect("exec answers");
    assert_eq!(result["status"], "failed", "{result}");
    assert_eq!(result["code"], "aborted", "{result}");
    assert_eq!(nested_statuses(&result), ["cancelled"], "{result}");
    assert_eq!(host.cancelled(), [host.calls()[0].call_id.clone()]);
    host.answer_held("null");
    drop(s);
    baseline.assert_restored();
}

#[test]
fn a_yield_parks_and_wait_resumes_after_it() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Now(Answer::Echo)).shared();
    let s = plain_session("core-yield", &host);

    let parked = exec(
        &s,
        "text('a'); const r = await yield_control('pause'); text('b'); return r",
    );
    assert_eq!(parked["status"], "waiting", "{parked}");
    assert_eq!(parked["reason"], "yield");
    assert!(parked.get("pendingToolCalls").is_none(), "{parked}");
    assert_eq!(parked["output"], json!([{ "type": "text", "text": "a" }]));
    assert_eq!(s.runs().len(), 1);

    let resumed = wait(&s, &run_id(&parked));
    assert_eq!(resumed["status"], "completed", "{resumed}");
    assert_eq!(
        resumed["value"],
        json!({ "status": "yielded", "reason": "pause" })
    );
    assert_eq!(resumed["output"], json!([{ "type": "text", "text": "b" }]));
    drop(s);
    baseline.assert_restored();
}

#[test]
fn timers_fire_and_cleared_timers_do_not() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Now(Answer::Echo)).shared();
    let s = plain_session("core-timer", &host);

    let fired = exec(
        &s,
        "const t = setTimeout(() => { throw new Error('cleared') }, 1); clearTimeout(t); \
         return await new Promise((resolve) => setTimeout(() => resolve('fired'), 5))",
    );
    assert_eq!(fired["status"], "completed", "{fired}");
    assert_eq!(fired["value"], "fired");
    drop(s);
    baseline.assert_restored();
}

#[test]
fn a_guest_throw_fails_the_run_with_the_guest_error() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Now(Answer::Echo)).shared();
    let s = plain_session("core-throw", &host);

    let thrown = exec(&s, "await echo({}); throw new Error('boom')");
    assert_eq!(thrown["status"], "failed", "{thrown}");
    assert_eq!(thrown["code"], "guest_error", "{thrown}");
    let error = thrown["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("Error: boom"), "{thrown}");
    assert_eq!(nested_statuses(&thrown), ["ok"], "{thrown}");

    let in_timer = exec(
        &s,
        "setTimeout(() => { throw new Error('late boom') }, 1); \
         await new Promise((resolve) => setTimeout(resolve, 20)); return 1",
    );
    assert_eq!(in_timer["status"], "failed", "{in_timer}");
    let error = in_timer["error"].as_str().unwrap_or_default();
    assert!(error.contains("late boom"), "{in_timer}");
    assert_eq!(in_timer["code"], "guest_error", "{in_timer}");
    drop(s);
    baseline.assert_restored();
}

#[test]
fn running_out_of_memory_fails_at_once_and_cancels_pending_calls() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Hold).shared();
    let limits = json!({ "timeoutMs": 60_000, "memoryLimitBytes": 16 << 20 });
    let s = session("core-oom", limits, &host);

    let exhausted = exec(
        &s,
        "slow({}); const keep = []; for (;;) keep.push([keep.length])",
    );
    assert_eq!(exhausted["status"], "failed", "{exhausted}");
    let error = exhausted["error"].as_str().unwrap_or_default();
    assert!(error.contains("ran out of memory"), "{exhausted}");
    assert_eq!(exhausted["code"], "memory_limit_exceeded", "{exhausted}");
    assert!(s.runs().is_empty(), "the failed run is not parked");
    assert_eq!(nested_statuses(&exhausted), ["cancelled"], "{exhausted}");
    assert_eq!(host.cancelled(), [host.calls()[0].call_id.clone()]);
    drop(s);
    baseline.assert_restored();
}
