//! Durable runs through the real `Cell` and `SessionCore`, in both isolation modes: a run
//! recorded by one session is adopted by another from its record alone (the first is
//! closed, as a process that died), replays without dispatching anything again, and goes
//! on live; a replay that does something else fails with `replay_divergence`.

use crate::common::durable::{approve, first_pending, record_and_close};
use crate::common::hosts::{Answer, Behaviour, FakeHost};
use crate::common::settle::serial;
use crate::common::{run_id, session_with, tool};
use crate::{exec, wait};
use codemode_native::catalog::ToolSpec;
use codemode_native::run::ledger::Outcome;
use codemode_native::run::state::external::Resolution;
use codemode_native::sandbox::isolation::Isolation;
use codemode_native::session::core::SessionCore;
use serde_json::{json, Value};
use std::sync::Arc;

const MODES: [Isolation; 2] = [Isolation::Thread, Isolation::Process];

/// `echo` answers at once, `ask` suspends (an approval), `held` never answers, `safe` is
/// `replaySafe` and never answers.
fn durable(isolation: Isolation, id: &str, tools: &[&str]) -> (Arc<SessionCore>, Arc<FakeHost>) {
    durable_with(
        isolation,
        id,
        tools,
        json!({ "timeoutMs": 60_000 }),
        Behaviour::Never,
    )
}

