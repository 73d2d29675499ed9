//! `tools/<callable>.d.ts` virtual files: one `declare function` per tool, typed from its
//! schemas with the hint renderer under generous bounds, documented from its description.
//! The output stays valid TypeScript: open objects get an index signature, not `...`.

use serde_json::Value;

use super::render::{render, Limits, OpenObjects};
use super::{CatalogEntry, Source};

const DTS: Limits = Limits {
    max_chars: 16_000,
    max_props: 400,
    max_depth: 10,
};
/// `@param` lines are documentation, not a schema dump: bounded in count and length.
const MAX_PARAM_DOCS: usize = 50;
const MAX_PARAM_DOC_CHARS: usize = 300;

/// The virtual path of a tool's declaration file.
pub fn tool_dts_path(entry: &CatalogEntry) -> String {
    format!("tools/{}.d.ts", entry.callable_name())
}

/// The declaration file text. Client output schemas are untrusted claims, so a client
/// tool always returns `Promise<unknown>`.
pub fn tool_dts(entry: &CatalogEntry) -> String {
    let input = ts_type(entry.parameters());
    let output = match entry.source() {
        Source::Core => ts_type(entry.output_schema()),
        Source::Client => "unknown".to_owned(),
    };
    let optional = if input_optional(entry.parameters()) {
        "?"
    } else {
        ""
    };
    let mut out = String::from("/**\n");
    for line in entry.description().lines() {
        push_doc_line(&mut out, line);
    }
    let params = param_docs(entry.parameters());
    if !params.is_empty() && !entry.description().trim().is_empty() {
        out.push_str(" *\n");
    }
    for (name, doc) in params {
        push_doc_line(&mut out, &format!("@param input.{name} {doc}"));
    }
    out.push_str(" */\n");
    out.push_str(&format!(
        "declare function {}(input{optional}: {input}): Promise<{output}>;\n",
        entry.callable_name()
    ));
    out
}

/// The TypeScript type of a schema under declaration bounds; `unknown` when it is too
/// large to render whole.
pub fn declaration_type(schema: Option<&Value>) -> String {
    ts_type(schema)
}

fn ts_type(schema: Option<&Value>) -> String {
    match schema {
        None => "unknown".to_owned(),
        Some(schema) => {
            let r = render(schema, DTS, OpenObjects::IndexSignature);
            if r.overflow {
                "unknown".to_owned()
            } else {
                r.text
            }
        }
    }
}

/// Handles take `(input?)`: the argument may be left out when nothing is required.
fn input_optional(parameters: Option<&Value>) -> bool {
    match parameters {
        None => true,
        Some(Value::Object(m)) => m
            .get("required")
            .and_then(Value::as_array)
            .is_none_or(|r| r.is_empty()),
        Some(Value::Bool(accepts_anything)) => *accepts_anything,
        Some(_) => false,
    }
}

pub fn param_docs(parameters: Option<&Value>) -> Vec<(String, String)> {
    let Some(props) = parameters
        .and_then(|p| p.get("properties"))
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    let mut docs: Vec<(String, String)> = props
        .iter()
        .filter_map(|(name, schema)| {
            let doc = schema.get("description")?.as_str()?;
            let doc: String = doc.split_whitespace().collect::<Vec<_>>().join(" ");
            let doc: String = doc.chars().take(MAX_PARAM_DOC_CHARS).collect();
            // JSDoc names must be plain identifiers; other names stay in the type only.
            (super::ts_text::is_identifier(name) && !doc.is_empty()).then(|| (name.clone(), doc))
        })
        .take(MAX_PARAM_DOCS)
        .collect();
    docs.sort();
    docs
}

/// One ` * ` line; `*/` is escaped so a description can never end the comment.
pub fn push_doc_line(out: &mut String, line: &str) {
    let line = line
        .replace("*/", "*\\/")
        .replace(['\u{2028}', '\u{2029}', '\r'], " ");
    let line = line.trim_end();
    if line.is_empty() {
        out.push_str(" *\n");
    } else {
        out.push_str(" * ");
        out.push_str(line);
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_support::{client, tool};
    use super::super::{Catalog, ToolSpec};
    use super::*;

    fn dts(spec: ToolSpec) -> String {
        let c = Catalog::build(vec![spec], &[]);
        tool_dts(&c.entries()[0])
    }

    #[test]
    fn a_declaration_is_typed_from_both_schemas() {
        let mut t = tool("web-search");
        t.description = "Search the web.".into();
        t.parameters = Some(json!({"type":"object","required":["query"],"properties":{
            "query":{"type":"string","description":"What to look for."},
            "count":{"type":"integer","maximum":10}}}));
        t.output_schema = Some(json!({"type":"object","additionalProperties":false,
            "properties":{"urls":{"type":"array","items":{"type":"string"}}}}));
        assert_eq!(
            dts(t),
            "/**\n * Search the web.\n *\n * @param input.query What to look for.\n */\n\
             declare function web_search(input: { query: string; count?: number /* integer, <= 10 */; \
             [key: string]: unknown }): Promise<{ urls?: Array<string> }>;\n"
        );
    }

    #[test]
    fn a_comment_terminator_in_a_description_is_escaped() {
        let mut t = tool("x");
        t.description = "ends */ here\nsecond */".into();
        let text = dts(t);
        assert_eq!(text.matches("*/").count(), 1);
        assert!(text.contains(" * ends *\\/ here\n * second *\\/\n"));
    }

    #[test]
    fn client_tools_and_missing_schemas_return_unknown() {
        let mut t = client("c");
        t.output_schema = Some(json!({"type":"string"}));
        assert!(dts(t).ends_with("declare function c(input?: unknown): Promise<unknown>;\n"));
    }

    #[test]
    fn the_path_uses_the_callable_name() {
        let c = Catalog::build(vec![tool("llm-task")], &[]);
        assert_eq!(tool_dts_path(&c.entries()[0]), "tools/llm_task.d.ts");
    }

    #[test]
    fn oversized_schemas_become_unknown() {
        let props: serde_json::Map<String, Value> = (0..2000)
            .map(|i| {
                (
                    format!("{}_{i}", "long_property_name".repeat(3)),
                    json!({"type":"string"}),
                )
            })
            .collect();
        let mut t = tool("big");
        t.parameters = Some(json!({"type":"object","properties":props,"required":["x"]}));
        assert!(dts(t).contains("declare function big(input: unknown)"));
    }
}
