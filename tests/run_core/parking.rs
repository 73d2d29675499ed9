//! A call the host never answers in time: the run parks at its deadline with
//! `pendingToolCalls`; `wait` resumes it, `close` and `cancelRun` drop it and cancel the
//! host call.

use crate::common::hosts::{Behaviour, FakeHost};
use crate::common::run_id;
use crate::common::settle::{serial, Leftovers};
use crate::{exec, nested_statuses, session, wait};
use codemode_native::session::core::SessionCore;
use codemode_native::session::store;
use serde_json::{json, Value};
use std::sync::Arc;

/// Parks a run on one held `slow` call; checks the waiting result and the store.
fn park_on_slow(s: &Arc<SessionCore>, host: &FakeHost, baseline: &Leftovers) -> Value {
    let parked = exec(
        s,
        "text('before'); const r = await slow({ n: 1 }); return r",
    );
    assert_eq!(parked["status"], "waiting", "{parked}");
    assert_eq!(parked["reason"], "pending_tools");
    let call_id = host.calls()[0].call_id.clone();
    assert_eq!(
        parked["pendingToolCalls"],
        json!([{ "id": call_id, "method": "tool", "toolName": "slow" }]),
        "{parked}"
    );
    assert_eq!(nested_statuses(&parked), ["pending"], "{parked}");
    assert_eq!(
        parked["output"],
        json!([{ "type": "text", "text": "before" }])
    );
    assert_eq!(s.runs().len(), 1);
    assert_eq!(store::global().len(), baseline.parked + 1);
    parked
}

fn parking_session(id: &str, host: &Arc<FakeHost>) -> Arc<SessionCore> {
    session(id, json!({ "timeoutMs": 1000 }), host)
}

#[test]
fn a_parked_call_answered_while_parked_completes_on_wait() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Hold).shared();
    let s = parking_session("core-park-wait", &host);
    let parked = park_on_slow(&s, &host, &baseline);

    assert_eq!(host.answer_held(r#"{"late":true}"#), 1);
    let resumed = wait(&s, &run_id(&parked));
    assert_eq!(resumed["status"], "completed", "{resumed}");
    assert_eq!(resumed["value"], json!({ "late": true }));
    assert_eq!(nested_statuses(&resumed), ["ok"], "{resumed}");
    assert!(s.runs().is_empty());
    assert!(host.cancelled().is_empty(), "nothing to cancel");
    drop(s);
    baseline.assert_restored();
}

#[test]
fn a_parked_run_still_unanswered_parks_again_on_wait() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Hold).shared();
    let s = parking_session("core-park-again", &host);
    let parked = park_on_slow(&s, &host, &baseline);

    let again = wait(&s, &run_id(&parked));
    assert_eq!(again["status"], "waiting", "{again}");
    assert_eq!(again["runId"], parked["runId"], "the same run");
    assert_eq!(again["pendingToolCalls"], parked["pendingToolCalls"]);
    assert!(
        again.get("output").is_none(),
        "output is reported once: {again}"
    );
    assert_eq!(host.calls().len(), 1, "the call is not repeated");

    host.answer_held(r#"{"late":true}"#);
    let resumed = wait(&s, &run_id(&again));
    assert_eq!(resumed["status"], "completed", "{resumed}");
    drop(s);
    baseline.assert_restored();
}

#[test]
fn close_drops_a_parked_run_and_cancels_its_host_call() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Hold).shared();
    let s = parking_session("core-park-close", &host);
    let parked = park_on_slow(&s, &host, &baseline);

    s.close();
    assert!(s.runs().is_empty());
    assert_eq!(host.cancelled(), [host.calls()[0].call_id.clone()]);
    // A late answer finds no run to wake.
    host.answer_held(r#"{"late":true}"#);
    let gone = wait(&s, &run_id(&parked));
    assert_eq!(gone["status"], "failed", "{gone}");
    assert_eq!(gone["code"], "invalid_input", "{gone}");
    drop(s);
    baseline.assert_restored();
}

#[test]
fn cancel_run_drops_a_parked_run_and_cancels_its_host_call() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Hold).shared();
    let s = parking_session("core-park-cancel", &host);
    let parked = park_on_slow(&s, &host, &baseline);

    assert!(s.cancel_run(&run_id(&parked)));
    assert!(
        !s.cancel_run(&run_id(&parked)),
        "a second cancel finds nothing"
    );
    assert!(s.runs().is_empty());
    assert_eq!(host.cancelled(), [host.calls()[0].call_id.clone()]);
    host.answer_held(r#"{"late":true}"#);
    drop(s);
    baseline.assert_restored();
}
