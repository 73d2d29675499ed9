//! The JSON bridge adapter (docs/contract.md, Bridge) through a real VM: host JSON must reach the guest as
//! `JSON.parse` sees it and come back equal on every channel, a decoded guest value must
//! become the JSON `values` predicts, and every text handed over must be JSON serde_json reads.

mod cell;
mod values;

use serde_json::Value;

use crate::bytes::Bytes;
use cell::run_cell;
use values::guest_value;

const UNSERIALIZABLE: &str = "[Unserializable value: ";

pub fn check_json_bridge(data: &[u8]) {
    let mut b = Bytes::new(data);
    if b.u8().is_multiple_of(4) {
        let text = b.rest();
        let Ok(value) = serde_json::from_slice::<Value>(text) else {
            return;
        };
        check_host_json(&String::from_utf8_lossy(text), &value);
    } else {
        let (js, expected) = guest_value(&mut b, 0);
        check_guest_value(&js, &expected);
    }
}

/// Host JSON → guest → host, over three channels.
fn check_host_json(text: &str, value: &Value) {
    let cell = "const v = await echo(null);\njson(v);\nawait echo(v);\nreturn v;";
    let run = run_cell(cell, text);
    let ok = run.finished.as_ref().is_some_and(|(ok, _)| *ok);
    assert!(ok, "the cell failed: {:?}", run.finished);
    assert_eq!(
        run.calls.first().map(String::as_str),
        Some("null"),
        "first tool input"
    );
    for (channel, got) in [
        ("tool input", run.calls.get(1)),
        ("json() output", run.json_outputs.first()),
        ("return value", run.finished.as_ref().map(|f| &f.1)),
    ] {
        let got = got.unwrap_or_else(|| panic!("no {channel}"));
        let parsed: Value = serde_json::from_str(got)
            .unwrap_or_else(|e| panic!("{channel} is not JSON ({e}): {got:?}"));
        assert!(
            same_json(&parsed, value),
            "{channel} changed {value} into {parsed}"
        );
    }
}

/// What a guest value must become on the host side.
#[derive(Clone, Debug)]
pub(crate) enum Expect {
    Json(Value),
    /// `undefined`, functions, symbols: dropped from objects, `null` elsewhere.
    Absent,
    /// Serialisation throws (a cycle, a throwing getter): the whole value becomes a string.
    Fails,
}

impl Expect {
    fn in_array(&self) -> Option<Value> {
        match self {
            Expect::Json(v) => Some(v.clone()),
            Expect::Absent => Some(Value::Null),
            Expect::Fails => None,
        }
    }
}

fn check_guest_value(expr: &str, expected: &Expect) {
    let cell = format!(
        "const v = {expr};\njson(v);\ntext(v);\nawait echo(v);\nconsole.log(v, [v]);\nreturn [v];"
    );
    let run = run_cell(&cell, "null");
    let finished = run
        .finished
        .unwrap_or_else(|| panic!("no result for {cell}"));
    assert!(finished.0, "the cell failed for {cell}: {}", finished.1);
    let single = [
        ("json() output", run.json_outputs.first()),
        ("tool input", run.calls.first()),
    ];
    for (channel, got) in single {
        let got = got.unwrap_or_else(|| panic!("no {channel} for {cell}"));
        let parsed: Value = serde_json::from_str(got)
            .unwrap_or_else(|e| panic!("{channel} is not JSON ({e}) for {cell}: {got:?}"));
        match expected.in_array() {
            Some(want) => assert!(
                same_json(&parsed, &want),
                "{channel} of {expr}: {parsed}, want {want}"
            ),
            None => assert_unserializable(&parsed, channel, expr),
        }
    }
    let parsed: Value = serde_json::from_str(&finished.1).unwrap_or_else(|e| {
        panic!(
            "return value is not JSON ({e}) for {cell}: {:?}",
            finished.1
        )
    });
    match expected.in_array() {
        Some(want) => {
            let want = Value::Array(vec![want]);
            assert!(
                same_json(&parsed, &want),
                "return of {expr}: {parsed}, want {want}"
            );
        }
        None => assert_unserializable(&parsed, "return value", expr),
    }
    assert_eq!(run.texts.len(), 1, "text() output lost for {cell}");
}

fn assert_unserializable(parsed: &Value, channel: &str, expr: &str) {
    let text = parsed.as_str().unwrap_or_default();
    assert!(
        text.starts_with(UNSERIALIZABLE),
        "{channel} of {expr} should be the fallback string: {parsed}"
    );
}

/// JSON equality as JavaScript sees it: numbers as f64 (to the last bits serde_json's
/// parser may differ in), objects by key set.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            x == y || (x - y).abs() <= 4.0 * f64::EPSILON * x.abs().max(y.abs())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}
