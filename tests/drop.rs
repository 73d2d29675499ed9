//! Dropping VMs and runs in every awkward state: live promises, undrained jobs, pending
//! timers, parked runs, held tool handles, interrupted and out-of-memory heaps. QuickJS is
//! built with assertions on, so a leaked object at runtime teardown aborts the process;
//! under `valgrind --leak-check=full` these tests also show whether anything is lost:
//!
//! ```text
//! cargo test --no-default-features --test drop --no-run
//! valgrind --leak-check=full target/debug/deps/drop-<hash> --test-threads=1
//! ```

mod common;

use codemode_native::guest::control::Control;
use codemode_native::guest::vm::{Vm, VmLimits};
use codemode_native::run::protocol::Event;
use codemode_native::session::core::SessionCore;
use codemode_native::session::store;
use codemode_native::source::{Field, RawExecInput};
use common::bridge::FakeBridge;
use common::hosts::{Answer, Behaviour, FakeHost};
use common::settle::until;
use common::{run_id, tool};
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc};
use std::time::Duration;

fn bound_vm(memory_bytes: usize, control: Arc<Control>) -> Vm {
    let vm = Vm::blank().unwrap_or_else(|e| panic!("blank VM: {e:?}"));
    // Every guest promise stays pending: the bridge never settles what it hands out.
    let bridge = FakeBridge::with_catalog(&["held"]);
    let prelude = bridge.prelude_config();
    vm.bind(
        VmLimits {
            memory_bytes,
            max_stack_bytes: 256 * 1024,
        },
        control,
        Arc::new(bridge),
        &prelude,
        None,
    )
    .unwrap_or_else(|e| panic!("bind: {e:?}"));
    vm
}

