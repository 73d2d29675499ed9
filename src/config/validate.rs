//! `validateCodeModeConfig` (docs/contract.md, Config and activation): every problem in
//! the code-mode parts of a gateway config as `"<path>: <problem>"`, in document order;
//! `[]` when it is fine. Never panics on odd shapes.

use super::path::{child, index};
use crate::limits::{check_limit, LimitCheck};
use serde_json::{Map, Value};

/// Keys of a `codeMode` object that are not limits but are understood.
const SETTING_KEYS: [&str; 4] = ["enabled", "limits", "runtime", "mode"];

/// The problems of `config`; `None` (JS `undefined`) and `null` are an empty config.
pub fn validate_code_mode_config(config: Option<&Value>) -> Vec<String> {
    let mut problems = Vec::new();
    let config = match config {
        None | Some(Value::Null) => return problems,
        Some(Value::Object(config)) => config,
        Some(_) => {
            problems.push("config: must be an object.".into());
            return problems;
        }
    };
    if let Some(tools) = object_at(config, "tools", "tools", &mut problems) {
        check_code_mode(tools, "tools", &mut problems);
    }
    let Some(agents) = object_at(config, "agents", "agents", &mut problems) else {
        return problems;
    };
    if let Some(defaults) = object_at(agents, "defaults", "agents.defaults", &mut problems) {
        check_model_rows(defaults, "agents.defaults", &mut problems);
    }
    if let Some(entries) = object_at(agents, "entries", "agents.entries", &mut problems) {
        for (id, entry) in entries {
            let at = child("agents.entries", id);
            let Some(entry) = as_object(entry, &at, &mut problems) else {
                continue;
            };
            if let Some(tools) = object_at(entry, "tools", &child(&at, "tools"), &mut problems) {
                check_code_mode(tools, &child(&at, "tools"), &mut problems);
            }
            check_model_rows(entry, &at, &mut problems);
        }
    }
    problems
}

/// `parent[key]` as an object; absent/null is `None`, another type is a problem.
fn object_at<'a>(
    parent: &'a Map<String, Value>,
    key: &str,
    path: &str,
    problems: &mut Vec<String>,
) -> Option<&'a Map<String, Value>> {
    as_object(parent.get(key)?, path, problems)
}

fn as_object<'a>(
    v: &'a Value,
    path: &str,
    problems: &mut Vec<String>,
) -> Option<&'a Map<String, Value>> {
    match v {
        Value::Null => None,
        Value::Object(obj) => Some(obj),
        _ => {
            problems.push(format!("{path}: must be an object."));
            None
        }
    }
}

/// `<owner>.tools.codeMode`: a shorthand or an object of settings and limits.
fn check_code_mode(tools: &Map<String, Value>, tools_path: &str, problems: &mut Vec<String>) {
    let path = child(tools_path, "codeMode");
    match tools.get("codeMode") {
        None | Some(Value::Null) | Some(Value::Bool(_)) => {}
        Some(Value::String(s)) if s == "auto" => {}
        Some(Value::Object(obj)) => {
            if let Some(enabled) = obj.get("enabled").filter(|v| !v.is_null()) {
                if !is_activation(enabled) {
                    problems.push(format!(
                        "{}: must be true, false or \"auto\" (got {}); code mode stays off.",
                        child(&path, "enabled"),
                        brief(enabled)
                    ));
                }
            }
            check_limits(obj, &path, true, problems);
            if let Some(limits) = object_at(obj, "limits", &child(&path, "limits"), problems) {
                check_limits(limits, &child(&path, "limits"), false, problems);
            }
        }
        Some(other) => problems.push(format!(
            "{path}: must be true, false, \"auto\" or an object with enabled (got {}); code mode stays off.",
            brief(other)
        )),
    }
}

fn check_limits(
    obj: &Map<String, Value>,
    path: &str,
    settings_allowed: bool,
    problems: &mut Vec<String>,
) {
    for (key, value) in obj {
        if settings_allowed && SETTING_KEYS.contains(&key.as_str()) {
            continue;
        }
        match check_limit(key, value) {
            LimitCheck::Fine => {}
            LimitCheck::Problem(text) => problems.push(format!("{}: {text}.", child(path, key))),
            LimitCheck::Unknown => problems.push(format!(
                "{}: unknown code mode setting (ignored).",
                child(path, key)
            )),
        }
    }
}

