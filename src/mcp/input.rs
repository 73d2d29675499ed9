//! What an MCP tool call sends: one object argument, top-level schema defaults filled in
//! as own properties, every required property present.

use super::servers::McpTool;
use serde::de::IgnoredAny;
use serde_json::{Map, Value};
use std::collections::HashMap;

const ONE_OBJECT: &str = "MCP namespace tools accept one object argument.";

fn missing_message(missing: &[&str]) -> String {
    format!(
        "Missing required MCP namespace argument(s): {}",
        missing.join(", ")
    )
}

impl McpTool {
    /// The arguments sent to the server: one object, top-level schema defaults added as
    /// own properties, every required property present.
    pub fn prepare_input(&self, input_json: String) -> Result<String, String> {
        let defaults = self.defaults();
        if defaults.is_empty() {
            // Nothing to add: only the top-level keys are read (values are skipped, not
            // built), and the text goes on as the guest sent it.
            let keys =
                match serde_json::from_str::<Option<HashMap<String, IgnoredAny>>>(&input_json) {
                    Ok(keys) => keys,
                    Err(_) => return Err(ONE_OBJECT.to_string()),
                };
            let missing =
                self.unmet_required(|key| keys.as_ref().is_some_and(|k| k.contains_key(key)));
            return match (missing.is_empty(), keys) {
                (false, _) => Err(missing_message(&missing)),
                (true, None) => Ok("{}".to_string()),
                (true, Some(_)) => Ok(input_json),
            };
        }
        let mut input: Map<String, Value> = match serde_json::from_str(&input_json) {
            Ok(Value::Object(map)) => map,
            Ok(Value::Null) => Map::new(),
            _ => return Err(ONE_OBJECT.to_string()),
        };
        for (key, default) in defaults {
            if !input.contains_key(key) {
                input.insert(key.clone(), default.clone());
            }
        }
        let missing = self.unmet_required(|key| input.contains_key(key));
        if !missing.is_empty() {
            return Err(missing_message(&missing));
        }
        Ok(Value::Object(input).to_string())
    }

    /// The top-level properties with a schema default, and that default.
    fn defaults(&self) -> Vec<(&String, &Value)> {
        self.input_schema
            .as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(key, prop)| prop.get("default").map(|default| (key, default)))
            .collect()
    }

    /// The required properties without a schema default: what a caller must pass.
    pub fn required_without_default(&self) -> Vec<&str> {
        self.unmet_required(|_| false)
    }

    /// Required properties that have no default and that `present` does not hold.
    fn unmet_required(&self, present: impl Fn(&str) -> bool) -> Vec<&str> {
        let schema = self.input_schema.as_ref();
        let props = schema
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object);
        let defaulted = |key: &str| {
            props
                .and_then(|p| p.get(key))
                .is_some_and(|prop| prop.get("default").is_some())
        };
        schema
            .and_then(|s| s.get("required"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|key| !defaulted(key) && !present(key))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::servers::McpCatalog;
    use serde_json::json;

    fn catalog() -> McpCatalog {
        McpCatalog::from_report(&json!({ "servers": [{ "name": "fs", "tools": [
            { "name": "read_file", "hostIndex": 0,
              "inputSchema": { "type": "object", "required": ["path"],
                "properties": { "path": { "type": "string" }, "encoding": { "type": "string", "default": "utf8" } } } }
        ] }] }))
    }

    #[test]
    fn without_defaults_the_text_passes_unchanged_after_the_checks() {
        let c = McpCatalog::from_report(&json!({ "servers": [{ "name": "fs", "tools": [
            { "name": "read", "hostIndex": 0,
              "inputSchema": { "type": "object", "required": ["path"], "properties": { "path": { "type": "string" } } } }
        ] }] }));
        let tool = c.servers[0].tool("read").unwrap();
        let escaped = r#"{"p\u0061th":"a","big":[1,{"x":null}]}"#;
        assert_eq!(tool.prepare_input(escaped.into()), Ok(escaped.into()));
        assert_eq!(
            tool.prepare_input(r#"{"paths":"a"}"#.into()),
            Err("Missing required MCP namespace argument(s): path".into())
        );
        assert_eq!(
            tool.prepare_input("5".into()),
            Err("MCP namespace tools accept one object argument.".into())
        );
        let open = McpCatalog::from_report(
            &json!({ "servers": [{ "name": "fs", "tools": [{ "name": "ls", "hostIndex": 0 }] }] }),
        );
        assert_eq!(
            open.servers[0].tools[0].prepare_input("null".into()),
            Ok("{}".into())
        );
    }

    #[test]
    fn inputs_get_defaults_and_required_checks() {
        let c = catalog();
        let tool = c.servers[0].tool("readFile").unwrap();
        assert_eq!(
            tool.prepare_input(r#"{"path":"a"}"#.into()),
            Ok(r#"{"path":"a","encoding":"utf8"}"#.into())
        );
        assert_eq!(
            tool.prepare_input(r#"{"path":"a","encoding":"base64"}"#.into()),
            Ok(r#"{"path":"a","encoding":"base64"}"#.into())
        );
        assert_eq!(
            tool.prepare_input("null".into()),
            Err("Missing required MCP namespace argument(s): path".into())
        );
        assert_eq!(
            tool.prepare_input("[1]".into()),
            Err("MCP namespace tools accept one object argument.".into())
        );
        // A required property with a default is not the caller's to pass.
        let c = McpCatalog::from_report(&json!({ "servers": [{ "name": "fs", "tools": [
            { "name": "list", "hostIndex": 0,
              "inputSchema": { "type": "object", "required": ["dir", "depth", 7],
                "properties": { "depth": { "type": "number", "default": 1 } } } }
        ] }] }));
        let tool = c.servers[0].tool("list").unwrap();
        assert_eq!(tool.required_without_default(), ["dir"]);
        assert_eq!(
            tool.prepare_input("{}".into()),
            Err("Missing required MCP namespace argument(s): dir".into())
        );
        assert_eq!(
            tool.prepare_input(r#"{"dir":"/"}"#.into()),
            Ok(r#"{"dir":"/","depth":1}"#.into())
        );
    }
}
