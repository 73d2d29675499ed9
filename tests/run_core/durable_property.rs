//! Durable runs, as a property, in both isolation modes: programs built from calls,
//! `Promise.all`, `race` and `allSettled`, caught tool failures and guest throws, timers
//! (cleared ones too), `Date` and `Math.random`, and a payment (not `replaySafe`), each
//! crashed after answered calls once or several times over (each time its session closed
//! and its record adopted by another), end as an uninterrupted run of the same seed: the
//! same result, the payment's outcome aside (a payment lost with its process reads
//! `unknown`), clock readings the run had passed to the host unchanged; and no payment is
//! ever dispatched twice.

use crate::common::hosts::{Behaviour, FakeHost, Held};
use crate::common::settle::{serial, until, PATIENCE};
use crate::common::{session_with, tool};
use codemode_native::catalog::ToolSpec;
use codemode_native::guest::vm::Determinism;
use codemode_native::limits::Limits;
use codemode_native::run::ledger::Ledger;
use codemode_native::run::protocol::HostFailure;
use codemode_native::run::record::{RecordedLimits, RunRecord, RECORD_FORMAT};
use codemode_native::sandbox::isolation::Isolation;
use codemode_native::session::core::SessionCore;
use codemode_native::source::Language;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;

/// One step of a program; `{k}` is the step's index. Every call names its step `k`, its
/// member `a` and its group's size `g` (the calls a step makes together), so the host
/// can answer a group only once all of it was made, in an order the test chooses: a
/// `race` then settles the same way in every run.
const STEPS: [&str; 7] = [
    "{ const now = Date.now(); const same = now === new Date().getTime(); const x = Math.random(); r.push((await echo({ k: {k}, a: 0, g: 1, now })).echo.k, same, x); seen.push([{k}, now]); }",
    "r.push(...(await Promise.all([echo({ k: {k}, a: 1, g: 2 }), echo({ k: {k}, a: 2, g: 2 })])).map((x) => x.echo.a));",
    "r.push('race ' + (await Promise.race([echo({ k: {k}, a: 1, g: 2 }), echo({ k: {k}, a: 2, g: 2 })])).echo.a);",
    "try { await fail({ k: {k}, a: 0, g: 1 }); } catch (e) { r.push('caught ' + e.message); }",
    "await new Promise((done) => setTimeout(done, 1)); r.push('tick {k}', Math.random()); r.push((await Promise.allSettled([echo({ k: {k}, a: 1, g: 2 }), fail({ k: {k}, a: 2, g: 2 })])).map((s) => s.status));",
    "r.push(await pay({ k: {k}, a: 0, g: 1 }).then(() => 'paid', (e) => e.effectStatus));",
    "{ const late = setTimeout(() => r.push('late'), 600000); try { throw new Error('thrown {k}'); } catch (e) { r.push(e.message); } let slow; const never = new Promise((done) => { slow = setTimeout(() => done({ echo: { a: 'timer' } }), 600000); }); r.push('won ' + (await Promise.race([echo({ k: {k}, a: 0, g: 1 }), never])).echo.a); clearTimeout(slow); clearTimeout(late); }",
];

/// How many steps a program has.
const LENGTH: usize = 5;

/// Program `n`: steps picked by `n`, so every step kind meets every other; every fourth
/// program ends by throwing what it gathered.
fn program(n: usize) -> String {
    let steps: String = (0..LENGTH)
        .map(|k| STEPS[(n * 5 + k * 3 + n / 7) % STEPS.len()].replace("{k}", &k.to_string()))
        .collect();
    let end = if n % 4 == 3 {
        "throw new Error('end ' + r.join('|'));"
    } else {
        "return { r, seen };"
    };
    format!("const r = [], seen = []; {steps} {end}")
}

/// The session limits every run of the test is recorded and replayed under.
fn limits() -> Value {
    json!({ "timeoutMs": 60_000 })
}

fn durable(mode: Isolation, id: &str, host: Arc<FakeHost>) -> Arc<SessionCore> {
    let specs: Vec<ToolSpec> = ["echo", "fail", "pay"]
        .iter()
        .map(|name| ToolSpec {
            replay_safe: *name != "pay",
            ..tool(name)
        })
        .collect();
    session_with(mode, id, limits(), specs, host, true)
}

