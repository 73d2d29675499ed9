//! Pieces of TypeScript text shared by the schema renderer and declaration files:
//! quoting, identifiers, literals, numeric-bound comments and property order.

use std::collections::HashSet;

use serde_json::{Map, Value};

/// Longer string literals degrade to `string`: they are prose, not an option list.
const MAX_LITERAL_CHARS: usize = 64;

/// JSON string literal, also escaping the JS line terminators JSON leaves raw, so a
/// hint never breaks the one-line-per-tool index.
pub(super) fn quote(s: &str) -> String {
    Value::String(s.to_owned())
        .to_string()
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

pub(super) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Required properties first, then optional, each group by name; at most `room` of
/// them. Selects before sorting so a schema with a million properties stays cheap.
pub(super) fn ordered_props<'a>(
    props: &'a Map<String, Value>,
    required: &HashSet<&str>,
    room: usize,
) -> (Vec<(&'a str, &'a Value, bool)>, bool) {
    let mut all: Vec<(&str, &Value, bool)> = props
        .iter()
        .map(|(k, v)| (k.as_str(), v, required.contains(k.as_str())))
        .collect();
    // Required (`!true` = false) sorts before optional, then by name.
    let order = |a: &(&str, &Value, bool), b: &(&str, &Value, bool)| (!a.2, a.0).cmp(&(!b.2, b.0));
    let truncated = all.len() > room;
    if truncated {
        if room == 0 {
            return (Vec::new(), true);
        }
        all.select_nth_unstable_by(room - 1, order);
        all.truncate(room);
    }
    all.sort_unstable_by(order);
    (all, truncated)
}

pub(super) fn literal(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some("null".to_owned()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) if s.chars().count() <= MAX_LITERAL_CHARS => Some(quote(s)),
        _ => None,
    }
}

/// ` /* integer, >= 1, <= 100 */`, or nothing when there is nothing to say. Handles both
/// numeric (draft 6+) and boolean (draft 4) `exclusiveMinimum`/`exclusiveMaximum`.
pub(super) fn number_comment(m: &Map<String, Value>, integer: bool) -> String {
    let mut parts: Vec<String> = Vec::new();
    if integer {
        parts.push("integer".to_owned());
    }
    for (bound, exclusive, inclusive_op, exclusive_op) in [
        ("minimum", "exclusiveMinimum", ">=", ">"),
        ("maximum", "exclusiveMaximum", "<=", "<"),
    ] {
        let flag = m.get(exclusive) == Some(&Value::Bool(true));
        if let Some(Value::Number(n)) = m.get(bound) {
            parts.push(format!(
                "{} {n}",
                if flag { exclusive_op } else { inclusive_op }
            ));
        }
        if let Some(Value::Number(n)) = m.get(exclusive) {
            parts.push(format!("{exclusive_op} {n}"));
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" /* {} */", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn identifiers_are_ascii_js_names() {
        assert!(is_identifier("$a_1") && is_identifier("_"));
        assert!(
            !is_identifier("1a")
                && !is_identifier("a-b")
                && !is_identifier("é")
                && !is_identifier("")
        );
    }

    #[test]
    fn truncated_property_lists_keep_required_properties_first() {
        let props = json!({"a":1,"b":2,"c":3,"d":4});
        let props = props.as_object().cloned().unwrap_or_default();
        let required: HashSet<&str> = ["d", "c"].into_iter().collect();
        let (listed, truncated) = ordered_props(&props, &required, 3);
        let names: Vec<&str> = listed.iter().map(|p| p.0).collect();
        assert_eq!((names, truncated), (vec!["c", "d", "a"], true));
    }

    #[test]
    fn long_or_structured_literals_are_not_rendered() {
        assert_eq!(literal(&json!("x".repeat(65))), None);
        assert_eq!(literal(&json!([1])), None);
        assert_eq!(literal(&json!(1.5)).as_deref(), Some("1.5"));
    }
}
