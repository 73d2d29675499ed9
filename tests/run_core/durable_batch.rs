//! A sandboxed replay sends its recorded deliveries in batches (one command each): it must
//! end as the run it replays, in both isolation modes, fall back to one delivery per drain
//! for a record whose run had a call refused, and fail with `replay_divergence`,
//! dispatching nothing, when the guest does not make what the record answers.

use crate::common::durable::{approve, first_pending, record_and_close};
use crate::common::hosts::{Answer, Behaviour, FakeHost};
use crate::common::settle::serial;
use crate::common::{run_id, session_with, tool};
use crate::{exec, wait};
use codemode_native::error::ErrorCode;
use codemode_native::run::record::RunRecord;
use codemode_native::sandbox::isolation::Isolation;
use codemode_native::sandbox::remote::REPLAYED_IN_BATCHES;
use codemode_native::session::core::SessionCore;
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::sync::Arc;

const MODES: [Isolation; 2] = [Isolation::Thread, Isolation::Process];

/// `echo` answers at once, `broken` fails, `ask` suspends (an approval); anything else echoes.
fn durable(isolation: Isolation, id: &str, tools: &[&str]) -> (Arc<SessionCore>, Arc<FakeHost>) {
    let host = FakeHost::new(Behaviour::Now(Answer::Echo))
        .on("broken", Behaviour::Now(Answer::tool_error("it broke")))
        .on("ask", Behaviour::Suspend(r#"{"q":1}"#.into()))
        .shared();
    let specs = tools.iter().map(|name| tool(name)).collect();
    let limits = json!({ "timeoutMs": 60_000 });
    let session = session_with(isolation, id, limits, specs, host.clone(), true);
    (session, host)
}

/// An MCP server `srv` with one tool `t` (host index 90); `required` lists what it needs.
fn with_mcp(session: &SessionCore, required: &[&str]) {
    let schema = json!({ "type": "object", "properties": { "q": {} }, "required": required });
    session.set_mcp(&json!({ "servers": [{
        "name": "srv",
        "tools": [{ "name": "t", "description": "T.", "inputSchema": schema, "hostIndex": 90 }],
    }] }));
}

/// The input of the run's `ask` call: what the run saw before it parked.
fn asked(host: &FakeHost) -> Value {
    let input = host
        .calls()
        .iter()
        .find(|c| c.tool_name == "ask")
        .map(|c| c.input_json.clone())
        .unwrap_or_default();
    serde_json::from_str(&input).unwrap_or(Value::Null)
}

/// Parks `code` at its `ask` in a new session, approves it in the record and finishes it
/// in another session from the record alone: the result, what the first run saw, the
/// second session's host, and how many deliveries went in batches meanwhile.
fn resume_elsewhere(mode: Isolation, id: &str, tools: &[&str], code: &str) -> Resumed {
    let (a, a_host) = durable(mode, id, tools);
    let mut parked = exec(&a, code);
    // A yield parks the run on its way: the same session goes on with it.
    while parked["status"] == "waiting" && parked["reason"] == "yield" {
        parked = wait(&a, &run_id(&parked));
    }
    assert_eq!(parked["status"], "waiting", "{mode:?}: {parked}");
    let run = run_id(&parked);
    let seen = asked(&a_host);
    let ask_id = first_pending(&parked);
    let mut record = record_and_close(&a, &run);
    approve(&mut record, &ask_id, "true");
    let all_accepted = record.ledger.all_accepted;
    let (b, b_host) = durable(mode, id, tools);
    let batched = REPLAYED_IN_BATCHES.load(Ordering::SeqCst);
    b.adopt(&run, record).expect("the record is adopted");
    let done = wait(&b, &run);
    let batched = REPLAYED_IN_BATCHES.load(Ordering::SeqCst) - batched;
    b.close();
    Resumed {
        done,
        seen,
        b_host,
        batched,
        all_accepted,
    }
}

struct Resumed {
    done: Value,
    seen: Value,
    b_host: Arc<FakeHost>,
    batched: u64,
    all_accepted: bool,
}

const MANY: &str = r#"
    const xs = await Promise.all(Array.from({ length: 40 }, (_, i) => echo({ i })));
    let sum = 0;
    for (const x of xs) sum += x.echo.i;
    const order = [];
    await Promise.all([
      new Promise((r) => setTimeout(() => { order.push("t5"); r(); }, 5)),
      new Promise((r) => setTimeout(() => { order.push("t0"); r(); }, 0)),
      echo({ k: 1 }).then(() => order.push("e1")),
      echo({ k: 2 }).then(() => order.push("e2")),
    ]);
    const settled = await Promise.allSettled([broken({}), echo({ k: 3 })]);
    let caught = null;
    try { await broken({ again: true }); } catch (e) { caught = e.message; }
    const yielded = await yield_control("check");
    for (let i = 0; i < 30; i++) sum += (await echo({ i })).echo.i;
    const raced = await Promise.race([echo({ r: 1 }), new Promise((r) => setTimeout(() => r("timer"), 0))]);
    const seen = { sum, order, settled: settled.map((s) => s.status), caught, yielded: yielded ?? null, raced: raced.echo ? "echo" : raced };
    const approved = await ask(seen);
    const after = await echo({ approved });
    return { ...seen, approved: after.echo.approved };
"#;

#[test]
fn a_replay_of_many_deliveries_ends_as_the_run_it_replays_and_a_sandbox_gets_them_in_batches() {
    let _serial = serial();
    for mode in MODES {
        let id = format!("durable-batch-many-{mode:?}");
        let resumed = resume_elsewhere(mode, &id, &["echo", "broken", "ask"], MANY);
        let mut expected = resumed.seen.clone();
        expected["approved"] = json!(true);
        assert_eq!(
            resumed.done["status"], "completed",
            "{mode:?}: {}",
            resumed.done
        );
        assert_eq!(resumed.done["value"], expected, "{mode:?}");
        assert_eq!(resumed.seen["sum"], json!(780 + 435), "{}", resumed.seen);
        assert!(resumed.all_accepted, "no call of the run was refused");
        // Only the call after the approval reached the new session's host.
        let calls: Vec<String> = resumed
            .b_host
            .calls()
            .iter()
            .map(|c| c.input_json.clone())
            .collect();
        assert_eq!(calls, [r#"{"approved":true}"#], "{mode:?}");
        match mode {
            // 40 + 2 + 2 timers + 3 + 30 + 2 deliveries, less the yield's reply and the last.
            Isolation::Process => assert!(resumed.batched >= 70, "{}", resumed.batched),
            Isolation::Thread => assert_eq!(resumed.batched, 0),
        }
    }
}

#[test]
fn a_record_longer_than_one_command_carries_replays_in_several() {
    let _serial = serial();
    let code = r#"
        let sum = 0;
        for (let i = 0; i < 1100; i++) sum += (await echo({ i })).echo.i;
        await ask({ sum });
        return sum;
    "#;
    for mode in MODES {
        let id = format!("durable-batch-long-{mode:?}");
        let resumed = resume_elsewhere(mode, &id, &["echo", "ask"], code);
        assert_eq!(resumed.seen, json!({ "sum": 604_450 }));
        assert_eq!(
            resumed.done["value"],
            json!(604_450),
            "{mode:?}: {}",
            resumed.done
        );
        assert!(
            resumed.b_host.calls().is_empty(),
            "{mode:?}: nothing dispatched"
        );
        if mode == Isolation::Process {
            // Every delivery but the last, in more than one command (1,024 at most each).
            assert_eq!(resumed.batched, 1099);
        }
    }
}

const REFUSED: &str = r#"
    const a = await echo({ n: 1 });
    let refused = null;
    // The guest's own check passes (toJSON), the gateway's refuses: `q` is required.
    try { await MCP.srv.t({ toJSON() { return {}; } }); } catch (e) { refused = e.message; }
    const bs = await Promise.all([echo({ n: 2 }), echo({ n: 3 })]);
    await new Promise((r) => setTimeout(r, 0));
    const c = await echo({ n: 4 });
    const seen = { a: a.echo.n, refused, bs: bs.map((b) => b.echo.n), c: c.echo.n };
    await ask(seen);
    return seen;
"#;

#[test]
fn a_record_whose_run_had_a_call_refused_replays_one_delivery_per_drain_and_right() {
    let _serial = serial();
    for mode in MODES {
        let id = format!("durable-batch-refused-{mode:?}");
        let (a, a_host) = durable(mode, &id, &["echo", "ask"]);
        with_mcp(&a, &["q"]);
        let parked = exec(&a, REFUSED);
        assert_eq!(parked["status"], "waiting", "{mode:?}: {parked}");
        let seen = asked(&a_host);
        assert!(
            seen["refused"].as_str().unwrap_or_default().contains('q'),
            "{mode:?}: the MCP call was refused: {seen}"
        );
        let run = run_id(&parked);
        let ask_id = first_pending(&parked);
        let mut record = record_and_close(&a, &run);
        assert!(
            !record.ledger.all_accepted,
            "the record knows of the refusal"
        );
        approve(&mut record, &ask_id, "true");
        let (b, b_host) = durable(mode, &id, &["echo", "ask"]);
        with_mcp(&b, &["q"]);
        let batched = REPLAYED_IN_BATCHES.load(Ordering::SeqCst);
        b.adopt(&run, record).unwrap();
        let done = wait(&b, &run);
        assert_eq!(done["status"], "completed", "{mode:?}: {done}");
        assert_eq!(done["value"], seen, "{mode:?}");
        assert_eq!(REPLAYED_IN_BATCHES.load(Ordering::SeqCst), batched);
        assert!(b_host.calls().is_empty(), "{mode:?}: nothing dispatched");
        b.close();
    }
}

/// Adopts `record` in a new session with `tools` (and the MCP tool `t` requiring
/// `required`) and waits: the run must fail with `replay_divergence`, dispatching nothing.
fn assert_diverges(
    mode: Isolation,
    id: &str,
    tools: &[&str],
    required: &[&str],
    parked: (String, RunRecord),
    why: &str,
) {
    let (run, record) = parked;
    let (b, b_host) = durable(mode, id, tools);
    with_mcp(&b, required);
    b.adopt(&run, record).unwrap();
    let failed = wait(&b, &run);
    assert_eq!(failed["status"], "failed", "{mode:?}: {failed}");
    assert_eq!(failed["code"], "replay_divergence", "{mode:?}: {failed}");
    let message = failed["error"].as_str().unwrap_or_default();
    assert!(message.contains(why), "{mode:?}: {message}");
    assert!(b_host.calls().is_empty(), "{mode:?}: nothing dispatched");
    b.close();
}

/// A parked run's record, with its session closed.
fn parked_record(
    mode: Isolation,
    id: &str,
    tools: &[&str],
    required: &[&str],
    code: &str,
) -> (String, RunRecord) {
    let (a, _) = durable(mode, id, tools);
    with_mcp(&a, required);
    let parked = exec(&a, code);
    assert_eq!(parked["status"], "waiting", "{mode:?}: {parked}");
    let run = run_id(&parked);
    let record = record_and_close(&a, &run);
    (run, record)
}

const SEQUENTIAL: &str = r#"
    let sum = 0;
    for (let i = 0; i < 30; i++) {
        if (i === 20) await other({ i });
        sum += (await echo({ i })).echo.i;
    }
    return await ask({ sum });
"#;

#[test]
fn a_catalog_that_lost_a_tool_the_record_calls_is_refused_before_any_batch() {
    let _serial = serial();
    for mode in MODES {
        let id = format!("durable-batch-lost-{mode:?}");
        let (run, record) = parked_record(mode, &id, &["echo", "other", "ask"], &[], SEQUENTIAL);
        assert!(record.ledger.all_accepted);
        let (b, b_host) = durable(mode, &id, &["echo", "ask"]);
        let batched = REPLAYED_IN_BATCHES.load(Ordering::SeqCst);
        let refused = b
            .adopt(&run, record)
            .expect_err("the record calls a tool the catalog lost");
        assert_eq!(refused.code, ErrorCode::ReplayDivergence, "{mode:?}");
        assert!(
            refused
                .message
                .contains("was to other, which the catalog no longer has"),
            "{mode:?}: {}",
            refused.message
        );
        assert_eq!(REPLAYED_IN_BATCHES.load(Ordering::SeqCst), batched);
        assert!(b_host.calls().is_empty(), "{mode:?}: nothing dispatched");
        b.close();
    }
}

#[test]
fn a_call_refused_in_the_replay_of_a_record_that_had_it_accepted_diverges() {
    let _serial = serial();
    let code = r#"
        let sum = 0;
        for (let i = 0; i < 30; i++) {
            if (i === 20) await MCP.srv.t({ toJSON() { return {}; } }).catch(() => null);
            sum += (await echo({ i })).echo.i;
        }
        return await ask({ sum });
    "#;
    for mode in MODES {
        let id = format!("durable-batch-now-refused-{mode:?}");
        // Recorded while `t` needed nothing; replayed where it needs `q`.
        let record = parked_record(mode, &id, &["echo", "ask"], &[], code);
        assert!(record.1.ledger.all_accepted);
        assert_diverges(
            mode,
            &id,
            &["echo", "ask"],
            &["q"],
            record,
            "call #21 (MCP.srv.t) was refused now",
        );
    }
}

#[test]
fn a_record_whose_later_calls_differ_diverges_in_the_middle_of_a_batch() {
    let _serial = serial();
    for mode in MODES {
        let id = format!("durable-batch-args-{mode:?}");
        let mut record = parked_record(mode, &id, &["echo", "other", "ask"], &[], SEQUENTIAL);
        record.1.ledger.calls[25].input = r#"{"i":99}"#.into();
        assert_diverges(
            mode,
            &id,
            &["echo", "other", "ask"],
            &[],
            record,
            "call #26 to echo had other arguments",
        );
    }
}

#[test]
fn a_record_that_answers_a_call_before_the_guest_makes_it_diverges() {
    let _serial = serial();
    for mode in MODES {
        let id = format!("durable-batch-early-{mode:?}");
        let mut record = parked_record(mode, &id, &["echo", "other", "ask"], &[], SEQUENTIAL);
        // A sequential program makes call 11 only once call 10 is answered: a record that
        // answers 11 first answers a call not made yet.
        record.1.ledger.deliveries.swap(10, 11);
        assert_diverges(
            mode,
            &id,
            &["echo", "other", "ask"],
            &[],
            record,
            "answers a call or timer the program has not made",
        );
    }
}