/// As [`durable`], with these limits and `safe` answering as `safe` says.
fn durable_with(
    isolation: Isolation,
    id: &str,
    tools: &[&str],
    limits: Value,
    safe: Behaviour,
) -> (Arc<SessionCore>, Arc<FakeHost>) {
    let host = FakeHost::new(Behaviour::Now(Answer::Echo))
        .on("ask", Behaviour::Suspend(r#"{"q":1}"#.into()))
        .on("held", Behaviour::Never)
        .on("safe", safe)
        .shared();
    let specs: Vec<ToolSpec> = tools
        .iter()
        .map(|name| ToolSpec {
            replay_safe: *name == "safe",
            ..tool(name)
        })
        .collect();
    let session = session_with(isolation, id, limits, specs, host.clone(), true);
    (session, host)
}

const APPROVAL: &str = r#"
    const [a, b] = await Promise.all([echo({ n: 1 }), echo({ n: 2 })]);
    const first = await Promise.race([echo({ n: 3 }), new Promise((r) => setTimeout(() => r("timer"), 0))]);
    const approved = await ask({ sum: a.echo.n + b.echo.n });
    const after = await echo({ approved });
    return { a: a.echo.n, b: b.echo.n, first, approved, after: after.echo.approved };
"#;

#[test]
fn a_parked_run_replays_in_another_session_without_dispatching_again_and_goes_on_live() {
    let _serial = serial();
    for mode in MODES {
        let id = format!("durable-replay-{mode:?}");
        let (a, a_host) = durable(mode, &id, &["echo", "ask"]);
        let parked = exec(&a, APPROVAL);
        assert_eq!(parked["status"], "waiting", "{parked}");
        let run = run_id(&parked);
        let mut record = record_and_close(&a, &run);
        assert_eq!(a_host.calls().len(), 4, "three echoes and the approval");
        let ask_id = a_host.calls()[3].call_id.clone();

        // The approval arrives while no process holds the run: it goes into the record.
        let yes = Outcome {
            ok: true,
            payload: "true".into(),
        };
        assert_eq!(
            record.resolve_external(&ask_id, yes.clone()),
            Ok(Resolution::Resolved)
        );
        assert_eq!(
            record.resolve_external(&ask_id, yes),
            Ok(Resolution::AlreadyResolved)
        );

        let (b, b_host) = durable(mode, &id, &["echo", "ask"]);
        b.adopt(&run, record).expect("the record is adopted");
        let done = wait(&b, &run);
        assert_eq!(done["status"], "completed", "{mode:?}: {done}");
        let first = done["value"]["first"].clone();
        assert_eq!(
            done["value"],
            json!({ "a": 1, "b": 2, "first": first, "approved": true, "after": true })
        );
        // Only the call made after the approval reached the new session's host.
        let calls: Vec<String> = b_host
            .calls()
            .iter()
            .map(|c| c.input_json.clone())
            .collect();
        assert_eq!(calls, [r#"{"approved":true}"#], "{mode:?}");
        b.close();
    }
}

#[test]
fn a_call_lost_with_its_process_is_not_dispatched_again_and_a_replay_safe_one_is() {
    let _serial = serial();
    for mode in MODES {
        let id = format!("durable-lost-{mode:?}");
        // The calls that never answer keep the run from parking before its deadline.
        let limits = json!({ "timeoutMs": 300 });
        let tools = ["held", "safe", "ask"];
        let (a, _) = durable_with(mode, &id, &tools, limits.clone(), Behaviour::Never);
        let code = r#"
            const lost = held({ pay: 10 }).then(() => "paid", (e) => [e.code, e.effectStatus, e.message]);
            safe({ read: 1 });
            await ask({});
            return await lost;
        "#;
        let parked = exec(&a, code);
        assert_eq!(parked["status"], "waiting", "{parked}");
        let run = run_id(&parked);
        let record = record_and_close(&a, &run);
        let (b, b_host) = durable_with(mode, &id, &tools, limits, Behaviour::Now(Answer::Echo));
        b.adopt(&run, record).unwrap();
        let reparked = wait(&b, &run);
        assert_eq!(
            reparked["status"], "waiting",
            "{mode:?}: the approval is still out: {reparked}"
        );
        assert_eq!(reparked["reason"], "pending_tools", "{reparked}");
        let seen: Vec<String> = b_host.calls().iter().map(|c| c.tool_name.clone()).collect();
        assert_eq!(
            seen,
            ["safe"],
            "{mode:?}: only the replay-safe call runs again"
        );
        let ask = reparked["pendingToolCalls"]
            .as_array()
            .and_then(|calls| calls.iter().find(|c| c["toolName"] == "ask"))
            .cloned()
            .unwrap_or(Value::Null);
        assert_eq!(ask["external"], true, "{reparked}");
        let ask_id = ask["id"].as_str().unwrap_or_default().to_string();
        assert_eq!(
            b.resolve_call(&run, &ask_id, Ok("1".into())),
            Ok(Resolution::Resolved)
        );
        let done = wait(&b, &run);
        let value = &done["value"];
        assert_eq!(value[0], "tool_error", "{mode:?}: {done}");
        assert_eq!(value[1], "unknown");
        assert!(
            value[2]
                .as_str()
                .unwrap_or_default()
                .contains("Check its effect"),
            "{done}"
        );
        b.close();
    }
}

#[test]
fn a_replay_that_calls_otherwise_fails_with_replay_divergence_and_dispatches_nothing() {
    let _serial = serial();
    let (a, _) = durable(Isolation::Thread, "durable-diverge", &["echo", "ask"]);
    let parked = exec(&a, "await echo({ n: 1 }); return await ask({});");
    let run = run_id(&parked);
    let mut record = record_and_close(&a, &run);
    record.ledger.calls[0].input = r#"{"n":2}"#.into();
    let (b, b_host) = durable(Isolation::Thread, "durable-diverge", &["echo", "ask"]);
    b.adopt(&run, record).unwrap();
    let failed = wait(&b, &run);
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["code"], "replay_divergence", "{failed}");
    let message = failed["error"].as_str().unwrap_or_default();
    assert!(
        message.contains("call #1 to echo had other arguments"),
        "{message}"
    );
    assert!(b_host.calls().is_empty(), "nothing dispatched");
    b.close();
}

#[test]
fn a_record_made_under_other_limits_is_refused() {
    let _serial = serial();
    let (a, _) = durable(Isolation::Thread, "durable-limits", &["ask"]);
    let parked = exec(&a, "return await ask({});");
    let run = run_id(&parked);
    let mut record = record_and_close(&a, &run);
    record.limits.max_output_bytes += 1;
    let (b, _) = durable(Isolation::Thread, "durable-limits", &["ask"]);
    let refused = b.adopt(&run, record).unwrap_err();
    assert_eq!(refused.code.as_str(), "replay_divergence", "{refused:?}");
    b.close();
}

#[test]
fn a_ledger_past_max_snapshot_bytes_fails_the_run_instead_of_growing() {
    let _serial = serial();
    let limits = json!({ "timeoutMs": 60_000, "maxSnapshotBytes": 65_536 });
    let (s, host) = durable_with(
        Isolation::Thread,
        "durable-ledger-cap",
        &["echo"],
        limits,
        Behaviour::Never,
    );
    let failed = exec(
        &s,
        "for (let i = 0; ; i++) await echo({ i, pad: 'x'.repeat(500) });",
    );
    assert_eq!(failed["code"], "snapshot_limit_exceeded", "{failed}");
    let message = failed["error"].as_str().unwrap_or_default();
    assert!(
        message.contains("recorded more than maxSnapshotBytes (65536)"),
        "{message}"
    );
    assert!(host.calls().len() < 100, "stopped near the cap, not after");
    s.close();
}

#[test]
fn a_replay_reads_the_clock_and_random_numbers_the_run_read() {
    let _serial = serial();
    for mode in MODES {
        let id = format!("durable-determinism-{mode:?}");
        let (a, a_host) = durable(mode, &id, &["echo", "ask"]);
        let code = r#"
            const t0 = Date.now(), r0 = Math.random(), p0 = performance.now();
            await echo({});
            const t1 = new Date().getTime(), r1 = Math.random();
            await new Promise((done) => setTimeout(done, 5));
            const t2 = Date.now();
            const seen = { t0, r0, p0, t1, r1, t2 };
            await ask(seen);
            return seen;
        "#;
        let parked = exec(&a, code);
        assert_eq!(parked["status"], "waiting", "{parked}");
        // What the run read, as it passed it to `ask`.
        let asked = a_host
            .calls()
            .iter()
            .find(|c| c.tool_name == "ask")
            .map(|c| c.input_json.clone());
        let seen: Value = serde_json::from_str(&asked.unwrap_or_default()).unwrap_or(Value::Null);
        assert!(seen["t1"].as_f64() >= seen["t0"].as_f64(), "{seen}");
        let run = run_id(&parked);
        let ask_id = first_pending(&parked);
        let mut record = record_and_close(&a, &run);
        approve(&mut record, &ask_id, "1");
        let (b, _) = durable(mode, &id, &["echo", "ask"]);
        b.adopt(&run, record).unwrap();
        let done = wait(&b, &run);
        assert_eq!(done["status"], "completed", "{mode:?}: {done}");
        assert_eq!(
            done["value"], seen,
            "{mode:?}: the replay saw what the run saw"
        );
        b.close();
    }
}

#[test]
fn a_replay_runs_the_programs_first_jobs_before_its_first_recorded_delivery() {
    let _serial = serial();
    for mode in MODES {
        let id = format!("durable-first-jobs-{mode:?}");
        // The call is made only after a job turn: the run drained its jobs before the
        // call's answer came, and its replay must too.
        let code = "await null; const a = await echo({ n: 1 }); return [a.echo.n, await ask({})];";
        let (a, _) = durable(mode, &id, &["echo", "ask"]);
        let parked = exec(&a, code);
        assert_eq!(parked["status"], "waiting", "{parked}");
        let run = run_id(&parked);
        let record = record_and_close(&a, &run);
        let (b, b_host) = durable(mode, &id, &["echo", "ask"]);
        b.adopt(&run, record).unwrap();
        let again = wait(&b, &run);
        assert_eq!(again["status"], "waiting", "{mode:?}: {again}");
        assert_eq!(again["pendingToolCalls"][0]["toolName"], "ask", "{again}");
        assert!(
            b_host.calls().is_empty(),
            "{mode:?}: the echo is not made again"
        );
        b.close();
    }
}
