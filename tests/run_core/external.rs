//! External calls through the real `Cell` and `SessionCore`: a suspended call parks its
//! run at once (not at its deadline), `resolve_call` records the outcome once for the next
//! `wait`, and refusals name the run or the call.

use crate::common::hosts::{Behaviour, FakeHost};
use crate::common::settle::{serial, Leftovers};
use crate::common::settle::{until, PATIENCE};
use crate::common::{run_id, start_exec};
use crate::{exec, nested_statuses, session, wait};
use codemode_native::error::{messages, CodeModeError};
use codemode_native::run::protocol::HostFailure;
use codemode_native::run::state::external::Resolution;
use codemode_native::session::core::SessionCore;
use serde_json::{json, Value};
use std::sync::Arc;

/// `slow` suspends with `{"ask":1}`, `echo` is held. The deadline is far beyond the
/// tests' patience: a run that parked only at its deadline would fail them.
fn external_session(id: &str) -> (Arc<SessionCore>, Arc<FakeHost>) {
    let host = FakeHost::new(Behaviour::Hold)
        .on("slow", Behaviour::Suspend(r#"{"ask":1}"#.into()))
        .shared();
    let s = session(id, json!({ "timeoutMs": 60_000 }), &host);
    (s, host)
}

fn unavailable() -> CodeModeError {
    CodeModeError::invalid_input(messages::RUN_UNAVAILABLE)
}

#[test]
fn a_suspended_call_parks_at_once_and_its_first_resolve_completes_the_wait() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let (s, host) = external_session("core-external-flow");
    let parked = exec(&s, "return await slow({ n: 1 })");
    assert_eq!(parked["status"], "waiting", "{parked}");
    let call_id = host.calls()[0].call_id.clone();
    let pending = json!([{ "id": call_id, "method": "tool", "toolName": "slow", "external": true, "payload": { "ask": 1 } }]);
    assert_eq!(parked["pendingToolCalls"], pending, "{parked}");
    assert_eq!(nested_statuses(&parked), ["pending"]);

    let run = run_id(&parked);
    let answer = s.resolve_call(&run, &call_id, Ok("42".into()));
    assert_eq!(answer, Ok(Resolution::Resolved));
    let again = s.resolve_call(&run, &call_id, Ok("43".into()));
    assert_eq!(again, Ok(Resolution::AlreadyResolved));
    let resumed = wait(&s, &run);
    assert_eq!(resumed["status"], "completed", "{resumed}");
    assert_eq!(resumed["value"], json!(42));
    assert_eq!(nested_statuses(&resumed), ["ok"]);
    // The run ended: its resolved call stays resolved for its scope, and only for it.
    let again = s.resolve_call(&run, &call_id, Ok("1".into()));
    assert_eq!(again, Ok(Resolution::AlreadyResolved));
    let (other, _) = external_session("core-external-flow-stranger");
    let refused = other.resolve_call(&run, &call_id, Ok("1".into()));
    assert_eq!(refused, Err(unavailable()));
    drop((s, other));
    baseline.assert_restored();
}

#[test]
fn an_error_resolve_rejects_the_guest_await_with_its_message() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let (s, host) = external_session("core-external-error");
    let parked = exec(&s, "try { await slow({}) } catch (e) { return e.message }");
    let failure = HostFailure {
        message: "denied".into(),
        code: "tool_error",
    };
    let run = run_id(&parked);
    let call_id = host.calls()[0].call_id.clone();
    assert_eq!(
        s.resolve_call(&run, &call_id, Err(failure)),
        Ok(Resolution::Resolved)
    );
    let resumed: Value = wait(&s, &run);
    assert_eq!(resumed["value"], json!("denied"), "{resumed}");
    drop(s);
    baseline.assert_restored();
}

#[test]
fn resolves_of_another_scope_unknown_calls_and_calls_that_did_not_suspend_are_refused() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let (s, host) = external_session("core-external-refusals");
    let (cell, results) = start_exec(&s, "return await Promise.all([slow({}), echo({})])");
    let run = cell.expect("the exec starts").run_id.clone();
    assert!(
        until(PATIENCE, || host.calls().len() == 2),
        "both calls dispatched"
    );
    let calls = host.calls();
    let (slow, echo) = (calls[0].call_id.clone(), calls[1].call_id.clone());

    // `echo` is held, so the exec is still in flight: its run is in no store yet.
    let (other, _) = external_session("core-external-stranger");
    assert_eq!(
        other.resolve_call(&run, &slow, Ok("1".into())),
        Err(unavailable())
    );
    assert_eq!(
        s.resolve_call("cm_none", &slow, Ok("1".into())),
        Err(unavailable())
    );
    let unknown = format!("{run}:9");
    let refused = s.resolve_call(&run, &unknown, Ok("1".into()));
    assert_eq!(
        refused,
        Err(CodeModeError::invalid_input(messages::call_unknown(
            &unknown
        )))
    );
    let refused = s.resolve_call(&run, &echo, Ok("1".into()));
    assert_eq!(
        refused,
        Err(CodeModeError::invalid_input(messages::call_not_external(
            &echo
        )))
    );

    assert_eq!(
        s.resolve_call(&run, &slow, Ok("1".into())),
        Ok(Resolution::Resolved)
    );
    assert_eq!(host.answer_held("2"), 1);
    let done = results.recv_timeout(PATIENCE).expect("the exec answers");
    assert_eq!(done["value"], json!([1, 2]), "{done}");
    drop((s, other));
    baseline.assert_restored();
}

#[test]
fn cancelling_a_parked_run_cancels_its_external_call() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let (s, host) = external_session("core-external-cancel");
    let parked = exec(&s, "return await slow({})");
    let run = run_id(&parked);
    let call_id = host.calls()[0].call_id.clone();
    assert!(s.cancel_run(&run));
    assert_eq!(host.cancelled(), std::slice::from_ref(&call_id));
    assert_eq!(
        s.resolve_call(&run, &call_id, Ok("1".into())),
        Err(unavailable())
    );
    drop(s);
    baseline.assert_restored();
}
