//! The output budget and result projection (docs/contract.md, Output budget): delivered
//! bytes never pass `maxOutputBytes`, markers are exact and cut on char boundaries, errors
//! keep their lead, failures stay `failed`, `output_limit_exceeded` only as a last resort.

use serde_json::{json, Value};

use crate::bytes::Bytes;
use codemode_native::run::state::RunBook;
use codemode_native::run::output::{
    truncate_error, truncation_marker, OutputEntry, TruncationMarker, ERROR_SUFFIX, GUIDANCE,
};
use codemode_native::run::result::{final_result, waiting_result, RunMetrics, Telemetry};
use codemode_native::error::{CodeModeError, ErrorCode};

const ALPHABET: [&str; 14] = [
    "a", "\"", "\\", "\n", "\u{1}", "\u{1f}", "é", "中", "🎉", "\u{2028}", " ", "x", "/", "\u{7f}",
];
/// Enough for the largest output marker (with wrapper) plus the largest final marker.
const ALWAYS_PROJECTS: usize = 300;

pub fn check_output_budget(data: &[u8]) {
    let mut b = Bytes::new(data);
    let max = match b.u8() % 4 {
        0 => b.below(64),
        1 => b.below(400),
        2 => b.below(5_000),
        _ => b.below(70_000),
    };
    check_primitives(&mut b);
    let mut book = RunBook::new(max, 16);
    let mut delivered = 0usize;
    let mut pushed: Vec<Value> = Vec::new();
    let rounds = b.below(5);
    for _ in 0..rounds {
        for _ in 0..b.below(6) {
            let entry = entry(&mut b, max);
            pushed.push(entry.clone().into_value());
            book.output.push(entry);
            assert!(
                book.output.stored_bytes() <= max,
                "stored output passed the budget"
            );
        }
        let before = book.output.remaining();
        let metrics = RunMetrics::default();
        let result = waiting_result(&mut book, "run", "yield", &metrics, Telemetry::default())
            .into_value();
        let out = result.get("output").cloned().unwrap_or(Value::Null);
        let cost = array_cost(&out);
        assert!(
            cost <= before / 2,
            "partial output {cost} over half of {before}"
        );
        check_delivered_output(&out, &pushed);
        if cost > 0 {
            pushed.clear();
        }
        delivered += cost;
        assert_eq!(
            book.output.remaining(),
            max - delivered,
            "remaining drifted"
        );
    }
    let remaining = book.output.remaining();
    let outcome = if b.bool() {
        let value = json_value(&mut b, max, 0);
        let text = if b.u8().is_multiple_of(16) {
            "not json".to_owned()
        } else {
            value.to_string()
        };
        let expected = serde_json::from_str::<Value>(&text).unwrap_or(Value::Null);
        let result = final_result(&mut book, Ok(text), &RunMetrics::default(), Telemetry::default())
            .into_value();
        (result, Some(expected), None)
    } else {
        let message = b.string(max.max(1) * 2, &ALPHABET);
        let error = CodeModeError::new(ErrorCode::InternalError, message.clone());
        let result = final_result(&mut book, Err(error), &RunMetrics::default(), Telemetry::default())
            .into_value();
        (result, None, Some(message))
    };
    let (result, value, error) = outcome;
    let status = result["status"].as_str().unwrap_or_default().to_owned();
    let out = result.get("output").cloned().unwrap_or(Value::Null);
    let out_cost = array_cost(&out);
    if result["code"] == "output_limit_exceeded" {
        assert!(
            remaining < ALWAYS_PROJECTS,
            "overflow with {remaining} bytes left"
        );
        assert!(out.is_null(), "an overflow still carries output");
        return;
    }
    check_delivered_output(&out, &pushed);
    let final_cost = match (value, error) {
        (Some(expected), None) => {
            assert_eq!(status, "completed", "a value did not complete: {result}");
            let got = &result["value"];
            let cost = json_len(got);
            if got != &expected {
                let marker = marker_of(got).unwrap_or_else(|| panic!("value changed: {got}"));
                check_marker(&marker, &expected.to_string());
            }
            cost
        }
        (None, Some(message)) => {
            assert_eq!(status, "failed", "a failure did not stay failed: {result}");
            assert_eq!(
                result["code"], "internal_error",
                "the failure lost its code"
            );
            let got = result["error"].as_str().unwrap_or_default();
            if got != message {
                let lead = got
                    .strip_suffix(ERROR_SUFFIX)
                    .unwrap_or_else(|| panic!("cut error lacks the suffix: {got:?}"));
                assert!(
                    message.starts_with(lead),
                    "cut error is not a prefix: {got:?}"
                );
            }
            json_len(&Value::String(got.to_owned()))
        }
        _ => unreachable!("one final channel"),
    };
    assert!(
        out_cost + final_cost <= remaining,
        "final result {out_cost} + {final_cost} over the remaining {remaining}"
    );
}

