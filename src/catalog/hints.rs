//! Compact hints for the quick index and handle metadata: an input hint for every tool
//! (degrading under its bounds, never failing) and an output hint only when the output
//! schema is complete and fits.

use serde_json::Value;

use super::render::{render, Limits, OpenObjects};

/// The hint for "no usable schema".
pub const UNKNOWN: &str = "unknown";

const INPUT: Limits = Limits {
    max_chars: 300,
    max_props: 16,
    max_depth: 4,
};
const OUTPUT: Limits = Limits {
    max_chars: 850,
    max_props: 20,
    max_depth: 6,
};

/// TypeScript-style hint for a tool's `parameters` (≤ 300 chars). Too big a schema first
/// loses nesting (deep containers become `{ ... }`), then top-level properties (the rest
/// become `; ...`), and finally becomes `unknown`. No schema means any input: `unknown`.
pub fn input_hint(parameters: Option<&Value>) -> String {
    let Some(schema) = parameters else {
        return UNKNOWN.to_owned();
    };
    let shallower = (1..=INPUT.max_depth)
        .rev()
        .map(|max_depth| Limits { max_depth, ..INPUT });
    let narrower = (0..INPUT.max_props).rev().map(|max_props| Limits {
        max_depth: 1,
        max_props,
        ..INPUT
    });
    shallower
        .chain(narrower)
        .map(|limits| render(schema, limits, OpenObjects::Ellipsis))
        .find(|r| !r.overflow)
        .map_or_else(|| UNKNOWN.to_owned(), |r| r.text)
}

