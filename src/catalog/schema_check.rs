//! Construction-time check of tool schemas: a `parameters` or `outputSchema` the contract
//! checks could not compile is refused when the tool is registered, naming its path,
//! rather than failing only once the model calls the tool.

use super::ToolSpec;

/// The first tool in `tools` (registered under `path[i]`) whose `parameters` or
/// `outputSchema` is not a valid JSON Schema, as an `invalid_input` message.
pub fn check_tool_schemas(tools: &[ToolSpec], path: &str) -> Result<(), String> {
    for (i, tool) in tools.iter().enumerate() {
        let schemas = [
            ("parameters", &tool.parameters),
            ("outputSchema", &tool.output_schema),
        ];
        for (key, schema) in schemas {
            let Some(schema) = schema else { continue };
            if let Err(error) = jsonschema::validator_for(schema) {
                return Err(format!(
                    "{path}[{i}].{key} is not a valid JSON Schema: {}",
                    bounded(&error.to_string())
                ));
            }
        }
    }
    Ok(())
}

/// The validator's text, cut to a line a model or log can carry.
fn bounded(text: &str) -> String {
    const MAX: usize = 300;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Source;
    use serde_json::{json, Value};

    fn tool(parameters: Option<Value>, output_schema: Option<Value>) -> ToolSpec {
        ToolSpec {
            name: "t".into(),
            description: String::new(),
            label: None,
            parameters,
            output_schema,
            source: Source::Core,
            direct_only: false,
            replay_safe: false,
            control: false,
        }
    }

    #[test]
    fn ordinary_schemas_pass() {
        let zod_like = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": { "q": { "type": "string" } },
            "required": ["q"],
            "additionalProperties": false
        });
        let tools = [tool(Some(zod_like), Some(json!(true))), tool(None, None)];
        assert_eq!(check_tool_schemas(&tools, "tools"), Ok(()));
    }

    #[test]
    fn an_invalid_schema_is_named_by_its_path() {
        let tools = [
            tool(None, None),
            tool(
                Some(json!({ "type": "object" })),
                Some(json!({ "type": 12 })),
            ),
        ];
        let error = check_tool_schemas(&tools, "tools").unwrap_err();
        assert!(
            error.starts_with("tools[1].outputSchema is not a valid JSON Schema: "),
            "{error}"
        );
    }
}
