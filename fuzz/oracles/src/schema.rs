//! JSON Schema → hints, quick index and `.d.ts` (docs/contract.md, Catalog and search): no
//! panic, input hints ≤ 300 chars, output hints ≤ 850 and complete, the index ≤ its budget,
//! every text valid-looking TypeScript on one line (declaration files parse as `.d.ts`).

use oxc::span::SourceType;
use serde_json::{json, Map, Value};

use crate::bytes::Bytes;
use crate::ts_check::{assert_parses, assert_type_text};
use codemode_native::catalog::{
    describe_json, input_hint, metadata_json, output_hint, quick_index, tool_dts, Catalog, Source,
    ToolSpec,
};

const NAMES: [&str; 24] = [
    "a",
    "b",
    "id",
    "a-b",
    "*/",
    "\n",
    "\u{2028}",
    "é",
    "\"",
    "1",
    "$x",
    "__proto__",
    "",
    "constructor",
    "x y",
    "limit",
    "{",
    "<",
    "\\",
    "...",
    "; ... }",
    "`",
    "/*",
    "type",
];
const TEXT: [&str; 12] = [
    "a", " ", "*/", "\n", "\r", "\u{2028}", "é", "\"", "/*", "@param", "x", "😀",
];
const TOOL_NAMES: [&str; 12] = [
    "read",
    "delete",
    "class",
    "1password",
    "llm-task",
    "wait",
    "exec",
    "a b",
    "é",
    "Array",
    "catalog",
    "tool_",
];
const KINDS: [&str; 10] = [
    "string", "number", "integer", "boolean", "null", "object", "array", "any", "", "String",
];

/// Mode byte 0: the rest is a JSON text used as both schemas. Otherwise a schema tree is
/// decoded from the bytes (keyword-rich, unlike random JSON).
pub fn check_schema_render(data: &[u8]) {
    let mut b = Bytes::new(data);
    let (parameters, output) = match b.u8() % 4 {
        0 => match serde_json::from_slice::<Value>(b.rest()) {
            Ok(v) => (v.clone(), v),
            Err(_) => return,
        },
        _ => (schema(&mut b, 0), schema(&mut b, 0)),
    };
    check_hints(&parameters, &output);
    let mut spec = ToolSpec {
        name: tool_name(&mut b),
        description: b.string(40, &TEXT),
        label: b.bool().then(|| b.string(10, &TEXT)),
        parameters: Some(parameters),
        output_schema: Some(output),
        source: if b.bool() {
            Source::Client
        } else {
            Source::Core
        },
        ..ToolSpec::default()
    };
    if b.bool() {
        spec.parameters = None;
    }
    let others: Vec<ToolSpec> = (0..b.below(4))
        .map(|_| ToolSpec {
            name: tool_name(&mut b),
            parameters: Some(schema(&mut b, 0)),
            output_schema: Some(schema(&mut b, 0)),
            ..ToolSpec::default()
        })
        .collect();
    let index_chars = if b.bool() { 8_000 } else { b.below(400) };
    let mut tools = vec![spec];
    tools.extend(others);
    let catalog = Catalog::build(tools, &[]);
    for entry in catalog.entries() {
        check_dts(&tool_dts(entry), entry.callable_name());
        let _ = serde_json::to_string(&describe_json(entry));
        let _ = serde_json::to_string(&metadata_json(entry));
    }
    check_index(
        &quick_index(&catalog, index_chars),
        index_chars,
        catalog.len(),
    );
}

fn check_hints(parameters: &Value, output: &Value) {
    let hint = input_hint(Some(parameters));
    assert!(!hint.is_empty(), "empty input hint");
    assert!(
        hint.chars().count() <= 300,
        "input hint over 300 chars: {hint}"
    );
    assert_eq!(
        hint,
        input_hint(Some(parameters)),
        "input hint not deterministic"
    );
    assert_type_text(&hint, true, "input hint");
    if let Some(out) = output_hint(Some(output)) {
        assert!(
            out.chars().count() <= 850,
            "output hint over 850 chars: {out}"
        );
        assert!(out != "unknown" && out != "never", "shapeless output hint");
        assert_type_text(&out, false, "output hint");
    }
}

fn check_dts(text: &str, callable: &str) {
    assert!(
        text.starts_with("/**\n"),
        "d.ts without its doc comment: {text:?}"
    );
    let end = text.find("*/").unwrap_or(0);
    let after = &text[end..];
    let head = format!("*/\ndeclare function {callable}(input");
    assert!(
        after.starts_with(&head),
        "d.ts comment ends early: {text:?}"
    );
    let declaration = &after[3..];
    assert!(
        declaration.ends_with(";\n") && declaration.matches('\n').count() == 1,
        "d.ts declaration is not one line: {text:?}"
    );
    assert_parses(text, SourceType::d_ts(), "d.ts file");
}

