//! Unit tests of result building: each status serialised, and the abort after close.

use super::*;
use crate::run::nested_calls::NestedCall;
use crate::run::output::OutputEntry;

#[test]
fn a_waiting_result_after_close_becomes_aborted_and_keeps_its_output() {
    let waiting = json!({
        "status": "waiting", "runId": "cm_1", "reason": "pending_tools",
        "pendingToolCalls": [{ "id": "cm_1:1", "method": "tool", "toolName": "never" }],
        "output": [{ "type": "text", "text": "before" }],
        "telemetry": { "run": { "nestedCalls": 1 } },
    });
    let aborted = aborted_after_close(waiting);
    assert_eq!(
        aborted,
        json!({
            "status": "failed", "error": "code mode execution aborted", "code": "aborted",
            "output": [{ "type": "text", "text": "before" }],
            "telemetry": { "run": { "nestedCalls": 1 } },
        })
    );
}

#[test]
fn an_unreadable_waiting_result_after_close_is_still_aborted() {
    let aborted = aborted_after_close(Value::Null);
    assert_eq!(aborted["status"], "failed");
    assert_eq!(aborted["code"], "aborted");
}

fn session_telemetry() -> Telemetry {
    Telemetry {
        session: Some(SessionTelemetry {
            catalog_size: 2,
            sources: ToolSources {
                core: 1,
                openclaw: 1,
                mcp: 0,
                client: 1,
            },
            counter_scope: "abcd1234".into(),
            search_count: 0,
            describe_count: 1,
            call_count: 2,
            visible_tools: vec!["exec".into(), "wait".into()],
        }),
        run: None,
    }
}

const SESSION_JSON: &str = r#""catalogSize":2,"sources":{"core":1,"openclaw":1,"mcp":0,"client":1},"counterScope":"abcd1234","searchCount":0,"describeCount":1,"callCount":2,"visibleTools":["exec","wait"]"#;

/// Metering whose wall clock reads zero: the call "started" after now.
fn metrics() -> RunMetrics {
    RunMetrics {
        created_ns: 0,
        call_started_ns: u64::MAX,
        guest_ns: 1_234_567,
        peak_heap: 4096,
    }
}

/// A book with one text entry and a settled call `cm_1:1` to `echo`.
fn book(max_output: usize) -> RunBook {
    let mut book = RunBook::new(max_output, 16);
    book.output.push(OutputEntry::Text("hi".into()));
    let record = book.add_record(NestedCall {
        call_id: "cm_1:1".into(),
        tool_name: "echo".into(),
        callable_name: "tools.echo".into(),
        status: "ok",
        input_preview: "{}".into(),
        parent_call_id: Some("call_9".into()),
        duration_ms: Some(1.5),
        output_preview: Some("\"ok\"".into()),
        error: None,
        unredacted: Default::default(),
    });
    assert_eq!(record, 0);
    book
}

fn text(outcome: Outcome) -> String {
    outcome.into_value().to_string()
}

const RUN_JSON: &str =
    r#""run":{"wallMs":0.0,"guestCpuMs":1.235,"peakHeapBytes":4096,"nestedCalls":1}"#;
const NESTED_JSON: &str = r#""nestedCalls":[{"callId":"cm_1:1","toolName":"echo","callableName":"tools.echo","status":"ok","inputPreview":"{}","parentCallId":"call_9","durationMs":1.5,"outputPreview":"\"ok\""}]"#;

#[test]
fn a_completed_result_serialises_value_output_telemetry_and_nested_calls_in_order() {
    let mut book = book(1024);
    let outcome = final_result(
        &mut book,
        Ok("[1,2]".into()),
        &metrics(),
        session_telemetry(),
    );
    assert_eq!(
        text(outcome),
        format!(
            r#"{{"status":"completed","value":[1,2],"output":[{{"type":"text","text":"hi"}}],"telemetry":{{{SESSION_JSON},{RUN_JSON}}},{NESTED_JSON}}}"#
        )
    );
}

#[test]
fn unparsable_value_json_completes_with_null_and_no_empty_arrays() {
    let mut book = RunBook::new(1024, 16);
    let outcome = final_result(&mut book, Ok("{".into()), &metrics(), Telemetry::default());
    assert_eq!(
        text(outcome),
        r#"{"status":"completed","value":null,"telemetry":{"run":{"wallMs":0.0,"guestCpuMs":1.235,"peakHeapBytes":4096,"nestedCalls":0}}}"#
    );
}

#[test]
fn a_failed_result_serialises_error_and_code_before_output() {
    let mut book = book(1024);
    let error = CodeModeError::new(ErrorCode::InternalError, "boom");
    let outcome = final_result(&mut book, Err(error), &metrics(), session_telemetry());
    assert_eq!(
        text(outcome),
        format!(
            r#"{{"status":"failed","error":"boom","code":"internal_error","output":[{{"type":"text","text":"hi"}}],"telemetry":{{{SESSION_JSON},{RUN_JSON}}},{NESTED_JSON}}}"#
        )
    );
}

