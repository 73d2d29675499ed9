//! Engine tests through the plain-Rust session API with fake hosts.

mod common;

use codemode_native::catalog::{Source, ToolSpec};
use codemode_native::run::protocol::{Host, HostCall, HostFailure, Reply};
use codemode_native::session::core::SessionCore;
use codemode_native::source::{Field, RawExecInput};
use common::tool;
use serde_json::{json, Value};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

/// Answers every call with `{ "echo": input }`, or fails for the tool named `broken`,
/// or never answers for `never`, on its own thread after `delay`.
struct FakeHost {
    delay: Duration,
}

impl Host for FakeHost {
    fn call_tool(&self, call: HostCall, reply: Reply) {
        let delay = self.delay;
        std::thread::spawn(move || {
            std::thread::sleep(delay);
            match call.tool_name.as_str() {
                "never" => std::mem::forget(reply),
                "broken" => reply.fail(HostFailure { message: "disk on fire".into(), code: "tool_error" }),
                "broken-tool" => reply.fail(HostFailure { message: "broken-tool could not reach its server".into(), code: "tool_error" }),
                _ => reply.ok(json!({ "echo": serde_json::from_str::<Value>(&call.input_json).unwrap_or(Value::Null) }).to_string()),
            }
        });
    }
    fn cancel(&self, _call_id: &str) {}
}

fn session(limits: Value, tools: Vec<ToolSpec>) -> Arc<SessionCore> {
    let host = Arc::new(FakeHost {
        delay: Duration::from_millis(1),
    });
    common::session("s1", limits, tools, host)
}

fn exec(session: &Arc<SessionCore>, code: &str) -> Value {
    common::exec_within(session, code, Duration::from_secs(30)).expect("a result")
}

fn wait(session: &Arc<SessionCore>, run_id: &str) -> Value {
    let (tx, rx) = mpsc::channel();
    session.wait(
        Some(run_id.into()),
        Box::new(move |outcome| {
            let _ = tx.send(outcome);
        }),
    );
    rx.recv_timeout(Duration::from_secs(30)).expect("a result")
}

#[test]
fn a_trivial_cell_completes_with_its_value() {
    let s = session(json!({}), vec![]);
    let result = exec(&s, "return 1 + 1");
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"], 2);
}

#[test]
fn output_and_console_are_collected_in_order() {
    let s = session(json!({}), vec![]);
    let result = exec(
        &s,
        "text('a'); console.warn('b', 1); json({x: 1}); return null",
    );
    assert_eq!(
        result["output"],
        json!([{"type":"text","text":"a"},{"type":"text","text":"[warn] b 1"},{"type":"json","value":{"x":1}}]),
        "{result}"
    );
}

#[test]
fn a_tool_call_round_trips() {
    let s = session(json!({}), vec![tool("echo"), tool("broken")]);
    let result = exec(&s, "const r = await echo({a: 1}); let e; try { await broken({}) } catch (err) { e = [err.message, err.code, err.effectStatus] } return [r, e]");
    assert_eq!(
        result["value"],
        json!([{"echo":{"a":1}}, ["disk on fire","tool_error","unknown"]]),
        "{result}"
    );
    assert_eq!(result["telemetry"]["callCount"], 2);
}

#[test]
fn a_tools_own_error_text_reaches_the_guest_unchanged() {
    // The text is the tool's: rewriting its host id would also rewrite paths, URLs or
    // anything else that happens to contain it.
    let s = session(json!({}), vec![tool("broken-tool")]);
    let result = exec(
        &s,
        "try { await broken_tool({}) } catch (e) { return e.message }",
    );
    assert_eq!(
        result["value"], "broken-tool could not reach its server",
        "{result}"
    );
}

#[test]
fn the_addons_own_failure_text_names_the_callable_not_the_host_id() {
    // `class` is reserved, so the guest calls it `class_<hash>`: an identifier-like host id
    // that a text substitution could not safely hide.
    let mut strict = tool("class");
    strict.parameters = Some(json!({"type":"object","required":["a"]}));
    strict.output_schema = Some(json!({"type":"object","required":["id"]}));
    let s = session(json!({}), vec![strict]);
    let result = exec(
        &s,
        "const name = catalog.all()[0].callableName; const out = [name]; for (const input of [{}, {a: 1}]) { try { await globalThis[name](input) } catch (e) { out.push([e.code, e.message]) } } return out",
    );
    let callable = result["value"][0].as_str().unwrap_or_default().to_string();
    assert!(callable.starts_with("class_"), "{result}");
    assert_eq!(result["value"][1][0], "input_contract", "{result}");
    let input_message = result["value"][1][1].as_str().unwrap_or_default();
    assert!(
        input_message.starts_with(&format!("Tool \"{callable}\" input does not match")),
        "{result}"
    );
    assert_eq!(
        result["value"][2],
        json!([
            "output_contract",
            format!(
                "Tool \"{callable}\" returned details that do not match its declared outputSchema."
            )
        ]),
        "{result}"
    );
}

