//! Guest values decoded from fuzz bytes (BigInt, NaN, Map, functions, errors, promises,
//! cycles, proxies, getters, …), each with the JSON the bridge adapter must turn it into.

use serde_json::{json, Value};

use super::cell::META;
use super::Expect;
use crate::bytes::Bytes;

const UNAWAITED: &str =
    "[Unawaited Promise: use await or Promise.all(...) before emitting or returning values.]";

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
pub(super) fn guest_value(b: &mut Bytes<'_>, depth: usize) -> (String, Expect) {
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