#[test]
fn a_result_over_max_output_bytes_fails_without_output() {
    let mut book = book(8);
    let outcome = final_result(
        &mut book,
        Ok("\"long\"".into()),
        &metrics(),
        session_telemetry(),
    );
    assert_eq!(
        text(outcome),
        format!(
            r#"{{"status":"failed","error":"{OUTPUT_LIMIT}","code":"output_limit_exceeded","telemetry":{{{SESSION_JSON},{RUN_JSON}}},{NESTED_JSON}}}"#
        )
    );
}

#[test]
fn a_waiting_result_serialises_run_id_reason_and_pending_calls_first() {
    let mut book = book(1024);
    book.calls.insert(
        7,
        crate::run::state::InFlight {
            call_id: "cm_1:1".into(),
            callable_name: "tools.echo".into(),
            contracts: None,
            tool_name: "echo".into(),
            started: std::time::Instant::now(),
            record: Some(0),
        },
    );
    let outcome = waiting_result(
        &mut book,
        "cm_1",
        "pending_tools",
        &metrics(),
        session_telemetry(),
    );
    assert_eq!(
        text(outcome),
        format!(
            r#"{{"status":"waiting","runId":"cm_1","reason":"pending_tools","pendingToolCalls":[{{"id":"cm_1:1","method":"tool","toolName":"echo"}}],"output":[{{"type":"text","text":"hi"}}],"telemetry":{{{SESSION_JSON},{RUN_JSON}}},{NESTED_JSON}}}"#
        )
    );
    // Delivered output is not delivered again.
    let again = waiting_result(&mut book, "cm_1", "yield", &metrics(), Telemetry::default());
    assert!(!text(again).contains("\"output\""));
}

#[test]
fn an_early_failure_has_no_output_nested_calls_or_run_metering() {
    let error = CodeModeError::invalid_input("bad code");
    assert_eq!(
        text(early_failure(&error, session_telemetry())),
        format!(
            r#"{{"status":"failed","error":"bad code","code":"invalid_input","telemetry":{{{SESSION_JSON}}}}}"#
        )
    );
    assert_eq!(
        text(early_failure(&error, Telemetry::default())),
        r#"{"status":"failed","error":"bad code","code":"invalid_input","telemetry":{}}"#
    );
}

#[test]
fn session_telemetry_alone_serialises_as_code_mode_telemetry() {
    assert_eq!(
        session_telemetry().into_value().to_string(),
        format!("{{{SESSION_JSON}}}")
    );
}

/// Records keep short texts unredacted until read (nested_calls.rs): a waiting result
/// shows them redacted, and so does the final one for a text settled after that first read.
#[test]
fn every_result_shows_nested_call_previews_redacted() {
    use crate::run::protocol::HostCall;
    use crate::run::state::InFlight;
    use crate::source::redact::Redactor;
    use std::sync::Arc;
    let redactor = Redactor::new(vec!["hunter2".into()], &[], "redaction").unwrap();
    let mut book = RunBook::new(1024, 16).with_redactor(Arc::new(redactor));
    let call = HostCall {
        call_id: "cm_1:1".into(),
        parent_call_id: None,
        run_id: "cm_1".into(),
        session_id: "s".into(),
        tool_index: 0,
        surface: false,
        tool_name: "echo".into(),
        callable_name: "echo".into(),
        input_json: r#"{"pw":"hunter2"}"#.into(),
    };
    let started = NestedCall::started(&call, &book.redactor);
    let record = book.add_record(started);
    let in_flight = InFlight {
        call_id: call.call_id.clone(),
        callable_name: call.callable_name.clone(),
        contracts: None,
        tool_name: call.tool_name.clone(),
        started: std::time::Instant::now(),
        record: Some(record),
    };
    book.calls.insert(7, in_flight);
    let parked = text(waiting_result(
        &mut book,
        "cm_1",
        "yield",
        &metrics(),
        Telemetry::default(),
    ));
    assert!(
        parked.contains(r#""inputPreview":"{\"pw\":\"[REDACTED]\"}""#),
        "{parked}"
    );
    assert!(book.settle_call(7, &Ok(r#"{"echo":"hunter2"}"#.into())));
    let done = text(final_result(
        &mut book,
        Ok("1".into()),
        &metrics(),
        Telemetry::default(),
    ));
    assert!(
        done.contains(r#""outputPreview":"{\"echo\":\"[REDACTED]\"}""#),
        "{done}"
    );
    assert!(
        !parked.contains("hunter2") && !done.contains("hunter2"),
        "{parked}\n{done}"
    );
}
