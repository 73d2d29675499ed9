//! JSON shapes the guest sees for a handle: bounded metadata (enumerable handle fields,
//! `JSON.stringify(handle)`) and the full `describe()` result with the schemas.

use serde_json::{Map, Value};

use super::hints::{self, UNKNOWN};
use super::{CatalogEntry, Source};

/// Handle metadata carries at most this many description chars; `describe()` has all.
/// Keeps search results small enough for the output budget whatever hosts write.
const METADATA_DESCRIPTION_CHARS: usize = 600;

/// `{ name, callableName, label?, description, source, input, output?, parameters,
/// outputSchema? }`. Client tools get their real input hint here (their schemas are
/// deferred, not hidden); absent `parameters` is `{}` (the schema that accepts anything).
pub fn describe_json(entry: &CatalogEntry) -> Value {
    let input = match entry.source() {
        Source::Core => entry.input_hint().to_owned(),
        Source::Client => hints::input_hint(entry.parameters()),
    };
    let mut out = Map::new();
    out.insert("name".into(), entry.tool_name().into());
    out.insert("callableName".into(), entry.callable_name().into());
    if let Some(label) = entry.label() {
        out.insert("label".into(), label.into());
    }
    out.insert("description".into(), entry.description().into());
    out.insert("source".into(), entry.source().as_str().into());
    out.insert("input".into(), input.into());
    if let Some(output) = entry.output_hint() {
        out.insert("output".into(), output.into());
    }
    let parameters = entry
        .parameters()
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    out.insert("parameters".into(), parameters);
    if let Some(schema) = entry.output_schema() {
        out.insert("outputSchema".into(), schema.clone());
    }
    Value::Object(out)
}

/// `{ callableName, toolName, label?, description, source, input, output? }` with the
/// description bounded; client tools show `input: "unknown"`.
pub fn metadata_json(entry: &CatalogEntry) -> Value {
    let input = match entry.source() {
        Source::Core => entry.input_hint(),
        Source::Client => UNKNOWN,
    };
    let mut out = Map::new();
    out.insert("callableName".into(), entry.callable_name().into());
    out.insert("toolName".into(), entry.tool_name().into());
    if let Some(label) = entry.label() {
        out.insert("label".into(), label.into());
    }
    let description = bounded(entry.description(), METADATA_DESCRIPTION_CHARS);
    out.insert("description".into(), description.into());
    out.insert("source".into(), entry.source().as_str().into());
    out.insert("input".into(), input.into());
    if let Some(output) = entry.output_hint() {
        out.insert("output".into(), output.into());
    }
    Value::Object(out)
}

/// At most `max` chars, ending in `…` when cut (never splits a code point).
fn bounded(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let keep = max.saturating_sub(1);
    let end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_support::{client, tool};
    use super::super::{Catalog, ToolSpec};
    use super::*;

    fn one(spec: ToolSpec) -> Catalog {
        Catalog::build(vec![spec], &[])
    }

    fn typed(mut spec: ToolSpec) -> ToolSpec {
        spec.label = Some("Read".into());
        spec.parameters = Some(
            json!({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}),
        );
        spec.output_schema = Some(json!({"type":"string"}));
        spec
    }

    #[test]
    fn describe_has_name_schemas_and_hints() {
        let c = one(typed(tool("read-file")));
        let d = describe_json(&c.entries()[0]);
        assert_eq!(d["name"], "read-file");
        assert_eq!(d["callableName"], "read_file");
        assert_eq!(d["label"], "Read");
        assert_eq!(d["source"], "core");
        assert_eq!(d["input"], "{ path: string; ... }");
        assert_eq!(d["output"], "string");
        assert_eq!(d["parameters"]["required"], json!(["path"]));
        assert_eq!(d["outputSchema"], json!({"type":"string"}));
    }

    #[test]
    fn describe_gives_client_tools_their_real_input_hint_but_no_output_hint() {
        let c = one(typed(client("read")));
        let d = describe_json(&c.entries()[0]);
        assert_eq!(d["source"], "client");
        assert_eq!(d["input"], "{ path: string; ... }");
        assert!(d.get("output").is_none());
    }

    #[test]
    fn describe_without_parameters_shows_an_empty_schema() {
        let d = describe_json(&one(tool("ping")).entries()[0]);
        assert_eq!(d["parameters"], json!({}));
        assert!(d.get("outputSchema").is_none() && d.get("label").is_none());
    }

    #[test]
    fn metadata_has_tool_name_and_hides_client_input() {
        let c = one(typed(client("read")));
        let m = metadata_json(&c.entries()[0]);
        let keys: Vec<&str> = m
            .as_object()
            .map_or(vec![], |o| o.keys().map(String::as_str).collect());
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            [
                "callableName",
                "description",
                "input",
                "label",
                "source",
                "toolName"
            ]
        );
        assert_eq!(m["input"], "unknown");
        assert_eq!(m["toolName"], "read");
    }

    #[test]
    fn metadata_includes_a_declared_output_hint() {
        let m = metadata_json(&one(typed(tool("read"))).entries()[0]);
        assert_eq!(m["output"], "string");
    }

    #[test]
    fn metadata_bounds_long_descriptions_on_char_boundaries() {
        let mut spec = tool("x");
        spec.description = "é".repeat(2000);
        let m = metadata_json(&one(spec).entries()[0]);
        let text = m["description"].as_str().unwrap_or_default();
        assert_eq!(text.chars().count(), METADATA_DESCRIPTION_CHARS);
        assert!(text.ends_with('…'));
        assert_eq!(bounded("short", 600), "short");
    }
}
