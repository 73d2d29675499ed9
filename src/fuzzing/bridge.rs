//! The JSON bridge adapter (docs/contract.md, Bridge) through a real VM: host JSON reaches
//! the guest as `JSON.parse` gives it and comes back equal on every channel; exotic guest
//! values become the JSON the adapter promises, always readable by serde_json.

use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::{json, Value};

use super::bytes::Bytes;
use crate::guest::control::Control;
use crate::guest::natives::Bridge;
use crate::guest::vm::{Vm, VmLimits, USER_FILE_JS};

const UNAWAITED: &str =
    "[Unawaited Promise: use await or Promise.all(...) before emitting or returning values.]";
const UNSERIALIZABLE: &str = "[Unserializable value: ";
const META: &str = r#"{"callableName":"echo","toolName":"echo","source":"openclaw"}"#;

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
enum Expect {
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

const KEYS: [&str; 12] = [
    "a",
    "b",
    "1",
    "0",
    "__proto__",
    "constructor",
    "valueOf",
    "",
    "é",
    "a b",
    "\u{2028}",
    "\"",
];
const STRINGS: [(&str, &str); 12] = [
    ("a", "a"),
    ("\\\"", "\""),
    ("\\\\", "\\"),
    ("\\n", "\n"),
    ("\\u0000", "\u{0}"),
    ("\\u2028", "\u{2028}"),
    ("é", "é"),
    ("\\ud83d\\ude00", "😀"),
    ("😀", "😀"),
    ("\\x7f", "\u{7f}"),
    (" ", " "),
    ("</script>", "</script>"),
];

/// A JavaScript expression and what the adapter must make of it.
fn guest_value(b: &mut Bytes<'_>, depth: usize) -> (String, Expect) {
    let leaf = depth > 3 || b.is_empty();
    match b.u8() % if leaf { 10 } else { 24 } {
        0 => ("undefined".into(), Expect::Absent),
        1 => ("null".into(), Expect::Json(Value::Null)),
        2 => {
            let v = b.bool();
            (v.to_string(), Expect::Json(Value::Bool(v)))
        }
        3 => number(b),
        4 => {
            let n = b.u64() as i64;
            (format!("{n}n"), Expect::Json(Value::String(n.to_string())))
        }
        5 | 6 => {
            let (mut js, mut text) = (String::from("\""), String::new());
            for _ in 0..b.below(6) {
                let (escaped, raw) = b.pick(&STRINGS);
                js.push_str(escaped);
                text.push_str(raw);
            }
            js.push('"');
            (js, Expect::Json(Value::String(text)))
        }
        7 => {
            let kind = b.pick(&[
                "() => 1",
                "function f() {}",
                "async () => {}",
                "class {}",
                "Symbol('s')",
                "Symbol.iterator",
            ]);
            (format!("({kind})"), Expect::Absent)
        }
        8 => match b.u8() % 4 {
            0 => (
                "new Date(0)".into(),
                Expect::Json(json!("1970-01-01T00:00:00.000Z")),
            ),
            1 => ("new Date(NaN)".into(), Expect::Json(Value::Null)),
            2 => ("new Map([[1, 2]])".into(), Expect::Json(json!({}))),
            _ => ("new Set([1])".into(), Expect::Json(json!({}))),
        },
        9 => match b.u8() % 5 {
            0 => (
                "echo".into(),
                Expect::Json(serde_json::from_str(META).unwrap_or_default()),
            ),
            1 => ("Promise.resolve(1)".into(), Expect::Json(json!(UNAWAITED))),
            2 => ("new Number(5)".into(), Expect::Json(json!(5))),
            3 => ("new String('s')".into(), Expect::Json(json!("s"))),
            _ => (
                "new Uint8Array([1, 2])".into(),
                Expect::Json(json!({"0": 1, "1": 2})),
            ),
        },
        10..=12 => {
            let mut items = Vec::new();
            let mut want = Some(Vec::new());
            for _ in 0..b.below(4) {
                if b.u8().is_multiple_of(8) {
                    items.push(String::new()); // a hole
                    want = want.map(|mut w| {
                        w.push(Value::Null);
                        w
                    });
                    continue;
                }
                let (js, e) = guest_value(b, depth + 1);
                items.push(js);
                want = match (want, e.in_array()) {
                    (Some(mut w), Some(v)) => {
                        w.push(v);
                        Some(w)
                    }
                    _ => None,
                };
            }
            // A trailing hole needs its own comma to count.
            let trailing = if items.last().is_some_and(String::is_empty) {
                ","
            } else {
                ""
            };
            let js = format!("[{}{trailing}]", items.join(", "));
            (
                js,
                want.map_or(Expect::Fails, |w| Expect::Json(Value::Array(w))),
            )
        }
        13..=15 => {
            let mut fields = Vec::new();
            // Per key, the expectation of the field that is serialised: a later field of
            // the same key replaces an earlier one (a cycle or throwing getter it replaces
            // no longer fails the object).
            let mut wanted: Vec<(&str, Expect)> = Vec::new();
            for _ in 0..b.below(4) {
                let key = b.pick(&KEYS);
                let (js, e) = guest_value(b, depth + 1);
                let quoted = Value::String(key.into()).to_string();
                let getter = b.u8().is_multiple_of(6);
                fields.push(if getter {
                    format!("get [{quoted}]() {{ return {js}; }}")
                } else {
                    format!("[{quoted}]: {js}")
                });
                wanted.retain(|(k, _)| *k != key);
                wanted.push((key, e));
            }
            let js = format!("({{ {} }})", fields.join(", "));
            let mut want = serde_json::Map::new();
            for (key, e) in wanted {
                match e {
                    Expect::Json(v) => {
                        want.insert(key.into(), v);
                    }
                    Expect::Absent => {}
                    Expect::Fails => return (js, Expect::Fails),
                }
            }
            (js, Expect::Json(Value::Object(want)))
        }
        16 => {
            let (js, e) = guest_value(b, depth + 1);
            let e = without_own_to_json(&js, e);
            (format!("({{ toJSON() {{ return {js}; }} }})"), e)
        }
        17 => {
            let (js, e) = guest_value(b, depth + 1);
            let is_object = matches!(&e, Expect::Json(Value::Object(_) | Value::Array(_)))
                && (js.starts_with('[') || js.starts_with("({"));
            if is_object {
                (format!("new Proxy({js}, {{}})"), e)
            } else {
                (js, e)
            }
        }
        18 => {
            let (name, ctor) = b.pick(&[
                ("Error", "Error"),
                ("TypeError", "TypeError"),
                ("RangeError", "RangeError"),
            ]);
            let (js, text) = b.pick(&STRINGS);
            (
                format!("new {ctor}(\"{js}\")"),
                Expect::Json(json!({"name": name, "message": text})),
            )
        }
        19 => (
            "(() => { const o = { a: 1 }; o.self = o; return o; })()".into(),
            Expect::Fails,
        ),
        20 => (
            "({ get a() { throw new Error('no'); } })".into(),
            Expect::Fails,
        ),
        21 => (
            "Object.defineProperty({}, 'hidden', { value: 1 })".into(),
            Expect::Json(json!({})),
        ),
        22 => (
            "({ [Symbol('k')]: 1, b: undefined })".into(),
            Expect::Json(json!({})),
        ),
        _ => ("new Array(2)".into(), Expect::Json(json!([null, null]))),
    }
}

/// What the value of `js` becomes when `JSON.stringify` does not call its own `toJSON`,
/// as for a value a `toJSON` returned: `toJSON` is called once per property, never on its
/// own result. A `toJSON` object (bare or in a proxy) and a `Date` then serialise as
/// plain objects without enumerable data: `{}`.
fn without_own_to_json(js: &str, e: Expect) -> Expect {
    let target = js.strip_prefix("new Proxy(").unwrap_or(js);
    if target.starts_with("({ toJSON()") || js.starts_with("new Date(") {
        Expect::Json(json!({}))
    } else {
        e
    }
}

fn number(b: &mut Bytes<'_>) -> (String, Expect) {
    let numbers = [
        ("0", json!(0)),
        ("-0", json!(0)),
        ("1.5", json!(1.5)),
        ("1e21", json!(1e21)),
        ("NaN", Value::Null),
        ("Infinity", Value::Null),
        ("-Infinity", Value::Null),
        ("2 ** 53 + 2", json!(9007199254740994u64)),
        ("5e-324", json!(5e-324)),
        ("-123456789.125", json!(-123456789.125)),
        ("0.1 + 0.2", json!(0.30000000000000004)),
        ("1.7976931348623157e308", json!(f64::MAX)),
    ];
    let (js, v) = numbers[b.below(numbers.len())].clone();
    (js.to_owned(), Expect::Json(v))
}

/// What one cell handed to its bridge.
#[derive(Default)]
struct Run {
    /// Tool inputs in call order.
    calls: Vec<String>,
    json_outputs: Vec<String>,
    texts: Vec<String>,
    finished: Option<(bool, String)>,
}

#[derive(Default)]
struct Recorder {
    run: Mutex<Run>,
    /// Calls not answered yet.
    unanswered: Mutex<Vec<u32>>,
    next_id: Mutex<u32>,
}

impl Bridge for Recorder {
    fn call(&self, _method: &str, _target: &str, input_json: String) -> Result<u32, String> {
        let mut next = self.next_id.lock();
        *next += 1;
        self.run.lock().calls.push(input_json);
        self.unanswered.lock().push(*next);
        Ok(*next)
    }
    fn output(&self, kind: u8, text: String) {
        let mut run = self.run.lock();
        match kind {
            1 => run.json_outputs.push(text),
            _ => run.texts.push(text),
        }
    }
    fn console(&self, _line: String) {}
    fn timer(&self, _delay_ms: u64) -> Result<u32, String> {
        Err("no timers in this check".into())
    }
    fn clear_timer(&self, _id: u32) {}
    fn yield_control(&self, _reason: Option<String>) -> u32 {
        0
    }
    fn finish(&self, ok: bool, payload: String) {
        self.run.lock().finished = Some((ok, payload));
    }
    fn fail(&self, payload: String) {
        self.run.lock().finished = Some((false, payload));
    }
    fn search(&self, _query: &str, _limit: u32) -> Result<String, String> {
        Ok("[]".into())
    }
    fn describe(&self, _callable: &str) -> Result<String, String> {
        Ok(META.into())
    }
    fn tool_meta(&self, _callable: &str) -> Result<String, String> {
        Ok(META.into())
    }
    fn api_list(&self, _prefix: &str) -> String {
        r#"{"files":[]}"#.into()
    }
    fn api_read(&self, _path: &str) -> Result<String, String> {
        Err("no files".into())
    }
    fn mcp_api(&self, _: &str, _: Option<&str>, _: bool) -> Result<String, String> {
        Err("no MCP servers".into())
    }
}

/// Runs `cell` in a fresh VM whose only tool `echo` answers its first call with
/// `first_reply` and every later call with its own input.
fn run_cell(cell: &str, first_reply: &str) -> Run {
    let vm = Vm::blank().unwrap_or_else(|_| panic!("a blank VM could not be built"));
    let recorder = Arc::new(Recorder::default());
    let control = Arc::new(Control::new());
    control.set_deadline_after(Duration::from_secs(5));
    let limits = VmLimits {
        memory_bytes: 64 << 20,
        max_stack_bytes: 512 << 10,
    };
    let bound = vm.bind(
        limits,
        control.clone(),
        recorder.clone(),
        r#"{"tools":["echo"]}"#,
    );
    assert!(bound.is_ok(), "bind failed");
    let started = vm.start(cell, USER_FILE_JS);
    if let Err(error) = started {
        panic!("the cell did not start ({error:?}): {cell}");
    }
    let mut answered = 0;
    for _ in 0..16 {
        vm.drain_jobs(&control);
        if recorder.run.lock().finished.is_some() {
            break;
        }
        let ids: Vec<u32> = std::mem::take(&mut *recorder.unanswered.lock());
        if ids.is_empty() {
            break;
        }
        for id in ids {
            let reply = if answered == 0 {
                first_reply.to_owned()
            } else {
                let run = recorder.run.lock();
                run.calls
                    .get(id as usize - 1)
                    .cloned()
                    .unwrap_or_else(|| "null".into())
            };
            answered += 1;
            vm.settle(id, true, &reply);
        }
    }
    let run = std::mem::take(&mut *recorder.run.lock());
    run
}

#[cfg(test)]
mod tests {
    use super::check_json_bridge;

    /// Found by `cargo fuzz run json_bridge`: a `toJSON` returning an object that has its
    /// own `toJSON` serialises as `{}` (the second `toJSON` is never called), not as what
    /// the inner `toJSON` returns.
    #[test]
    fn to_json_result_is_not_converted_again() {
        check_json_bridge(&[0x2d, 0x10, 0x10]); // toJSON -> { toJSON -> undefined }
        check_json_bridge(&[0x2d, 0x10, 0x08, 0x00]); // toJSON -> new Date(0)
        check_json_bridge(&[0x2d, 0x10, 0x11, 0x10, 0x0a, 0x00]); // toJSON -> proxy of { toJSON -> [] }
    }

    /// A cycle under a key that a later field of the same key replaces does not fail the
    /// object: `({ a: <cycle>, a: null })` is `{"a":null}`.
    #[test]
    fn a_replaced_field_does_not_fail_the_object() {
        check_json_bridge(&[0x2d, 0x0d, 0x02, 0x00, 0x13, 0x01, 0x00, 0x01, 0x01]);
    }
}