/// A run not yet started: program `n` with a seed of the test's choosing, so every run of
/// a program draws the same random numbers. Its clock starts now, as a new run's does (a
/// timer's delay left at a crash is counted from the clock it was started at).
fn fresh_record(n: usize, code: &str) -> RunRecord {
    RunRecord {
        format: RECORD_FORMAT,
        code: code.to_string(),
        language: Language::JavaScript,
        restart_safe: false,
        determinism: Determinism {
            seed: 0x5eed_0000 + n as u64,
            origin_ms: codemode_native::run::cell::unix_ms(),
        },
        limits: RecordedLimits::of(&Limits::from_json(Some(&limits()))),
        ledger: Ledger::default(),
        claimed_until_ms: None,
    }
}

fn failure() -> HostFailure {
    HostFailure {
        message: "no".into(),
        code: "tool_error",
    }
}

/// A call's `k`, `a` and `g`.
fn tags(held: &Held) -> (u64, u64, u64) {
    let input: Value = serde_json::from_str(&held.call.input_json).unwrap_or(Value::Null);
    let tag = |key: &str| input[key].as_u64().unwrap_or(0);
    (tag("k"), tag("a"), tag("g"))
}

fn answer(held: Held) {
    match held.call.tool_name.as_str() {
        "fail" => held.reply.fail(failure()),
        "pay" => held.reply.ok("\"ok\"".into()),
        _ => {
            let input: Value = serde_json::from_str(&held.call.input_json).unwrap_or(Value::Null);
            held.reply.ok(json!({ "echo": input }).to_string());
        }
    }
}

/// One replica of a run: its session, its host (which holds every call) and where the
/// run's result arrives.
struct Replica {
    session: Arc<SessionCore>,
    host: Arc<FakeHost>,
    result: Receiver<Value>,
    /// Calls taken from the host and not yet answered.
    waiting: Vec<Held>,
}

impl Replica {
    /// Adopts `record` as run `run` in a new session and resumes it.
    fn adopt(mode: Isolation, id: &str, run: &str, record: RunRecord) -> Replica {
        let host = FakeHost::new(Behaviour::Hold).shared();
        let session = durable(mode, id, host.clone());
        session.adopt(run, record).expect("adopted");
        let (tx, result) = mpsc::channel();
        session.wait(
            Some(run.into()),
            Box::new(move |outcome| {
                let _ = tx.send(outcome.into_value());
            }),
        );
        Replica {
            session,
            host,
            result,
            waiting: Vec::new(),
        }
    }

    /// The first group whose calls were all made, or that an earlier replica answered
    /// already (its calls that were lost are made again, the delivered ones not).
    fn ready_group(&mut self, answered: &HashSet<u64>) -> Option<u64> {
        self.waiting.extend(self.host.take_held());
        let mut sizes: HashMap<u64, (u64, u64)> = HashMap::new();
        for held in &self.waiting {
            let (k, _, g) = tags(held);
            let entry = sizes.entry(k).or_insert((0, g));
            entry.0 += 1;
        }
        let mut ready: Vec<u64> = sizes
            .into_iter()
            .filter(|(k, (made, g))| made >= g || answered.contains(k))
            .map(|(k, _)| k)
            .collect();
        ready.sort_unstable();
        ready.first().copied()
    }

    /// Answers group `k`, its members in an order set by the program and the step.
    fn answer_group(&mut self, n: usize, k: u64) {
        let (mut group, rest): (Vec<Held>, Vec<Held>) =
            self.waiting.drain(..).partition(|held| tags(held).0 == k);
        self.waiting = rest;
        group.sort_by_key(|held| tags(held).1);
        if (n as u64 + k) % 2 == 1 {
            group.reverse();
        }
        for held in group {
            answer(held);
        }
    }

    /// Answers groups until `first_time` groups no replica had answered before have
    /// been answered here (`None`: to the end), then waits until the run is waiting on
    /// its next group. `Ok` with the result if the run ended first.
    fn drive(
        &mut self,
        n: usize,
        answered: &mut HashSet<u64>,
        first_time: Option<usize>,
    ) -> Result<Value, ()> {
        let mut done = 0;
        loop {
            let mut ended = None;
            let mut group = None;
            let moved = until_mut(|| {
                if let Ok(result) = self.result.try_recv() {
                    ended = Some(result);
                    return true;
                }
                group = self.ready_group(answered);
                group.is_some()
            });
            assert!(
                moved,
                "program {n} neither called nor ended: calls {:?}, waiting {}",
                self.host
                    .calls()
                    .iter()
                    .map(|c| c.input_json.clone())
                    .collect::<Vec<_>>(),
                self.waiting.len()
            );
            if let Some(result) = ended {
                return Ok(result);
            }
            let Some(k) = group else { continue };
            let new = !answered.contains(&k);
            if new && first_time == Some(done) {
                return Err(());
            }
            self.answer_group(n, k);
            answered.insert(k);
            done += usize::from(new);
        }
    }
}

