//! One tool call, answered at once, later from another thread, or with a host failure.

use crate::common::hosts::{Answer, Behaviour, FakeHost};
use crate::common::settle::{serial, until, Leftovers, PATIENCE};
use crate::common::start_exec;
use crate::{exec, nested_statuses, plain_session};
use serde_json::json;

#[test]
fn a_call_answered_at_once_completes_with_its_value() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Now(Answer::Echo)).shared();
    let s = plain_session("core-now", &host);

    let result = exec(&s, "return await echo({ a: 1 })");
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"], json!({ "echo": { "a": 1 } }));
    assert_eq!(nested_statuses(&result), ["ok"], "{result}");
    assert_eq!(result["nestedCalls"][0]["toolName"], "echo");
    assert_eq!(result["telemetry"]["callCount"], 1);
    assert_eq!(host.calls().len(), 1);
    assert!(host.cancelled().is_empty(), "nothing to cancel");
    drop(s);
    baseline.assert_restored();
}

#[test]
fn a_call_answered_later_from_another_thread_completes() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Hold).shared();
    let s = plain_session("core-later", &host);

    let (cell, result) = start_exec(&s, "const r = await slow({ n: 1 }); return [r, 'after']");
    drop(cell);
    assert!(
        until(PATIENCE, || host.held_count() == 1),
        "the call reaches the host"
    );
    let held = host.take_held();
    let answering = std::thread::spawn(move || {
        for held in held {
            held.reply.ok(r#"{"n":2}"#.into());
        }
    });
    answering.join().expect("the answering thread");

    let result = result.recv_timeout(PATIENCE).expect("exec answers");
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"], json!([{ "n": 2 }, "after"]));
    assert_eq!(nested_statuses(&result), ["ok"], "{result}");
    drop(s);
    baseline.assert_restored();
}

#[test]
fn a_host_failure_reaches_the_guest_as_a_catchable_error() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Later(Answer::tool_error("disk on fire"))).shared();
    let s = plain_session("core-error", &host);

    let caught = exec(
        &s,
        "try { await broken({}) } catch (e) { return [e.message, e.code] }",
    );
    assert_eq!(caught["status"], "completed", "{caught}");
    assert_eq!(caught["value"], json!(["disk on fire", "tool_error"]));
    assert_eq!(nested_statuses(&caught), ["error"], "{caught}");

    let uncaught = exec(&s, "return await broken({})");
    assert_eq!(uncaught["status"], "failed", "{uncaught}");
    let error = uncaught["error"].as_str().unwrap_or_default();
    assert!(error.contains("disk on fire"), "{uncaught}");
    assert_eq!(uncaught["code"], "tool_error", "{uncaught}");
    assert_eq!(nested_statuses(&uncaught), ["error"], "{uncaught}");
    drop(s);
    baseline.assert_restored();
}

#[test]
fn a_dropped_reply_leaves_the_call_to_the_deadline() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Never).shared();
    let s = crate::session("core-never", json!({ "timeoutMs": 1000 }), &host);

    let parked = exec(&s, "return await lost({})");
    assert_eq!(parked["status"], "waiting", "{parked}");
    assert_eq!(parked["reason"], "pending_tools");
    assert_eq!(parked["pendingToolCalls"][0]["toolName"], "lost");
    s.close();
    assert_eq!(host.cancelled().len(), 1, "close cancels the lost call");
    drop(s);
    baseline.assert_restored();
}