#[test]
fn a_vm_with_pending_promises_undrained_jobs_and_timers_drops_cleanly() {
    let control = Arc::new(Control::new());
    let vm = bound_vm(32 << 20, control.clone());
    let started = vm.start(
        r#"
        const forever = Array.from({ length: 2000 }, () => new Promise(() => {}));
        const chain = []; let p = Promise.resolve(0);
        for (let i = 0; i < 500; i++) { p = p.then((v) => v + 1); chain.push(p); }
        Promise.reject(new Error("never handled"));
        const handle = held; const again = catalog.all();
        setTimeout(() => forever.length, 100000, forever, handle);
        const pendingCall = held({ x: 1 });
        const yielded = yield_control("held");
        const url = new URL("https://example.com/?a=1"); const params = url.searchParams;
        await Promise.all([pendingCall, yielded, ...forever]);
        "#,
        "user.js",
    );
    assert!(started.is_ok(), "{started:?}");
    vm.drain_jobs(&control);
    // One call settles; its continuation is left queued at drop time.
    vm.settle(1, true, r#"{"late":true}"#);
    drop(vm);
}

#[test]
fn a_vm_with_jobs_still_queued_drops_cleanly() {
    let vm = bound_vm(32 << 20, Arc::new(Control::new()));
    let started = vm.start(
        "for (let i = 0; i < 1000; i++) Promise.resolve(i).then((v) => [v]); await null; return 1",
        "user.js",
    );
    assert!(started.is_ok(), "{started:?}");
    // No drain at all: every reaction job is still in QuickJS's queue.
    drop(vm);
}

#[test]
fn a_vm_interrupted_mid_computation_drops_cleanly() {
    let control = Arc::new(Control::new());
    control.set_deadline_after(Duration::from_millis(50));
    let vm = bound_vm(32 << 20, control.clone());
    let started = vm.start(
        "const keep = []; for (;;) keep.push({ a: [1, 2, 3], p: new Promise(() => {}) });",
        "user.js",
    );
    assert!(started.is_err(), "the deadline must interrupt the loop");
    drop(vm);
}

#[test]
fn a_vm_that_ran_out_of_memory_drops_cleanly() {
    let vm = bound_vm(2 << 20, Arc::new(Control::new()));
    let started = vm.start(
        r#"const keep = []; try { for (;;) keep.push("x".repeat(1000) + keep.length) } catch (e) { keep.length = 0 }
           let s = "y"; for (;;) s += s;"#,
        "user.js",
    );
    // The bomb throws inside the async body: start succeeds with a rejected promise.
    let _ = started;
    drop(vm);
}

#[test]
fn a_vm_whose_job_loop_was_interrupted_drops_cleanly() {
    let control = Arc::new(Control::new());
    let vm = bound_vm(32 << 20, control.clone());
    let started = vm.start(
        "function again() { Promise.resolve().then(again) } again(); await new Promise(() => {})",
        "user.js",
    );
    assert!(started.is_ok(), "{started:?}");
    control.set_deadline_after(Duration::from_millis(30));
    vm.drain_jobs(&control);
    drop(vm);
}

// ---------- runs through the session ----------

/// Holds every call but `echo` (answered at once) until `answer_all`; records cancels.
fn held_host() -> Arc<FakeHost> {
    FakeHost::new(Behaviour::Hold)
        .on("echo", Behaviour::Now(Answer::Echo))
        .shared()
}

/// Answers every held call late; never leaks one.
fn answer_all(host: &FakeHost) {
    host.answer_held(r#"{"late":true}"#);
}

fn session(id: &str, limits: Value, host: Arc<FakeHost>) -> Arc<SessionCore> {
    common::session(id, limits, vec![tool("held"), tool("echo")], host)
}

fn exec(session: &Arc<SessionCore>, code: &str) -> Value {
    common::exec_within(session, code, Duration::from_secs(60))
        .unwrap_or_else(|| json!({ "status": "no result" }))
}

fn wait(session: &Arc<SessionCore>, run_id: &str) -> Value {
    common::wait_within(session, run_id, Duration::from_secs(60))
        .unwrap_or_else(|| json!({ "status": "no result" }))
}

/// Parks while holding everything at once: never-answered calls, a long timer, handles,
/// closures over thousands of pending promises and an unhandled-then-handled rejection.
const HOARDER: &str = r#"
const forever = Array.from({ length: 1000 }, () => new Promise(() => {}));
const rejected = Promise.reject(new Error("handled later"));
const handles = [held, echo, ...catalog.all()];
setTimeout(() => handles.length + forever.length, 3600000);
const first = held({ n: 1 }); const second = held({ n: 2 });
await echo({ warm: true });
await yield_control("hoard");
rejected.catch(() => {});
return [await first, await second];
"#;

/// Every scenario in one test: they share the process-wide store, timers and VM count.
#[test]
fn dropping_parked_aborted_expired_and_closed_runs_leaves_nothing_behind() {
    let host = held_host();
    let timers_before = codemode_native::runtime::timer::pending();

    // 1. close() while parked on a yield with calls and a timer pending.
    let s = session("drop-close", json!({ "timeoutMs": 10_000 }), host.clone());
    let parked = exec(&s, HOARDER);
    assert_eq!(parked["status"], "waiting", "{parked}");
    assert_eq!(s.runs().len(), 1);
    s.close();
    assert!(s.runs().is_empty());
    assert_eq!(host.cancelled().len(), 2, "both held calls are cancelled");
    answer_all(&host); // late answers after close are ignored
    assert_eq!(wait(&s, &run_id(&parked))["code"], "invalid_input");

    // 2. cancelRun of a run parked on pending tools (deadline passed while idle). The
    // deadline leaves a busy machine time to start the cell and make the call.
    let s = session("drop-cancel", json!({ "timeoutMs": 2000 }), host.clone());
    let parked = exec(
        &s,
        "const p = held({}); setTimeout(() => 1, 3600000); return await p",
    );
    assert_eq!(parked["status"], "waiting", "{parked}");
    assert_eq!(parked["reason"], "pending_tools");
    assert!(s.cancel_run(&run_id(&parked)));
    assert!(
        !s.cancel_run(&run_id(&parked)),
        "a second cancel finds nothing"
    );
    answer_all(&host);

    // 3. TTL expiry drops the VM on the timer thread.
    let s = session(
        "drop-expire",
        // The run parks at its deadline with its tool call out; the deadline leaves a
        // busy machine time to start the cell and make that call.
        json!({ "timeoutMs": 2000, "snapshotTtlSeconds": 1 }),
        host.clone(),
    );
    let parked = exec(&s, HOARDER);
    assert_eq!(parked["status"], "waiting", "{parked}");
    assert!(
        until(Duration::from_secs(60), || s.runs().is_empty()),
        "the run expires"
    );
    assert_eq!(wait(&s, &run_id(&parked))["code"], "invalid_input");
    answer_all(&host);

    // 4. Abort of a running cell that waits on the host, then of a resumed wait.
    let s = session("drop-abort", json!({ "timeoutMs": 5000 }), host.clone());
    let (tx, rx) = mpsc::channel();
    let cell = s.exec(
        RawExecInput {
            code: Field::Value(
                "setTimeout(() => 1, 3600000); const all = [held({}), held({})]; return await Promise.all(all)".into(),
            ),
            ..RawExecInput::default()
        },
        None,
        Box::new(move |outcome| {
            let _ = tx.send(outcome.into_value());
        }),
    );
    assert!(
        until(Duration::from_secs(10), || host.held_count() == 2),
        "both calls reach the host"
    );
    if let Some(cell) = cell {
        cell.push(Event::Abort);
    }
    let aborted = rx.recv_timeout(Duration::from_secs(10)).unwrap_or_default();
    assert_eq!(aborted["code"], "aborted", "{aborted}");
    answer_all(&host);

    // 5. A wait that completes after the held calls were answered while parked.
    let s = session("drop-complete", json!({ "timeoutMs": 1000 }), host.clone());
    let parked = exec(&s, HOARDER);
    assert_eq!(parked["status"], "waiting", "{parked}");
    answer_all(&host);
    let mut result = wait(&s, &run_id(&parked));
    for _ in 0..10 {
        if result["status"] != "waiting" {
            break;
        }
        answer_all(&host);
        result = wait(&s, &run_id(&result));
    }
    // The hour-long timer is still out, so the run keeps waiting: drop it by closing.
    s.close();
    answer_all(&host);

    // 6. A timeout while computing, with pending calls and timers. The heap churns but stays
    // far below its limit, so only the deadline can end the run, however fast the machine.
    let s = session("drop-timeout", json!({ "timeoutMs": 200 }), host.clone());
    let timed_out = exec(
        &s,
        "held({}); setTimeout(() => 1, 3600000); const keep = []; \
         for (;;) { keep.push([keep.length]); if (keep.length > 10000) keep.length = 0 }",
    );
    assert_eq!(timed_out["code"], "timeout", "{timed_out}");
    answer_all(&host);

    // 6b. Out of memory with pending calls and timers fails the run at once; it never parks.
    // The deadline is far away, so only the memory limit can end the run.
    let s = session(
        "drop-memory",
        json!({ "timeoutMs": 60_000, "memoryLimitBytes": 16 << 20 }),
        host.clone(),
    );
    let exhausted = exec(
        &s,
        "held({}); setTimeout(() => 1, 3600000); const keep = []; for (;;) keep.push([keep.length])",
    );
    assert_eq!(exhausted["status"], "failed", "{exhausted}");
    assert!(
        exhausted["error"]
            .as_str()
            .is_some_and(|e| e.contains("ran out of memory")),
        "{exhausted}"
    );
    assert!(s.runs().is_empty(), "the failed run is not parked");
    answer_all(&host);

    // 7. A session dropped without close while a run is parked: the store still owns the
    // run until it is cancelled through another handle of the same scope.
    let s = session(
        "drop-forgotten",
        json!({ "timeoutMs": 10_000 }),
        host.clone(),
    );
    let parked = exec(&s, "await yield_control('x'); return 1");
    assert_eq!(parked["status"], "waiting", "{parked}");
    drop(s);
    let again = session(
        "drop-forgotten",
        json!({ "timeoutMs": 10_000 }),
        host.clone(),
    );
    let resumed = wait(&again, &run_id(&parked));
    assert_eq!(resumed["status"], "completed", "{resumed}");

    assert!(
        until(Duration::from_secs(5), || store::global().is_empty()),
        "the process-wide store is empty again ({} left)",
        store::global().len()
    );
    assert!(
        until(Duration::from_secs(5), || {
            codemode_native::runtime::timer::pending() <= timers_before
        }),
        "every timer was cancelled ({} pending)",
        codemode_native::runtime::timer::pending()
    );
    // Only blank warm VMs remain (the warm pool keeps a few ready).
    assert!(
        until(Duration::from_secs(5), || {
            codemode_native::guest::vm::LIVE_VMS.load(Ordering::Relaxed) <= 8
        }),
        "live VMs: {}",
        codemode_native::guest::vm::LIVE_VMS.load(Ordering::Relaxed)
    );
}