/// [`until`] for a condition that takes calls from the host as it looks.
fn until_mut(f: impl FnMut() -> bool) -> bool {
    let f = std::cell::RefCell::new(f);
    until(PATIENCE, || (*f.borrow_mut())())
}

/// What a run ended with, the payment's outcome aside.
fn normalized(result: &Value) -> Value {
    let outcome = json!({
        "status": result["status"],
        "r": result["value"]["r"],
        "error": result["error"],
    });
    serde_json::from_str(&outcome.to_string().replace("unknown", "paid")).unwrap_or(Value::Null)
}

/// Every clock reading the result shows that a replica passed to the host (as `now`)
/// is the one the host was given: a replay read the clock the run read.
fn assert_clock_kept(result: &Value, calls: &[codemode_native::run::protocol::HostCall]) {
    for entry in result["value"]["seen"].as_array().into_iter().flatten() {
        let (k, now) = (&entry[0], &entry[1]);
        for call in calls {
            let input: Value = serde_json::from_str(&call.input_json).unwrap_or(Value::Null);
            if input["k"] == *k && !input["now"].is_null() {
                assert_eq!(input["now"], *now, "step {k}: {result}");
            }
        }
    }
}

/// Runs program `n` as run `run`, crashing after each count of newly answered groups in
/// `crashes` (increasing); the result and every call any replica's host saw.
fn run_with_crashes(
    mode: Isolation,
    n: usize,
    code: &str,
    run: &str,
    crashes: &[usize],
) -> (Value, Vec<codemode_native::run::protocol::HostCall>, usize) {
    let id = format!("property-{mode:?}-{n}");
    let mut answered = HashSet::new();
    let mut calls = Vec::new();
    let mut switches = 0;
    let mut replica = Replica::adopt(mode, &id, run, fresh_record(n, code));
    let mut before = 0;
    for &at in crashes {
        match replica.drive(n, &mut answered, Some(at - before)) {
            Ok(result) => {
                calls.extend(replica.host.calls());
                replica.session.close();
                return (result, calls, switches);
            }
            Err(()) => {
                let record = replica
                    .session
                    .record(run)
                    .expect("a running run has a record");
                calls.extend(replica.host.calls());
                replica.session.close();
                replica = Replica::adopt(mode, &id, run, record);
                switches += 1;
                before = at;
            }
        }
    }
    let result = replica.drive(n, &mut answered, None).unwrap_or(Value::Null);
    calls.extend(replica.host.calls());
    replica.session.close();
    (result, calls, switches)
}

/// The crash schedules tried on every program: one crash at each point, and several
/// replica switches in one run.
const SCHEDULES: [&[usize]; 8] = [
    &[0],
    &[1],
    &[2],
    &[3],
    &[0, 1, 2],
    &[1, 3, 4],
    &[0, 2, 4],
    &[0, 1, 2, 3, 4],
];

#[test]
fn crashed_and_resumed_runs_end_as_uninterrupted_ones_and_never_pay_twice() {
    let _serial = serial();
    for mode in [Isolation::Thread, Isolation::Process] {
        let mut switches = 0;
        for n in 0..12 {
            let code = program(n);
            let (expected, calls, _) =
                run_with_crashes(mode, n, &code, &format!("base-{mode:?}-{n}"), &[]);
            assert!(
                ["completed", "failed"].contains(&expected["status"].as_str().unwrap_or("")),
                "{expected}\n{code}"
            );
            assert_clock_kept(&expected, &calls);
            for (s, schedule) in SCHEDULES.iter().enumerate() {
                let run = format!("crash-{mode:?}-{n}-{s}");
                let (result, calls, made) = run_with_crashes(mode, n, &code, &run, schedule);
                switches += made;
                assert_eq!(
                    normalized(&result),
                    normalized(&expected),
                    "{mode:?}: program {n} crashed after {schedule:?}:\n{code}"
                );
                assert_clock_kept(&result, &calls);
                let payments: Vec<&String> = calls
                    .iter()
                    .filter(|c| c.tool_name == "pay")
                    .map(|c| &c.call_id)
                    .collect();
                let unique: HashSet<&&String> = payments.iter().collect();
                assert_eq!(
                    unique.len(),
                    payments.len(),
                    "{mode:?}: a payment dispatched twice: {payments:?}"
                );
            }
        }
        assert!(
            switches >= 100,
            "{mode:?}: only {switches} replica switches were made"
        );
    }
}