/// `truncation_marker` and `truncate_error` on their own, against exact sizes.
fn check_primitives(b: &mut Bytes<'_>) {
    let original = b.string(300, &ALPHABET);
    let budget = b.below(500);
    match truncation_marker(&original, budget) {
        Some(m) => {
            check_marker(&m, &original);
            assert!(m.json_len() <= budget, "marker over its budget");
            if let Some(c) = original[m.prefix.len()..].chars().next() {
                let longer = &original[..m.prefix.len() + c.len_utf8()];
                let bigger = TruncationMarker {
                    omitted_bytes: original.len() - longer.len(),
                    prefix: longer.to_owned(),
                };
                assert!(bigger.json_len() > budget, "marker prefix is not maximal");
            }
        }
        None => {
            let empty = TruncationMarker {
                omitted_bytes: original.len(),
                prefix: String::new(),
            };
            assert!(
                empty.json_len() > budget,
                "no marker though an empty one fits"
            );
        }
    }
    match truncate_error(&original, budget) {
        Some(e) => {
            assert!(
                json_len(&Value::String(e.clone())) <= budget,
                "error over its budget"
            );
            if e != original {
                let lead = e
                    .strip_suffix(ERROR_SUFFIX)
                    .unwrap_or_else(|| panic!("no suffix: {e:?}"));
                assert!(original.starts_with(lead), "cut error is not a prefix");
            }
        }
        None => assert!(
            json_len(&json!(ERROR_SUFFIX)) > budget && json_len(&json!(original)) > budget,
            "no error text though the suffix fits"
        ),
    }
}

/// Output is delivered whole (exactly what was pushed since the last delivery) or as one
/// marker over the compact JSON array of it.
fn check_delivered_output(out: &Value, pushed: &[Value]) {
    let Value::Array(items) = out else {
        assert!(out.is_null(), "output is not an array");
        return;
    };
    assert!(!items.is_empty(), "an empty output array was delivered");
    if items.as_slice() == pushed {
        return;
    }
    assert_eq!(items.len(), 1, "output neither whole nor one marker");
    assert_eq!(items[0]["type"], "json");
    let marker = marker_of(&items[0]["value"]).unwrap_or_else(|| panic!("output changed: {out}"));
    check_marker(&marker, &Value::Array(pushed.to_vec()).to_string());
}

fn check_marker(m: &TruncationMarker, original: &str) {
    assert!(
        original.starts_with(&m.prefix),
        "marker prefix is not a prefix of the original"
    );
    assert_eq!(
        m.omitted_bytes + m.prefix.len(),
        original.len(),
        "omittedBytes is wrong"
    );
    assert!(
        !m.prefix.contains('\u{FFFD}'),
        "marker prefix contains U+FFFD"
    );
    assert_eq!(
        m.to_json_string().len(),
        m.json_len(),
        "marker length is wrong"
    );
    assert_eq!(
        serde_json::to_string(&m.to_value()).unwrap_or_default(),
        m.to_json_string()
    );
}

fn marker_of(v: &Value) -> Option<TruncationMarker> {
    let m = v.as_object()?;
    if m.len() != 4
        || m.get("truncated") != Some(&json!(true))
        || m.get("guidance") != Some(&json!(GUIDANCE))
    {
        return None;
    }
    Some(TruncationMarker {
        omitted_bytes: usize::try_from(m.get("omittedBytes")?.as_u64()?).ok()?,
        prefix: m.get("prefix")?.as_str()?.to_owned(),
    })
}

fn json_len(v: &Value) -> usize {
    serde_json::to_string(v).map_or(usize::MAX, |s| s.len())
}

fn array_cost(v: &Value) -> usize {
    match v {
        Value::Array(items) if !items.is_empty() => json_len(v),
        _ => 0,
    }
}

fn entry(b: &mut Bytes<'_>, max: usize) -> OutputEntry {
    if b.bool() {
        OutputEntry::Text(b.string(max / 2 + 8, &ALPHABET))
    } else {
        OutputEntry::Json(json_value(b, max, 0))
    }
}

fn json_value(b: &mut Bytes<'_>, max: usize, depth: usize) -> Value {
    match b.u8() % 8 {
        _ if depth > 4 => Value::Null,
        0 => Value::Null,
        1 => Value::Bool(b.bool()),
        2 => json!(f64::from(b.u32()) / 7.0),
        3 => json!(b.u64()),
        4 | 5 => b.string(max / 2 + 8, &ALPHABET).into(),
        6 => Value::Array(
            (0..b.below(5))
                .map(|_| json_value(b, max, depth + 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..b.below(5))
                .map(|_| (b.string(4, &ALPHABET), json_value(b, max, depth + 1)))
                .collect(),
        ),
    }
}