/// Hint for a trusted `outputSchema` (≤ 850 chars), or `None` (shown as `?`) unless the
/// schema is complete: every object closed, nothing unsupported, within every bound.
/// A schema that accepts anything (or nothing) declares no shape, so it gets none.
pub fn output_hint(output_schema: Option<&Value>) -> Option<String> {
    let r = render(output_schema?, OUTPUT, OpenObjects::Ellipsis);
    (r.complete && r.text != UNKNOWN && r.text != "never").then_some(r.text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn input(schema: Value) -> String {
        input_hint(Some(&schema))
    }
    fn output(schema: Value) -> Option<String> {
        output_hint(Some(&schema))
    }
    fn closed(props: Value, required: Value) -> Value {
        json!({"type":"object","properties":props,"required":required,"additionalProperties":false})
    }

    #[test]
    fn required_properties_come_first_then_optional_each_sorted() {
        let s = json!({"type":"object","required":["z","b"],"properties":{
            "a":{"type":"string"},"z":{"type":"boolean"},"c":{"type":"string"},"b":{"type":"null"}}});
        assert_eq!(
            input(s),
            "{ b: null; z: boolean; a?: string; c?: string; ... }"
        );
    }

    #[test]
    fn nested_objects_and_arrays_render_structurally() {
        let s = closed(
            json!({"items":{"type":"array","items":closed(json!({"id":{"type":"string"}}), json!(["id"]))}}),
            json!(["items"]),
        );
        assert_eq!(
            output(s).as_deref(),
            Some("{ items: Array<{ id: string }> }")
        );
    }

    #[test]
    fn enums_and_consts_become_literal_unions() {
        let s = closed(
            json!({"mode":{"enum":["fast","slow",3,null]},"kind":{"const":"x"}}),
            json!(["kind"]),
        );
        assert_eq!(
            input(s),
            r#"{ kind: "x"; mode?: "fast" | "slow" | 3 | null }"#
        );
    }

    #[test]
    fn integer_and_number_bounds_are_kept_as_comments() {
        let s = json!({"type":"object","properties":{
            "offset":{"type":"integer","minimum":1},
            "limit":{"type":"number","maximum":100},
            "ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},
            "old":{"type":"integer","minimum":0,"exclusiveMinimum":true}}});
        assert_eq!(
            input(s),
            "{ limit?: number /* <= 100 */; offset?: number /* integer, >= 1 */; \
             old?: number /* integer, > 0 */; ratio?: number /* > 0, < 1 */; ... }"
        );
    }

    #[test]
    fn nullable_and_type_lists_include_null_once() {
        assert_eq!(input(json!({"type":["string","null"]})), "string | null");
        assert_eq!(
            input(json!({"type":"string","nullable":true})),
            "string | null"
        );
        assert_eq!(
            input(json!({"type":["string","null"],"nullable":true})),
            "string | null"
        );
        assert_eq!(
            input(json!({"enum":["a",null],"nullable":true})),
            r#""a" | null"#
        );
    }

    #[test]
    fn any_of_and_one_of_become_unions_of_at_most_four_members() {
        let s = json!({"anyOf":[{"type":"string"},{"type":"array","items":{"type":"number"}}]});
        assert_eq!(output(s).as_deref(), Some("string | Array<number>"));
        let five = json!({"oneOf":[{"type":"string"},{"type":"number"},{"type":"null"},{"type":"boolean"},{"const":1}]});
        assert_eq!(input(five.clone()), "unknown");
        assert_eq!(output(five), None);
    }

    #[test]
    fn intersections_parenthesize_union_members() {
        let s = json!({"allOf":[{"type":["string","null"]},{"minLength":1}]});
        assert_eq!(input(s.clone()), "(string | null) & unknown");
        assert_eq!(output(s), None);
    }

    #[test]
    fn open_objects_end_in_ellipsis_and_get_no_output_hint() {
        let s = json!({"type":"object","properties":{"a":{"type":"string"}}});
        assert_eq!(input(s.clone()), "{ a?: string; ... }");
        assert_eq!(output(s), None);
        assert_eq!(input(json!({"type":"object"})), "{ ... }");
        assert_eq!(input(closed(json!({}), json!([]))), "{}");
    }

    #[test]
    fn non_identifier_property_names_are_quoted_on_one_line() {
        let s = closed(
            json!({"a-b":{"type":"string"},"x\ny\u{2028}":{"type":"string"}}),
            json!([]),
        );
        let hint = input(s);
        assert_eq!(hint, r#"{ "a-b"?: string; "x\ny\u2028"?: string }"#);
        assert!(!hint.contains('\n') && !hint.contains('\u{2028}'));
    }

    #[test]
    fn unsupported_keywords_give_no_output_hint() {
        for extra in [
            json!({"$ref":"#/$defs/x"}),
            json!({"allOf":[{"type":"string"}]}),
            json!({"patternProperties":{"^a":{"type":"string"}}}),
            json!({"if":{},"then":{},"else":{}}),
            json!({"not":{"type":"null"}}),
            json!({"dependentSchemas":{}}),
        ] {
            let mut s = closed(json!({"a":{"type":"string"}}), json!(["a"]));
            if let (Value::Object(target), Value::Object(add)) = (&mut s, extra) {
                target.extend(add);
            }
            assert_eq!(output(s), None);
        }
    }

    #[test]
    fn too_many_input_properties_are_truncated_with_ellipsis() {
        let props: serde_json::Map<String, Value> = (0..40)
            .map(|i| (format!("p{i:02}"), json!({"type":"string"})))
            .collect();
        let hint = input(closed(Value::Object(props), json!([])));
        assert!(hint.starts_with("{ p00?: string; p01?: string;"));
        assert!(hint.ends_with("; ... }") && hint.chars().count() <= 300);
        assert_eq!(hint.matches("?: string").count(), 16);
    }

    #[test]
    fn an_input_hint_over_300_chars_degrades_by_depth_then_properties() {
        let long = |i: usize| format!("{}{i}", "x".repeat(40));
        let inner: serde_json::Map<String, Value> = (0..5)
            .map(|i| (long(i), json!({"type":"string"})))
            .collect();
        let outer: serde_json::Map<String, Value> = (0..5)
            .map(|i| (long(i), json!({"type":"object","properties":inner.clone()})))
            .collect();
        let hint = input(json!({"type":"object","properties":outer}));
        assert!(hint.chars().count() <= 300, "{hint}");
        assert!(hint.contains(": { ... }") && hint.ends_with("; ... }"));
    }

    #[test]
    fn inputs_deeper_than_four_levels_collapse() {
        let mut s = json!({"type":"string"});
        for _ in 0..7 {
            s = json!({"type":"object","properties":{"n":s},"required":["n"],"additionalProperties":false});
        }
        assert_eq!(input(s.clone()), "{ n: { n: { n: { n: { ... } } } } }");
        // Seven levels are also beyond the output depth of six.
        assert_eq!(output(s), None);
    }

    #[test]
    fn output_hints_over_850_chars_or_20_properties_are_dropped() {
        let many: serde_json::Map<String, Value> = (0..21)
            .map(|i| (format!("p{i}"), json!({"type":"string"})))
            .collect();
        assert_eq!(output(closed(Value::Object(many), json!([]))), None);
        let long: serde_json::Map<String, Value> = (0..10)
            .map(|i| (format!("{}{i}", "y".repeat(90)), json!({"type":"string"})))
            .collect();
        assert_eq!(output(closed(Value::Object(long), json!([]))), None);
    }

    #[test]
    fn boolean_schemas_render_as_unknown_and_never() {
        assert_eq!(input(json!(true)), "unknown");
        assert_eq!(input(json!(false)), "never");
        let s = closed(json!({"any":true,"none":false}), json!(["any"]));
        assert_eq!(output(s).as_deref(), Some("{ any: unknown; none?: never }"));
        assert_eq!(output(json!(true)), None);
        assert_eq!(input_hint(None), "unknown");
    }

    #[test]
    fn garbage_schemas_degrade_without_panicking() {
        for s in [
            json!(42),
            json!("object"),
            json!(null),
            json!([1, 2]),
            json!({"type":42}),
            json!({"type":[]}),
            json!({"type":["string",7]}),
            json!({"type":"object","properties":"x","required":"a"}),
            json!({"type":"object","properties":{"a":7},"required":[1,"b"]}),
            json!({"enum":"x"}),
            json!({"enum":[[1],{"a":1}]}),
            json!({"anyOf":{}}),
            json!({"type":"array","items":[{"type":"string"}]}),
            json!({"type":"object","properties":{"n":{"type":"integer","minimum":"1"}}}),
        ] {
            let hint = input(s.clone());
            assert!(!hint.is_empty() && hint.chars().count() <= 300);
            assert_eq!(output(s), None);
        }
    }

    /// Drops a value without recursion: serde_json's own drop would overflow the stack on
    /// the nesting these tests build, which is not the behaviour under test.
    fn dismantle(value: Value) {
        let mut stack = vec![value];
        while let Some(v) = stack.pop() {
            match v {
                Value::Array(items) => stack.extend(items),
                Value::Object(m) => stack.extend(m.into_iter().map(|(_, v)| v)),
                _ => {}
            }
        }
    }

    #[test]
    fn huge_nesting_is_bounded() {
        let mut any_of = json!({"type":"string"});
        let mut items = json!({"type":"string"});
        // Built by hand: `json!` interpolation serializes its argument recursively.
        let wrap = |key: &str, inner: Value, extra: Option<(&str, Value)>| {
            let mut m: serde_json::Map<String, Value> =
                extra.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            m.insert(key.to_owned(), inner);
            Value::Object(m)
        };
        for _ in 0..100_000 {
            any_of = wrap(
                "anyOf",
                Value::Array(vec![any_of, json!({"type":"null"})]),
                None,
            );
            items = wrap("items", items, Some(("type", json!("array"))));
        }
        assert!(input_hint(Some(&any_of)).chars().count() <= 300);
        assert_eq!(output_hint(Some(&any_of)), None);
        let hint = input_hint(Some(&items));
        assert_eq!(hint, "Array<Array<Array<Array<Array<unknown>>>>>");
        assert_eq!(output_hint(Some(&items)), None);
        dismantle(any_of);
        dismantle(items);
    }
}