/// `<owner>.models["provider/model"].codeMode`: exact rows, booleans only.
fn check_model_rows(owner: &Map<String, Value>, owner_path: &str, problems: &mut Vec<String>) {
    let models_path = child(owner_path, "models");
    let Some(models) = object_at(owner, "models", &models_path, problems) else {
        return;
    };
    for (model, row) in models {
        let row_path = index(&models_path, model);
        let Some(row) = as_object(row, &row_path, problems) else {
            continue;
        };
        let Some(value) = row.get("codeMode").filter(|v| !v.is_null()) else {
            continue;
        };
        let path = child(&row_path, "codeMode");
        if model.contains('*') {
            problems.push(format!(
                "{path}: wildcard model rows cannot set codeMode; set it on each exact \"provider/model\" row."
            ));
        } else if value.as_str() == Some("auto") {
            problems.push(format!(
                "{path}: \"auto\" is not allowed on a model row (true or false only); set \"auto\" on tools.codeMode instead."
            ));
        } else if !value.is_boolean() {
            problems.push(format!(
                "{path}: must be true or false (got {}); the row is ignored.",
                brief(value)
            ));
        }
    }
}

fn is_activation(v: &Value) -> bool {
    v.is_boolean() || v.as_str() == Some("auto")
}

/// A short rendering of an offending value (long ones are cut).
fn brief(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 40 {
        return text;
    }
    let cut: String = text.chars().take(37).collect();
    format!("{cut}...")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(config: Value) -> Vec<String> {
        validate_code_mode_config(Some(&config))
    }

    #[test]
    fn valid_configs_have_no_problems() {
        assert!(problems(json!({})).is_empty());
        assert!(validate_code_mode_config(None).is_empty());
        let ok = json!({
            "tools": { "codeMode": { "enabled": "auto", "timeoutMs": 5000, "languages": ["javascript"], "runtime": "quickjs-wasi" } },
            "agents": {
                "defaults": { "models": { "openai/gpt-5": { "codeMode": true }, "openai/*": { "agentRuntime": {} } } },
                "entries": { "main": { "tools": { "codeMode": false }, "models": { "x/y": { "codeMode": false } } } }
            }
        });
        assert_eq!(problems(ok), Vec::<String>::new());
    }

    #[test]
    fn wildcard_and_auto_model_rows_are_reported_with_their_paths() {
        let p = problems(json!({ "agents": {
            "defaults": { "models": { "openai/*": { "codeMode": true }, "a/b": { "codeMode": "auto" } } },
            "entries": { "my-agent": { "models": { "c/d": { "codeMode": 1 } } } }
        } }));
        assert_eq!(p.len(), 3);
        assert!(
            p[0].starts_with(r#"agents.defaults.models["openai/*"].codeMode: wildcard model rows"#),
            "{p:?}"
        );
        assert!(
            p[1].starts_with(r#"agents.defaults.models["a/b"].codeMode: "auto" is not allowed"#)
        );
        assert!(p[2].starts_with(
            r#"agents.entries["my-agent"].models["c/d"].codeMode: must be true or false (got 1)"#
        ));
    }

    #[test]
    fn invalid_activation_values_are_reported() {
        let p = problems(json!({
            "tools": { "codeMode": "on" },
            "agents": { "entries": { "main": { "tools": { "codeMode": { "enabled": "yes" } } } } }
        }));
        assert_eq!(p, vec![
            "tools.codeMode: must be true, false, \"auto\" or an object with enabled (got \"on\"); code mode stays off.".to_string(),
            "agents.entries.main.tools.codeMode.enabled: must be true, false or \"auto\" (got \"yes\"); code mode stays off.".to_string(),
        ]);
    }

    #[test]
    fn limit_values_and_unknown_keys_are_reported() {
        let p = problems(json!({ "tools": { "codeMode": {
            "timeoutMs": 1.5, "maxPendingToolCalls": 500, "languages": [], "timeOutMs": 3,
            "limits": { "enabled": true }
        } } }));
        assert_eq!(p, vec![
            "tools.codeMode.timeoutMs: must be a positive integer (got 1.5); the default 10000 applies.".to_string(),
            "tools.codeMode.maxPendingToolCalls: 500 is outside 1..128 and is clamped to 128.".to_string(),
            "tools.codeMode.languages: must be a non-empty array of \"javascript\" and \"typescript\"; both languages apply.".to_string(),
            "tools.codeMode.timeOutMs: unknown code mode setting (ignored).".to_string(),
            "tools.codeMode.limits.enabled: unknown code mode setting (ignored).".to_string(),
        ]);
    }

    #[test]
    fn wrong_container_types_are_reported() {
        assert_eq!(
            problems(json!(5)),
            vec!["config: must be an object.".to_string()]
        );
        assert_eq!(
            problems(json!({ "tools": [], "agents": { "entries": { "a": 1 } } })),
            vec![
                "tools: must be an object.".to_string(),
                "agents.entries.a: must be an object.".to_string()
            ]
        );
    }
}
