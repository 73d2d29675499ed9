use super::*;
use crate::run::result::Telemetry;
use crate::session::test_core::core_loading_mcp;
use serde_json::json;
use std::sync::mpsc;

fn delivering(tx: &mpsc::Sender<Value>) -> Delivery {
    let tx = tx.clone();
    Box::new(move |value| {
        let _ = tx.send(value);
    })
}

/// The code of the failed result delivered to `rx`, if one was.
fn failed_code(rx: &mpsc::Receiver<Value>) -> Option<String> {
    let result = rx.try_recv().ok()?;
    assert_eq!(result["status"], "failed");
    result["code"].as_str().map(str::to_string)
}

fn waiting(reason: &str, output: Vec<OutputEntry>) -> Outcome {
    CodeModeResult::Waiting {
        run_id: "run_unknown".into(),
        reason: reason.into(),
        pending_tool_calls: Vec::new(),
        output,
        telemetry: Telemetry::default(),
        nested_calls: Vec::new(),
    }
}

fn keys(value: &Value) -> Vec<&str> {
    match value.as_object() {
        Some(map) => map.keys().map(String::as_str).collect(),
        None => Vec::new(),
    }
}

#[test]
fn script_options_read_their_fields_and_unreadable_text_reads_as_none() {
    let options = ScriptOptions::from_json(
        r#"{"language":"typescript","wallClockMs":50,"maxToolCalls":7,"aborted":true}"#,
    );
    let expected = ScriptOptions {
        language: Some("typescript".into()),
        wall_clock_ms: Some(50),
        max_tool_calls: Some(7),
        aborted: true,
    };
    assert_eq!(options, expected);
    assert_eq!(
        ScriptOptions::from_json("not json"),
        ScriptOptions::default()
    );
}

#[test]
fn a_script_runs_under_its_wall_clock_and_a_clamped_tool_budget() {
    let core = core_loading_mcp(&[]);
    let mut config = SessionConfig {
        scope: core.scope.clone(),
        limits: core.limits().clone(),
        tools: Vec::new(),
        max_tool_calls: None,
        surfaces: Default::default(),
        isolation: crate::sandbox::isolation::Isolation::Thread,
        sandbox_group: None,
        durable: false,
    };
    ScriptOptions::default().apply(&mut config);
    assert_eq!(config.limits.timeout_ms, 30_000);
    assert_eq!(config.max_tool_calls, Some(5));
    let options = ScriptOptions {
        wall_clock_ms: Some(10_000_000),
        max_tool_calls: Some(1_000),
        ..ScriptOptions::default()
    };
    options.apply(&mut config);
    assert_eq!(config.limits.timeout_ms, 900_000);
    assert_eq!(config.max_tool_calls, Some(200));
}

#[test]
fn a_script_aborted_before_it_starts_fails_aborted_and_closes_its_session() {
    let core = core_loading_mcp(&[]);
    let (tx, rx) = mpsc::channel();
    let options = ScriptOptions {
        aborted: true,
        ..ScriptOptions::default()
    };
    let started = start(&core, "return 1".into(), options, delivering(&tx));
    assert!(matches!(started, CallStart::Answered));
    assert_eq!(failed_code(&rx), Some("aborted".into()));
    assert!(core.is_closed());
}

#[test]
fn a_script_waits_for_the_mcp_tools_and_closes_its_session_once_settled() {
    let core = core_loading_mcp(&["docs"]);
    let (tx, rx) = mpsc::channel();
    // Empty code settles at once (invalid_input) without a VM.
    let started = start(
        &core,
        String::new(),
        ScriptOptions::default(),
        delivering(&tx),
    );
    assert!(matches!(started, CallStart::Deferred(_)));
    assert!(rx.try_recv().is_err());
    assert!(!core.is_closed());

    core.start_deferred();
    assert_eq!(failed_code(&rx), Some("invalid_input".into()));
    assert!(core.is_closed());
}

#[test]
fn a_yield_fails_a_headless_run_and_keeps_its_output_after_the_telemetry() {
    let core = core_loading_mcp(&[]);
    let output = vec![OutputEntry::Text("so far".into())];
    let failed = settle_headless(&core, waiting("yield", output));
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["code"], "invalid_input");
    assert_eq!(
        failed["error"],
        "headless code mode scripts cannot yield_control: there is no model turn to resume them."
    );
    assert_eq!(
        failed["output"],
        json!([{ "type": "text", "text": "so far" }])
    );
    assert_eq!(
        keys(&failed),
        ["status", "error", "code", "telemetry", "output"]
    );
}

#[test]
fn host_work_pending_at_the_wall_clock_fails_a_headless_run_as_a_timeout() {
    let core = core_loading_mcp(&[]);
    let failed = settle_headless(&core, waiting("timeout", Vec::new()));
    assert_eq!(failed["code"], "timeout");
    let limit = core.limits.timeout_ms;
    assert_eq!(failed["error"], messages::timeout_of("wallClockMs", limit));
    assert!(failed.get("output").is_none());
}

#[test]
fn a_settled_headless_run_passes_through_unchanged() {
    let core = core_loading_mcp(&[]);
    let completed = CodeModeResult::Completed {
        value: json!(3),
        output: Vec::new(),
        telemetry: Telemetry::default(),
        nested_calls: Vec::new(),
    };
    let expected = completed.clone().into_value();
    assert_eq!(settle_headless(&core, completed), expected);
}
