//! What an MCP tool call sends: one object argument, top-level schema defaults filled in
//! as own properties, every required property present.

use super::servers::McpTool;
use serde_json::{Map, Value};

impl McpTool {
    /// The arguments sent to the server: one object, top-level schema defaults added as
    /// own properties, every required property present.
    pub fn prepare_input(&self, input_json: &str) -> Result<String, String> {
        const ONE_OBJECT: &str = "MCP namespace tools accept one object argument.";
        let mut input: Map<String, Value> = match serde_json::from_str(input_json) {
            Ok(Value::Object(map)) => map,
            Ok(Value::Null) => Map::new(),
            _ => return Err(ONE_OBJECT.to_string()),
        };
        let schema = self.input_schema.as_ref();
        if let Some(props) = schema
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
        {
            for (key, prop) in props {
                if let Some(default) = prop.get("default") {
                    if !input.contains_key(key) {
                        input.insert(key.clone(), default.clone());
                    }
                }
            }
        }
        let missing = self.unmet_required(|key| input.contains_key(key));
        if !missing.is_empty() {
            return Err(format!(
                "Missing required MCP namespace argument(s): {}",
                missing.join(", ")
            ));
        }
        Ok(Value::Object(input).to_string())
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
    fn inputs_get_defaults_and_required_checks() {
        let c = catalog();
        let tool = c.servers[0].tool("readFile").unwrap();
        assert_eq!(
            tool.prepare_input(r#"{"path":"a"}"#),
            Ok(r#"{"path":"a","encoding":"utf8"}"#.into())
        );
        assert_eq!(
            tool.prepare_input(r#"{"path":"a","encoding":"base64"}"#),
            Ok(r#"{"path":"a","encoding":"base64"}"#.into())
        );
        assert_eq!(
            tool.prepare_input("null"),
            Err("Missing required MCP namespace argument(s): path".into())
        );
        assert_eq!(
            tool.prepare_input("[1]"),
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
            tool.prepare_input("{}"),
            Err("Missing required MCP namespace argument(s): dir".into())
        );
        assert_eq!(
            tool.prepare_input(r#"{"dir":"/"}"#),
            Ok(r#"{"dir":"/","depth":1}"#.into())
        );
    }
}