#[test]
fn a_spinning_guest_times_out() {
    let s = session(json!({"timeoutMs": 200}), vec![]);
    let result = exec(&s, "while (true) {}");
    assert_eq!(result["code"], "timeout", "{result}");
    assert_eq!(result["error"], "code mode timeout exceeded");
}

#[test]
fn a_slow_tool_parks_and_wait_completes() {
    let s = session(json!({"timeoutMs": 100}), vec![tool("never"), tool("echo")]);
    let first = exec(
        &s,
        "text('before'); await yield_control('pause'); text('after'); return 'done'",
    );
    assert_eq!(first["status"], "waiting", "{first}");
    assert_eq!(first["reason"], "yield");
    let run_id = first["runId"].as_str().unwrap_or_default().to_string();
    let second = wait(&s, &run_id);
    assert_eq!(second["status"], "completed", "{second}");
    assert_eq!(second["output"], json!([{"type":"text","text":"after"}]));
}

#[test]
fn guest_errors_show_user_frames_only() {
    let s = session(json!({}), vec![]);
    let result = exec(&s, "function f() {\n  throw new Error('boom');\n}\nf();");
    assert_eq!(result["status"], "failed");
    let error = result["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("Error: boom\n"), "{error}");
    assert!(error.contains("user.js:2:"), "{error}");
    assert!(!error.contains("prelude"), "{error}");
}

#[test]
fn unhandled_rejections_fail_the_cell() {
    let s = session(json!({}), vec![]);
    let result = exec(&s, "Promise.reject(new Error('lost')); return 1");
    assert_eq!(result["status"], "failed", "{result}");
    assert!(result["error"]
        .as_str()
        .unwrap_or_default()
        .starts_with("Error: lost"));
}

#[test]
#[ignore = "timing probe: cargo test --release --test engine -- --ignored --nocapture"]
fn timing_probe_of_trivial_cells() {
    use codemode_native::guest::control::Control;
    let s = session(json!({}), vec![]);
    for _ in 0..50 {
        exec(&s, "return 1");
    }
    let n = 2000;
    let start = std::time::Instant::now();
    for _ in 0..n {
        exec(&s, "return 1 + 1");
    }
    println!(
        "exec round trip: {:.1} us",
        start.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let start = std::time::Instant::now();
    for _ in 0..n {
        let rt = rquickjs::Runtime::new().unwrap();
        let ctx = rquickjs::Context::full(&rt).unwrap();
        drop(ctx);
        drop(rt);
    }
    println!(
        "runtime+context: {:.1} us",
        start.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let _ = Control::new();
}

struct NullBridge;

/// Binds a blank VM to a bridge that answers nothing (the probes measure the VM alone).
fn bind_null(vm: &codemode_native::guest::vm::Vm, limits: codemode_native::guest::vm::VmLimits) {
    use codemode_native::guest::control::Control;
    let _ = vm.bind(
        limits,
        Arc::new(Control::new()),
        Arc::new(NullBridge),
        r#"{"tools":[]}"#,
    );
}
impl codemode_native::guest::natives::Bridge for NullBridge {
    fn call(&self, _: &str, _: &str, _: String) -> Result<u32, String> {
        Ok(1)
    }
    fn output(&self, _: u8, _: String) {}
    fn console(&self, _: String) {}
    fn timer(&self, _: u64) -> Result<u32, String> {
        Ok(1)
    }
    fn clear_timer(&self, _: u32) {}
    fn yield_control(&self, _: Option<String>) -> u32 {
        1
    }
    fn finish(&self, _: bool, _: String) {}
    fn fail(&self, _: String) {}
    fn search(&self, _: &str, _: u32) -> Result<String, String> {
        Ok("[]".into())
    }
    fn describe(&self, _: &str) -> Result<String, String> {
        Ok("{}".into())
    }
    fn tool_meta(&self, _: &str) -> Result<String, String> {
        Ok("{}".into())
    }
    fn api_list(&self, _: &str) -> String {
        "{}".into()
    }
    fn api_read(&self, _: &str) -> Result<String, String> {
        Ok("{}".into())
    }
    fn mcp_api(&self, _: &str, _: Option<&str>, _: bool) -> Result<String, String> {
        Ok("{}".into())
    }
}

#[test]
#[ignore = "timing probe"]
fn timing_probe_of_phases() {
    use codemode_native::guest::control::Control;
    use codemode_native::guest::vm::{Vm, VmLimits};
    let n = 1000;
    let limits = VmLimits {
        memory_bytes: 64 << 20,
        max_stack_bytes: 1 << 20,
    };
    let per = |t: std::time::Instant| t.elapsed().as_secs_f64() * 1e6 / n as f64;
    let t = std::time::Instant::now();
    for _ in 0..n {
        let rt = rquickjs::Runtime::new().unwrap();
        let ctx = rquickjs::Context::full(&rt).unwrap();
        drop(ctx);
        drop(rt);
    }
    println!(
        "bare runtime + full context, new and free: {:.1} us",
        per(t)
    );
    // One VM at a time, as the engine does: memory is reused, not touched anew.
    let (mut blank, mut bind, mut free) = (0.0, 0.0, 0.0);
    for _ in 0..n {
        let t = std::time::Instant::now();
        let Ok(vm) = Vm::blank() else { continue };
        blank += t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        bind_null(&vm, limits);
        bind += t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        drop(vm);
        free += t.elapsed().as_secs_f64();
    }
    let us = |total: f64| total * 1e6 / n as f64;
    println!(
        "vm blank (context, natives, prelude) {:.1} us, bind {:.1} us, free {:.1} us",
        us(blank),
        us(bind),
        us(free)
    );
    let _ = per;
    let t = std::time::Instant::now();
    for _ in 0..n {
        let _ = codemode_native::source::prepare(
            "return 1 + 1",
            codemode_native::source::Language::JavaScript,
        );
    }
    println!(
        "prepare: {:.1} us",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let vm = Vm::blank().ok().unwrap();
    bind_null(&vm, limits);
    let t = std::time::Instant::now();
    for _ in 0..n {
        let _ = vm.start("return 1 + 1", "user.js");
        vm.drain_jobs(&Control::new());
    }
    println!(
        "start+drain: {:.1} us",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}

#[test]
fn typescript_error_frames_point_at_the_lines_the_user_wrote() {
    let s = session(json!({}), vec![]);
    let (tx, rx) = mpsc::channel();
    let input = RawExecInput {
        code: Field::Value(
            "\ninterface A { x: number }\n    const a: A = { x: 1 };\n\n    foo(a);".into(),
        ),
        language: Field::Value("typescript".into()),
        ..RawExecInput::default()
    };
    s.exec(
        input,
        None,
        Box::new(move |o| {
            let _ = tx.send(o);
        }),
    );
    let result = rx.recv_timeout(Duration::from_secs(30)).expect("a result");
    let error = result["error"].as_str().unwrap_or_default();
    assert!(error.contains("user.ts:5:5"), "{error}");
}

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmRSS:")).map(|l| {
                l.split_whitespace()
                    .nth(1)
                    .unwrap_or("0")
                    .parse()
                    .unwrap_or(0)
            })
        })
        .unwrap_or(0)
}

