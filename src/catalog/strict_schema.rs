//! `modelTools({ strict: true })`: the `exec` and `wait` schemas in the form OpenAI strict
//! function calling takes (every property required, optional ones nullable, no extra
//! properties). Exec input already reads `null` as absent, so no other change is needed.

use serde_json::{json, Value};

/// `tools` (as `model_tools` builds them) with strict `exec` and `wait` entries marked
/// `strict: true`; direct-only tools keep the schema their host gave.
pub fn strict_model_tools(tools: Value) -> Value {
    let Value::Array(tools) = tools else {
        return tools;
    };
    let strict = tools.into_iter().map(|mut tool| {
        let control = matches!(
            tool.get("name").and_then(Value::as_str),
            Some("exec" | "wait")
        );
        if control {
            if let Some(parameters) = tool.get_mut("parameters") {
                *parameters = strict_parameters(parameters);
            }
            tool["strict"] = Value::Bool(true);
        }
        tool
    });
    Value::Array(strict.collect())
}

/// An object schema with every property required; a property that was optional accepts
/// `null` too (in `type` and in `enum`).
pub fn strict_parameters(schema: &Value) -> Value {
    let mut out = schema.clone();
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let Some(properties) = out.get_mut("properties").and_then(Value::as_object_mut) else {
        return out;
    };
    let mut names = Vec::with_capacity(properties.len());
    for (name, property) in properties.iter_mut() {
        names.push(Value::from(name.as_str()));
        if !required.contains(name) {
            nullable(property);
        }
    }
    out["required"] = Value::Array(names);
    out["additionalProperties"] = Value::Bool(false);
    out
}

fn nullable(property: &mut Value) {
    match property.get("type").cloned() {
        Some(Value::String(t)) if t != "null" => property["type"] = json!([t, "null"]),
        Some(Value::Array(mut types)) if !types.contains(&json!("null")) => {
            types.push(json!("null"));
            property["type"] = Value::Array(types);
        }
        _ => {}
    }
    if let Some(values) = property.get_mut("enum").and_then(Value::as_array_mut) {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_properties_become_required_and_nullable() {
        let schema = json!({
            "type": "object",
            "properties": {
                "code": { "type": "string" },
                "language": { "type": "string", "enum": ["javascript", "typescript"] },
                "restartSafe": { "type": "boolean" }
            },
            "required": ["code"],
            "additionalProperties": false
        });
        let strict = strict_parameters(&schema);
        assert_eq!(
            strict["required"],
            json!(["code", "language", "restartSafe"])
        );
        assert_eq!(strict["properties"]["code"], json!({ "type": "string" }));
        assert_eq!(
            strict["properties"]["language"],
            json!({ "type": ["string", "null"], "enum": ["javascript", "typescript", null] })
        );
        assert_eq!(
            strict["properties"]["restartSafe"]["type"],
            json!(["boolean", "null"])
        );
        assert_eq!(strict["additionalProperties"], json!(false));
    }

    #[test]
    fn only_exec_and_wait_are_marked_strict() {
        let tools = json!([
            { "name": "exec", "parameters": { "type": "object", "properties": { "code": { "type": "string" } }, "required": ["code"] } },
            { "name": "wait", "parameters": { "type": "object", "properties": { "runId": { "type": "string" } }, "required": ["runId"] } },
            { "name": "ask", "parameters": { "type": "object", "properties": { "q": { "type": "string" } } } }
        ]);
        let strict = strict_model_tools(tools);
        assert_eq!(strict[0]["strict"], json!(true));
        assert_eq!(strict[1]["strict"], json!(true));
        assert_eq!(
            strict[1]["parameters"]["additionalProperties"],
            json!(false)
        );
        assert_eq!(strict[2].get("strict"), None);
        assert_eq!(
            strict[2]["parameters"]["properties"]["q"],
            json!({ "type": "string" })
        );
    }
}
