//! Durable runs, as a property: programs built from calls, `Promise.all`, `allSettled`,
//! caught failures, timers and a payment (not `replaySafe`), each crashed after every
//! number of answered calls (its session closed, its record adopted by another), end with
//! the result of an uninterrupted run, the payment's outcome aside (a payment lost with
//! its process reads `unknown`), and no payment is ever dispatched twice.

use crate::common::hosts::{Answer, Behaviour, FakeHost};
use crate::common::settle::{serial, until, PATIENCE};
use crate::common::{session_with, start_exec, tool};
use crate::wait;
use codemode_native::catalog::ToolSpec;
use codemode_native::run::protocol::HostFailure;
use codemode_native::sandbox::isolation::Isolation;
use codemode_native::session::core::SessionCore;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::Arc;

/// One step of a program; `{k}` is the step's index.
const STEPS: [&str; 5] = [
    "r.push((await echo({ k: {k} })).echo.k);",
    "r.push(...(await Promise.all([echo({ k: {k}, a: 1 }), echo({ k: {k}, a: 2 })])).map((x) => x.echo.a));",
    "try { await fail({ k: {k} }); } catch (e) { r.push('caught ' + e.message); }",
    "await new Promise((done) => setTimeout(done, 1)); r.push('tick {k}'); r.push((await Promise.allSettled([echo({ k: {k} }), fail({})])).map((s) => s.status));",
    "r.push(await pay({ k: {k} }).then(() => 'paid', (e) => e.effectStatus));",
];

/// Program `n`: four steps picked by `n`, so every step kind meets every other.
fn program(n: usize) -> String {
    let steps: String = (0..4)
        .map(|k| STEPS[(n * 7 + k * 3 + n / 5) % STEPS.len()].replace("{k}", &k.to_string()))
        .collect();
    format!("const r = []; {steps} return r;")
}

fn failure() -> HostFailure {
    HostFailure {
        message: "no".into(),
        code: "tool_error",
    }
}

fn durable(id: &str, host: Arc<FakeHost>) -> Arc<SessionCore> {
    let specs: Vec<ToolSpec> = ["echo", "fail", "pay"]
        .iter()
        .map(|name| ToolSpec {
            replay_safe: *name != "pay",
            ..tool(name)
        })
        .collect();
    let limits = json!({ "timeoutMs": 60_000 });
    session_with(Isolation::Thread, id, limits, specs, host, true)
}

/// A host that answers at once, as the uninterrupted run's and the adopting session's do.
fn answering() -> Arc<FakeHost> {
    FakeHost::new(Behaviour::Now(Answer::Echo))
        .on("fail", Behaviour::Now(Answer::Fail(failure())))
        .on("pay", Behaviour::Now(Answer::Json("\"ok\"".into())))
        .shared()
}

/// The payment's outcome aside: a lost payment reads `unknown` where it read `paid`.
fn normalized(value: &Value) -> Value {
    let text = value.to_string().replace("\"unknown\"", "\"paid\"");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// Runs `code` live, answering `answered` calls (in the order they come), then crashes the
/// session and resumes the run from its record elsewhere. `None` if it ended first.
fn crashed_after(n: usize, code: &str, answered: usize) -> Option<(Value, Vec<String>)> {
    let held = FakeHost::new(Behaviour::Hold).shared();
    let a = durable(&format!("property-{n}"), held.clone());
    let (cell, result) = start_exec(&a, code);
    let run = cell.expect("the cell started").run_id.clone();
    let mut done = 0;
    while done < answered {
        let more = until(PATIENCE, || held.held_count() > 0 || !a.runs().is_empty());
        assert!(more, "program {n} neither called nor ended");
        for call in held.take_held() {
            done += 1;
            match call.call.tool_name.as_str() {
                "fail" => call.reply.fail(failure()),
                "pay" => call.reply.ok("\"ok\"".into()),
                _ => {
                    let input: Value =
                        serde_json::from_str(&call.call.input_json).unwrap_or(Value::Null);
                    call.reply.ok(json!({ "echo": input }).to_string());
                }
            }
        }
        if result.try_recv().is_ok() {
            a.close();
            return None;
        }
    }
    // Crash once the run is waiting on a call it made (or has ended).
    let ended = std::cell::Cell::new(false);
    until(PATIENCE, || {
        ended.set(ended.get() || result.try_recv().is_ok());
        held.held_count() > 0 || ended.get()
    });
    if ended.get() {
        a.close();
        return None;
    }
    let record = a.record(&run)?;
    let dispatched_a: Vec<String> = held
        .calls()
        .iter()
        .filter(|c| c.tool_name == "pay")
        .map(|c| c.call_id.clone())
        .collect();
    a.close();
    let host = answering();
    let b = durable(&format!("property-{n}"), host.clone());
    b.adopt(&run, record).expect("adopted");
    let resumed = wait(&b, &run);
    assert_eq!(
        resumed["status"], "completed",
        "program {n} after {answered}: {resumed}\n{code}"
    );
    let mut payments = dispatched_a;
    payments.extend(
        host.calls()
            .iter()
            .filter(|c| c.tool_name == "pay")
            .map(|c| c.call_id.clone()),
    );
    b.close();
    Some((resumed["value"].clone(), payments))
}

#[test]
fn crashed_and_resumed_runs_end_as_uninterrupted_ones_and_never_pay_twice() {
    let _serial = serial();
    let mut crashes = 0;
    for n in 0..10 {
        let code = program(n);
        let baseline = durable(&format!("property-base-{n}"), answering());
        let expected = crate::exec(&baseline, &code);
        assert_eq!(expected["status"], "completed", "{expected}\n{code}");
        baseline.close();
        for answered in 0..6 {
            let Some((value, payments)) = crashed_after(n, &code, answered) else {
                break;
            };
            crashes += 1;
            assert_eq!(
                normalized(&value),
                normalized(&expected["value"]),
                "program {n} crashed after {answered}:\n{code}"
            );
            let unique: HashSet<&String> = payments.iter().collect();
            assert_eq!(
                unique.len(),
                payments.len(),
                "a payment dispatched twice: {payments:?}"
            );
        }
    }
    assert!(crashes >= 20, "only {crashes} crash points were reached");
}