#[test]
#[ignore = "leak probe"]
fn leak_probe() {
    use codemode_native::guest::vm::Vm;
    let before = rss_kb();
    for _ in 0..3000 {
        let vm = Vm::blank().ok();
        drop(vm);
    }
    println!("blank+drop: {} KB growth", rss_kb() as i64 - before as i64);
    {
        use codemode_native::guest::control::Control;
        use codemode_native::guest::vm::VmLimits;
        let limits = VmLimits {
            memory_bytes: 64 << 20,
            max_stack_bytes: 1 << 20,
        };
        let before = rss_kb();
        for _ in 0..3000 {
            let vm = Vm::blank().ok().unwrap();
            bind_null(&vm, limits);
            drop(vm);
        }
        println!(
            "blank+bind+drop: {} KB growth",
            rss_kb() as i64 - before as i64
        );
        let before = rss_kb();
        for _ in 0..3000 {
            let vm = Vm::blank().ok().unwrap();
            bind_null(&vm, limits);
            let _ = vm.start("return 1", "user.js");
            vm.drain_jobs(&Control::new());
            drop(vm);
        }
        println!(
            "blank+bind+start+drop: {} KB growth",
            rss_kb() as i64 - before as i64
        );
    }
    let s = session(json!({}), vec![]);
    let before = rss_kb();
    for _ in 0..3000 {
        exec(&s, "return 1");
    }
    std::thread::sleep(Duration::from_millis(500));
    println!(
        "exec: {} KB growth, live VMs {}",
        rss_kb() as i64 - before as i64,
        codemode_native::guest::vm::LIVE_VMS.load(std::sync::atomic::Ordering::Relaxed)
    );
}

