//! Unit tests of `resultBudgetChars` projection: envelope reservation, drop order, markers.

use super::project::{as_marker, single_output_marker};
use super::*;
use crate::run::output::{TruncationMarker, ERROR_SUFFIX};

fn telemetry() -> Value {
    json!({ "catalogSize": 3, "sources": { "core": 3, "openclaw": 3, "mcp": 0, "client": 0 }, "counterScope": "abcd1234",
            "searchCount": 0, "describeCount": 0, "callCount": 1, "visibleTools": ["exec", "wait"] })
}

fn completed(value: Value, output: Option<Value>) -> Value {
    let mut m = Map::new();
    m.insert("status".into(), json!("completed"));
    m.insert("value".into(), value);
    if let Some(o) = output {
        m.insert("output".into(), o);
    }
    m.insert("telemetry".into(), telemetry());
    Value::Object(m)
}

fn fit(v: Value, budget: usize) -> Value {
    fit_result(v, budget).result
}

#[test]
fn a_result_that_fits_is_unchanged() {
    let r = completed(json!({ "a": 1 }), None);
    assert_eq!(fit(r.clone(), chars_of(&r)), r);
}

#[test]
fn an_oversized_value_becomes_a_marker_within_the_budget() {
    let original = json!("x".repeat(5000));
    let r = fit(completed(original.clone(), None), 800);
    assert!(
        chars_of(&r) <= 800 && chars_of(&r) > 780,
        "{}",
        chars_of(&r)
    );
    let m = as_marker(&r["value"]).expect("marker");
    let text = compact(&original);
    assert!(text.starts_with(&m.prefix));
    assert_eq!(m.omitted_bytes + m.prefix.len(), text.len());
    assert_eq!(r["status"], "completed");
    assert_eq!(r["telemetry"], telemetry());
}

#[test]
fn characters_are_utf16_code_units() {
    // Each emoji is two UTF-16 units and four UTF-8 bytes.
    let r = fit(completed(json!("🎉".repeat(1000)), None), 600);
    let units = compact(&r).encode_utf16().count();
    assert!(units <= 600 && units > 590, "{units}");
    let m = as_marker(&r["value"]).expect("marker");
    assert_eq!(m.omitted_bytes + m.prefix.len(), 4002);
    assert!(!m.prefix.contains('\u{FFFD}'));
}

#[test]
fn an_oversized_error_keeps_its_lead_and_the_suffix() {
    let r = json!({ "status": "failed", "error": format!("TypeError: {}", "e".repeat(3000)), "code": "internal_error", "telemetry": telemetry() });
    let out = fit(r, 500);
    let error = out["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("TypeError: eee") && error.ends_with(ERROR_SUFFIX));
    assert!(chars_of(&out) <= 500 && chars_of(&out) > 490);
    // An already-truncated error is cut further, not suffixed twice.
    let again = fit(out.clone(), 400);
    assert_eq!(
        again["error"]
            .as_str()
            .unwrap_or_default()
            .matches(ERROR_SUFFIX)
            .count(),
        1
    );
    assert!(chars_of(&again) <= 400);
}

#[test]
fn output_and_value_share_what_the_envelope_leaves() {
    let output = json!([{ "type": "text", "text": "o".repeat(3000) }]);
    let r = fit(completed(json!("v".repeat(3000)), Some(output)), 1200);
    assert!(chars_of(&r) <= 1200);
    assert!(as_marker(&r["value"]).is_some());
    assert!(single_output_marker(&r["output"]).is_some());
    // Unused share passes over: a small value leaves the rest to the output.
    let output = json!([{ "type": "text", "text": "o".repeat(3000) }]);
    let r = fit(completed(json!(7), Some(output)), 1200);
    assert_eq!(r["value"], 7);
    assert!(chars_of(&r) > 1180 && chars_of(&r) <= 1200);
}

#[test]
fn a_byte_budget_marker_is_recut_not_wrapped() {
    let marker = TruncationMarker {
        omitted_bytes: 10_000,
        prefix: "p".repeat(2000),
    }
    .to_value();
    let r = fit(completed(marker, None), 700);
    let m = as_marker(&r["value"]).expect("marker");
    assert_eq!(m.omitted_bytes + m.prefix.len(), 12_000);
    assert!(m.prefix.chars().all(|c| c == 'p'));
}

#[test]
fn nested_calls_are_dropped_before_the_status_fails() {
    let nested: Vec<Value> = (0..50).map(|i| json!({ "callId": format!("c{i}"), "toolName": "t", "status": "ok", "inputPreview": "x".repeat(100) })).collect();
    let r = json!({ "status": "waiting", "runId": "cm_1", "reason": "pending_tools", "telemetry": telemetry(), "nestedCalls": nested });
    let out = fit_result(r, 600);
    assert!(out.dropped_run.is_none());
    assert_eq!(out.result["status"], "waiting");
    assert!(out.result.get("nestedCalls").is_none());
    assert!(chars_of(&out.result) <= 600);
}

#[test]
fn a_budget_below_the_status_fails_with_the_documented_message() {
    let r = json!({ "status": "waiting", "runId": "cm_9", "reason": "yield", "telemetry": telemetry() });
    let out = fit_result(r, 40);
    assert_eq!(out.result["status"], "failed");
    assert_eq!(out.result["error"], STATUS_CANNOT_FIT);
    assert_eq!(out.result["code"], "output_limit_exceeded");
    assert_eq!(out.dropped_run.as_deref(), Some("cm_9"));
    let done = fit_result(completed(json!("v".repeat(100)), None), 100);
    assert_eq!(
        (done.result["error"].as_str(), done.dropped_run),
        (Some(STATUS_CANNOT_FIT), None)
    );
}

#[test]
fn fitted_results_never_exceed_the_budget() {
    let mut seed = 11u64;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) as usize) % n.max(1)
    };
    let alphabet = ["a", "\"", "\\", "\n", "\u{1}", "é", "中", "🎉"];
    for _ in 0..400 {
        let text = |len: usize, next: &mut dyn FnMut(usize) -> usize| {
            (0..len)
                .map(|_| alphabet[next(alphabet.len())])
                .collect::<String>()
        };
        let value_len = next(2000);
        let out_len = next(2000);
        let value = json!({ "v": text(value_len, &mut next) });
        let output =
            (next(2) == 0).then(|| json!([{ "type": "text", "text": text(out_len, &mut next) }]));
        let r = if next(3) == 0 {
            json!({ "status": "failed", "error": text(value_len, &mut next), "code": "internal_error", "telemetry": telemetry() })
        } else {
            completed(value, output)
        };
        let budget = 250 + next(3000);
        let fitted = fit(r, budget);
        if fitted["error"] != STATUS_CANNOT_FIT {
            assert!(
                chars_of(&fitted) <= budget,
                "{} > {budget}",
                chars_of(&fitted)
            );
        }
        assert!(!compact(&fitted).contains('\u{FFFD}'));
    }
}
