//! The cell against a fake `RunOwner` (src/run/owner.rs), without a session: the owner
//! sees every park and forget, owns its runs until it forgets them, and can refuse to park.

use crate::common::hosts::{Answer, Behaviour, FakeHost};
use crate::common::settle::{serial, Leftovers, PATIENCE};
use crate::fake_owner::FakeOwner;
use crate::nested_statuses;
use codemode_native::run::result::CodeModeResult;
use serde_json::{json, Value};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::Duration;

fn answer_into() -> (codemode_native::run::cell::Responder, Receiver<Value>) {
    let (tx, rx) = mpsc::channel();
    let responder = Box::new(move |outcome: CodeModeResult| {
        let _ = tx.send(outcome.into_value());
    });
    (responder, rx)
}

#[test]
fn a_finished_run_reports_through_its_owner_and_is_forgotten_once() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Now(Answer::Echo)).shared();
    let owner = Arc::new(FakeOwner::new(&["echo"], json!({}), host.clone()));

    let (responder, result) = answer_into();
    drop(FakeOwner::start(
        &owner,
        "owned-1",
        "return await echo({ a: 1 })",
        responder,
    ));
    let result = result.recv_timeout(PATIENCE).expect("the run answers");
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"], json!({ "echo": { "a": 1 } }));
    assert_eq!(nested_statuses(&result), ["ok"], "{result}");
    // Telemetry comes from the owner, with the call it counted.
    assert_eq!(
        result["telemetry"]["counterScope"], "fake-owner",
        "{result}"
    );
    assert_eq!(result["telemetry"]["callCount"], 1, "{result}");
    assert!(owner.parks.lock().is_empty(), "{:?}", owner.parks.lock());
    assert_eq!(*owner.forgotten.lock(), ["owned-1"]);
    drop(owner);
    baseline.assert_restored();
}

#[test]
fn a_yield_parks_with_the_owner_which_resumes_the_cell() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Now(Answer::Echo)).shared();
    let owner = Arc::new(FakeOwner::new(&["echo"], json!({}), host.clone()));

    let (responder, first) = answer_into();
    let code = "await yield_control('pause'); return await echo({ resumed: true })";
    drop(FakeOwner::start(&owner, "owned-2", code, responder));
    let first = first.recv_timeout(PATIENCE).expect("the run parks");
    assert_eq!(first["status"], "waiting", "{first}");
    assert_eq!(first["reason"], "yield");
    assert_eq!(*owner.parks.lock(), [("owned-2".to_string(), "yield", 0)]);

    // The owner holds the parked cell; resuming is what `wait` does with it.
    let cell = owner.cells.lock().get("owned-2").cloned().expect("parked");
    cell.release_yield();
    let (responder, second) = answer_into();
    assert!(cell
        .begin_call(Duration::from_secs(10), responder, false)
        .is_ok());
    drop(cell);
    let second = second.recv_timeout(PATIENCE).expect("the run resumes");
    assert_eq!(second["status"], "completed", "{second}");
    assert_eq!(second["value"], json!({ "echo": { "resumed": true } }));
    assert!(owner.cells.lock().is_empty(), "forgotten once settled");
    assert_eq!(*owner.forgotten.lock(), ["owned-2"]);
    drop(owner);
    baseline.assert_restored();
}

#[test]
fn a_park_the_owner_refuses_fails_the_run_and_cancels_its_calls() {
    let _serial = serial();
    let baseline = Leftovers::now();
    let host = FakeHost::new(Behaviour::Hold).shared();
    let owner = FakeOwner::new(&["slow"], json!({ "timeoutMs": 300 }), host.clone());
    let owner = Arc::new(owner.refusing_to_park("no room to park"));

    let (responder, result) = answer_into();
    drop(FakeOwner::start(
        &owner,
        "owned-3",
        "return await slow({})",
        responder,
    ));
    let result = result.recv_timeout(PATIENCE).expect("the run answers");
    assert_eq!(result["status"], "failed", "{result}");
    assert_eq!(result["code"], "invalid_input", "{result}");
    assert_eq!(result["error"], "no room to park", "{result}");
    assert_eq!(
        *owner.parks.lock(),
        [("owned-3".to_string(), "pending_tools", 1)]
    );
    assert_eq!(nested_statuses(&result), ["cancelled"], "{result}");
    assert_eq!(host.cancelled(), [host.calls()[0].call_id.clone()]);
    assert_eq!(*owner.forgotten.lock(), ["owned-3"]);
    host.answer_held("null");
    drop(owner);
    baseline.assert_restored();
}