#[test]
#[ignore = "timing probe: needs /tmp/tools1000.json"]
fn timing_probe_of_a_large_catalog() {
    use codemode_native::catalog::Catalog;
    let text = std::fs::read_to_string("/tmp/tools1000.json").unwrap_or_default();
    let t = std::time::Instant::now();
    let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    println!("parse: {:?}", t.elapsed());
    let tools: Vec<ToolSpec> = value["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|t| ToolSpec {
            name: t["name"].as_str().unwrap_or("").into(),
            description: t["description"].as_str().unwrap_or("").into(),
            label: None,
            parameters: t.get("parameters").cloned(),
            output_schema: t.get("outputSchema").cloned().filter(|v| !v.is_null()),
            source: Source::Openclaw,
            direct_only: false,
            replay_safe: false,
            control: false,
        })
        .collect();
    let t = std::time::Instant::now();
    let catalog = Catalog::build(tools.clone(), &[]);
    println!(
        "catalog build: {:?} ({} entries)",
        t.elapsed(),
        catalog.len()
    );
    let t = std::time::Instant::now();
    let s = session(json!({}), tools);
    println!("session new: {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let m = s.model_tools();
    println!(
        "model tools: {:?} ({} bytes)",
        t.elapsed(),
        m.to_string().len()
    );
}

#[test]
#[ignore = "leak probe: cargo test --release --test engine mixed_leak -- --ignored --nocapture"]
fn mixed_leak_probe() {
    let s = session(
        json!({"timeoutMs": 200}),
        vec![tool("echo"), tool("broken")],
    );
    let programs = [
        "return await echo({a: 1})",
        "try { await broken({}) } catch (e) { return e.message }",
        "await new Promise(r => setTimeout(r, 1)); return 1",
        "text('x'.repeat(1000)); return [1, 2, 3]",
        "throw new Error('fail')",
        "await yield_control('y'); return 2",
    ];
    for round in 0..6 {
        let before = rss_kb();
        for i in 0..2000 {
            let mut result = exec(&s, programs[(i + round) % programs.len()]);
            while result["status"] == "waiting" {
                let run_id = result["runId"].as_str().unwrap_or_default().to_string();
                result = wait(&s, &run_id);
            }
        }
        println!(
            "round {round}: {} KB growth, timers pending {}, live VMs {}",
            rss_kb() as i64 - before as i64,
            codemode_native::runtime::timer::pending(),
            codemode_native::guest::vm::LIVE_VMS.load(std::sync::atomic::Ordering::Relaxed)
        );
    }
}

/// Answers every call at once, on the calling worker: what remains is the engine's own
/// per-call cost (guest bridge, dispatch, records, settle).
struct InstantHost;

impl Host for InstantHost {
    fn call_tool(&self, _call: HostCall, reply: Reply) {
        reply.ok(r#"{"sum":3}"#.to_string());
    }
    fn cancel(&self, _call_id: &str) {}
}

#[test]
#[ignore = "timing probe: cargo test --release --test engine nested_call -- --ignored --nocapture"]
fn timing_probe_of_nested_call_cost() {
    let mut add = common::tool("add");
    add.parameters = Some(
        json!({ "type": "object", "properties": { "a": { "type": "number" }, "b": { "type": "number" } }, "required": ["a", "b"], "additionalProperties": false }),
    );
    let s = common::session(
        "probe",
        json!({ "timeoutMs": 60000 }),
        vec![add],
        Arc::new(InstantHost),
    );
    let code = "let s = 0;\nfor (let i = 0; i < 20000; i++) s += (await add({ a: i, b: 1 })).sum;\nreturn s";
    let _ = common::exec_within(&s, code, Duration::from_secs(60));
    let start = std::time::Instant::now();
    let out = common::exec_within(&s, code, Duration::from_secs(60));
    println!(
        "engine cost per nested call: {:.2} us ({})",
        start.elapsed().as_secs_f64() * 1e6 / 20000.0,
        out.map(|o| o.to_string().chars().take(80).collect::<String>())
            .unwrap_or_default()
    );
}