fn check_index(index: &str, max_chars: usize, tools: usize) {
    assert!(
        index.chars().count() <= max_chars,
        "quick index over its budget"
    );
    if tools == 0 {
        assert!(index.is_empty(), "an empty catalog has an index");
    }
    for line in index.lines().skip(1) {
        assert!(
            line.starts_with("- ") || line.contains("catalog.search(query)"),
            "odd index line: {line:?}"
        );
    }
}

fn tool_name(b: &mut Bytes<'_>) -> String {
    if b.bool() {
        b.pick(&TOOL_NAMES).to_owned()
    } else {
        b.string(6, &NAMES)
    }
}

/// A schema-ish value: mostly objects with schema keywords, sometimes junk.
fn schema(b: &mut Bytes<'_>, depth: usize) -> Value {
    if b.is_empty() || depth > 8 {
        return json!({ "type": "string" });
    }
    match b.u8() % 16 {
        0 => Value::Bool(b.bool()),
        1 => scalar(b),
        _ => {
            let mut m = Map::new();
            for _ in 0..b.below(5) {
                keyword(b, &mut m, depth);
            }
            Value::Object(m)
        }
    }
}

fn keyword(b: &mut Bytes<'_>, m: &mut Map<String, Value>, depth: usize) {
    let (key, value) = match b.u8() % 20 {
        0 | 1 => ("type", kind(b)),
        2 | 3 => {
            let mut props = Map::new();
            for _ in 0..b.below(6) {
                props.insert(b.string(4, &NAMES), schema(b, depth + 1));
            }
            ("properties", Value::Object(props))
        }
        4 => {
            let names: Vec<Value> = (0..b.below(4))
                .map(|_| b.string(3, &NAMES).into())
                .collect();
            ("required", Value::Array(names))
        }
        5 => (
            "additionalProperties",
            if b.bool() {
                Value::Bool(b.bool())
            } else {
                schema(b, depth + 1)
            },
        ),
        6 => (
            "items",
            if b.u8().is_multiple_of(8) {
                json!([schema(b, depth + 1)])
            } else {
                schema(b, depth + 1)
            },
        ),
        7 => (
            "enum",
            Value::Array((0..b.below(6)).map(|_| scalar(b)).collect()),
        ),
        8 => ("const", scalar(b)),
        9 | 10 => {
            let key = b.pick(&["anyOf", "oneOf", "allOf"]);
            (
                key,
                Value::Array((0..b.below(6)).map(|_| schema(b, depth + 1)).collect()),
            )
        }
        11 => ("nullable", Value::Bool(b.bool())),
        12 => {
            let key = b.pick(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]);
            (
                key,
                if b.u8().is_multiple_of(4) {
                    Value::Bool(b.bool())
                } else {
                    number(b)
                },
            )
        }
        13 => ("$ref", json!("#/$defs/x")),
        14 => ("description", b.string(20, &TEXT).into()),
        15 => {
            let key = b.pick(&[
                "patternProperties",
                "not",
                "if",
                "then",
                "else",
                "prefixItems",
            ]);
            (key, schema(b, depth + 1))
        }
        _ => {
            let key = b.pick(&["title", "format", "default", "examples", "minLength"]);
            (key, scalar(b))
        }
    };
    m.insert(key.to_owned(), value);
}

fn kind(b: &mut Bytes<'_>) -> Value {
    match b.u8() % 6 {
        0 => Value::Array((0..b.below(6)).map(|_| b.pick(&KINDS).into()).collect()),
        1 => scalar(b),
        _ => b.pick(&KINDS).into(),
    }
}

fn scalar(b: &mut Bytes<'_>) -> Value {
    match b.u8() % 6 {
        0 => Value::Null,
        1 => Value::Bool(b.bool()),
        2 | 3 => number(b),
        4 => json!([b.string(3, &NAMES)]),
        _ => b.string(70, &NAMES).into(),
    }
}

fn number(b: &mut Bytes<'_>) -> Value {
    match b.u8() % 5 {
        0 => json!(b.u64()),
        1 => json!(-(i64::from(b.u32()))),
        2 => json!(f64::from_bits(b.u64())),
        3 => json!(f64::from(b.u16()) / 8.0 - 100.0),
        _ => json!(b.u8()),
    }
}
