//! Engine tests through the plain-Rust session API with fake hosts.

mod common;

use codemode_native::catalog::ToolSpec;
use codemode_native::session::core::SessionCore;
use codemode_native::source::{Field, RawExecInput};
use common::hosts::{Answer, Behaviour, FakeHost};
use common::tool;
use serde_json::{json, Value};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

fn session(limits: Value, tools: Vec<ToolSpec>) -> Arc<SessionCore> {
    let host = FakeHost::echoing().on(
        "broken-tool",
        Behaviour::Later(Answer::tool_error("broken-tool could not reach its server")),
    );
    common::session("s1", limits, tools, host.shared())
}

fn exec(session: &Arc<SessionCore>, code: &str) -> Value {
    common::exec_within(session, code, Duration::from_secs(30)).expect("a result")
}

fn wait(session: &Arc<SessionCore>, run_id: &str) -> Value {
    common::wait_within(session, run_id, Duration::from_secs(30)).expect("a result")
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
    assert_eq!(
        result["error"],
        "code mode timeout exceeded (timeoutMs 200)"
    );
}

#[test]
fn a_slow_tool_parks_and_wait_completes() {
    // A patient deadline: parking on `yield_control` must not depend on the cell starting
    // within a few milliseconds on a busy machine.
    let s = session(
        json!({"timeoutMs": 10_000}),
        vec![tool("never"), tool("echo")],
    );
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
            let _ = tx.send(o.into_value());
        }),
    );
    let result = rx.recv_timeout(Duration::from_secs(30)).expect("a result");
    let error = result["error"].as_str().unwrap_or_default();
    assert!(error.contains("user.ts:5:5"), "{error}");
}
