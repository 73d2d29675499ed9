//! `resolveCodeModeConfig` (docs/contract.md, Config and activation): which activation
//! applies to one agent/model run, whether it engages, and the merged, clamped limits.
//! Decisions (what counts as explicit, model rows, merge order): docs/design.md, Config.

use crate::limits::Limits;
use serde_json::{json, Value};

/// A resolved activation setting: `tools.codeMode.enabled` after precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activation {
    Off,
    On,
    Auto,
}

impl Activation {
    fn to_json(self) -> Value {
        match self {
            Activation::Off => json!(false),
            Activation::On => json!(true),
            Activation::Auto => json!("auto"),
        }
    }
}

/// The run the config is resolved for (`ctx` of `resolveCodeModeConfig`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResolveContext {
    pub agent_id: Option<String>,
    /// `provider/model`, the key of model rows.
    pub model: Option<String>,
    /// The model's catalog `compat.codeMode` tier (`"preferred"`, `"capable"`).
    pub compat_code_mode: Option<String>,
    /// Tools effective for the run; `Some(0)` means a tool-free run.
    pub tool_count: Option<u64>,
}

impl ResolveContext {
    /// Reads `{ agentId?, model?, compat?: { codeMode? }, toolCount? }`; odd types count as absent.
    pub fn from_json(v: Option<&Value>) -> ResolveContext {
        let Some(v) = v else {
            return ResolveContext::default();
        };
        let text = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
        let tool_count = v.get("toolCount").and_then(|n| {
            n.as_u64().or_else(|| {
                n.as_f64()
                    .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                    .map(|f| f as u64)
            })
        });
        ResolveContext {
            agent_id: text("agentId"),
            model: text("model"),
            compat_code_mode: v
                .get("compat")
                .and_then(|c| c.get("codeMode"))
                .and_then(Value::as_str)
                .map(str::to_string),
            tool_count,
        }
    }
}

/// The result of `resolveCodeModeConfig`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub enabled: Activation,
    pub engaged: bool,
    pub limits: Limits,
}

impl Resolved {
    /// `{ enabled, engaged, limits }` as index.d.ts spells it.
    pub fn to_json(&self) -> Value {
        json!({
            "enabled": self.enabled.to_json(),
            "engaged": self.engaged,
            "limits": self.limits.to_json(),
        })
    }
}

/// Resolves activation and limits for one run (see the module docs for the rules).
pub fn resolve_code_mode_config(config: Option<&Value>, ctx: &ResolveContext) -> Resolved {
    let config = config.filter(|c| c.is_object());
    let global = config.and_then(|c| at(c, &["tools", "codeMode"]));
    let agent = match (config, ctx.agent_id.as_deref()) {
        (Some(c), Some(id)) => at(c, &["agents", "entries"]).and_then(|e| e.get(id)),
        _ => None,
    };
    let agent_tools = agent.and_then(|a| at(a, &["tools", "codeMode"]));
    let model_row = |owner| model_row(owner, ctx.model.as_deref());
    let defaults = config.and_then(|c| at(c, &["agents", "defaults"]));
    let enabled = model_activation(model_row(agent))
        .or_else(|| tools_activation(agent_tools))
        .or_else(|| model_activation(model_row(defaults)))
        .or_else(|| tools_activation(global))
        .unwrap_or(Activation::Off);
    let has_tools = ctx.tool_count != Some(0);
    let engaged = has_tools
        && match enabled {
            Activation::On => true,
            Activation::Auto => ctx.compat_code_mode.as_deref() == Some("preferred"),
            Activation::Off => false,
        };
    let layers = [
        global.filter(|g| g.is_object()),
        global.and_then(|g| g.get("limits")),
        agent_tools.filter(|a| a.is_object()),
        agent_tools.and_then(|a| a.get("limits")),
    ];
    Resolved {
        enabled,
        engaged,
        limits: Limits::from_layers(&layers),
    }
}

/// `owner.models[model].codeMode` (exact key).
fn model_row<'a>(owner: Option<&'a Value>, model: Option<&str>) -> Option<&'a Value> {
    owner?.get("models")?.get(model?)?.get("codeMode")
}

/// The value at a key path, `null` counting as absent.
fn at<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    keys.iter()
        .try_fold(v, |v, key| v.get(*key))
        .filter(|v| !v.is_null())
}

/// A `tools.codeMode` value's activation; `None` when it states none (absent, or an
/// object without `enabled`). Wrong types are explicit off.
fn tools_activation(v: Option<&Value>) -> Option<Activation> {
    let v = v?;
    match v {
        Value::Object(obj) => obj.get("enabled").filter(|e| !e.is_null()).map(shorthand),
        other => Some(shorthand(other)),
    }
}

fn shorthand(v: &Value) -> Activation {
    match v {
        Value::Bool(true) => Activation::On,
        Value::String(s) if s == "auto" => Activation::Auto,
        _ => Activation::Off,
    }
}

/// A model row's `codeMode`: booleans only; anything else states nothing.
fn model_activation(v: Option<&Value>) -> Option<Activation> {
    match v? {
        Value::Bool(true) => Some(Activation::On),
        Value::Bool(false) => Some(Activation::Off),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(agent: Option<&str>, model: Option<&str>, compat: Option<&str>) -> ResolveContext {
        ResolveContext {
            agent_id: agent.map(str::to_string),
            model: model.map(str::to_string),
            compat_code_mode: compat.map(str::to_string),
            tool_count: None,
        }
    }

    fn enabled(config: Value, c: &ResolveContext) -> Activation {
        resolve_code_mode_config(Some(&config), c).enabled
    }

    const M: &str = "openai/gpt-5";

    /// Every layer set, then each removed from the top: the next one decides.
    #[test]
    fn first_explicit_setting_wins_in_documented_order() {
        let full = |agent_model: Value, agent: Value, defaults_model: Value, global: Value| {
            json!({
                "tools": { "codeMode": global },
                "agents": {
                    "defaults": { "models": { M: { "codeMode": defaults_model } } },
                    "entries": { "main": {
                        "tools": { "codeMode": agent },
                        "models": { M: { "codeMode": agent_model } }
                    } }
                }
            })
        };
        let c = ctx(Some("main"), Some(M), None);
        let n = Value::Null;
        let table = [
            (
                json!(false),
                json!(true),
                json!(true),
                json!(true),
                Activation::Off,
            ),
            (
                json!(true),
                json!(false),
                json!(false),
                json!(false),
                Activation::On,
            ),
            (
                n.clone(),
                json!(false),
                json!(true),
                json!(true),
                Activation::Off,
            ),
            (
                n.clone(),
                json!("auto"),
                json!(false),
                json!(false),
                Activation::Auto,
            ),
            (
                n.clone(),
                n.clone(),
                json!(true),
                json!(false),
                Activation::On,
            ),
            (
                n.clone(),
                n.clone(),
                json!(false),
                json!(true),
                Activation::Off,
            ),
            (
                n.clone(),
                n.clone(),
                n.clone(),
                json!("auto"),
                Activation::Auto,
            ),
            (n.clone(), n.clone(), n.clone(), n.clone(), Activation::Off),
        ];
        for (am, a, dm, g, want) in table {
            let config = full(am.clone(), a.clone(), dm.clone(), g.clone());
            assert_eq!(enabled(config, &c), want, "{am} {a} {dm} {g}");
        }
    }

    #[test]
    fn object_without_enabled_inherits_and_defaults_off() {
        let c = ctx(Some("main"), None, None);
        let global_on = json!({
            "tools": { "codeMode": true },
            "agents": { "entries": { "main": { "tools": { "codeMode": { "timeoutMs": 500 } } } } }
        });
        assert_eq!(enabled(global_on, &c), Activation::On);
        let only_limits = json!({ "tools": { "codeMode": { "timeoutMs": 500 } } });
        assert_eq!(enabled(only_limits, &c), Activation::Off);
    }

    #[test]
    fn shorthands_and_object_forms_agree() {
        let c = ResolveContext::default();
        for (short, want) in [
            (json!(true), Activation::On),
            (json!(false), Activation::Off),
            (json!("auto"), Activation::Auto),
        ] {
            let as_object = json!({ "tools": { "codeMode": { "enabled": short.clone() } } });
            assert_eq!(enabled(as_object, &c), want);
            assert_eq!(enabled(json!({ "tools": { "codeMode": short } }), &c), want);
        }
        assert_eq!(
            enabled(json!({ "tools": { "codeMode": "yes" } }), &c),
            Activation::Off
        );
        assert_eq!(
            enabled(json!({ "tools": { "codeMode": { "enabled": 1 } } }), &c),
            Activation::Off
        );
    }

    #[test]
    fn auto_engages_only_for_preferred_models() {
        let config = json!({ "tools": { "codeMode": "auto" } });
        for (compat, want) in [
            (Some("preferred"), true),
            (Some("capable"), false),
            (None, false),
        ] {
            let r = resolve_code_mode_config(Some(&config), &ctx(None, Some(M), compat));
            assert_eq!((r.enabled, r.engaged), (Activation::Auto, want));
        }
    }

    #[test]
    fn model_rows_accept_booleans_only_and_exact_keys() {
        let config = json!({
            "tools": { "codeMode": true },
            "agents": { "defaults": { "models": {
                "openai/*": { "codeMode": false },
                "openai/gpt-4": { "codeMode": "auto" }
            } } }
        });
        assert_eq!(
            enabled(config.clone(), &ctx(None, Some(M), None)),
            Activation::On
        );
        assert_eq!(
            enabled(config, &ctx(None, Some("openai/gpt-4"), None)),
            Activation::On
        );
    }

    #[test]
    fn tool_free_runs_never_engage() {
        let config = json!({ "tools": { "codeMode": true } });
        let mut c = ResolveContext::default();
        assert!(resolve_code_mode_config(Some(&config), &c).engaged);
        c.tool_count = Some(0);
        let r = resolve_code_mode_config(Some(&config), &c);
        assert_eq!((r.enabled, r.engaged), (Activation::On, false));
    }

    #[test]
    fn limits_merge_global_then_agent_and_clamp() {
        let config = json!({
            "tools": { "codeMode": { "enabled": true, "timeoutMs": 2000, "maxOutputBytes": 5 } },
            "agents": {
                "defaults": { "models": { M: { "codeMode": false, "timeoutMs": 1 } } },
                "entries": { "main": { "tools": { "codeMode": { "timeoutMs": 90000, "limits": { "maxPendingToolCalls": 4 } } } } }
            }
        });
        let r = resolve_code_mode_config(Some(&config), &ctx(Some("main"), Some(M), None));
        assert_eq!(r.enabled, Activation::Off);
        assert_eq!(r.limits.timeout_ms, 60_000);
        assert_eq!(r.limits.max_output_bytes, 1024);
        assert_eq!(r.limits.max_pending_tool_calls, 4);
        let other = resolve_code_mode_config(Some(&config), &ctx(Some("other"), None, None));
        assert_eq!(
            (other.enabled, other.limits.timeout_ms),
            (Activation::On, 2000)
        );
    }

    #[test]
    fn odd_configs_resolve_to_off_with_defaults() {
        for config in [
            json!(null),
            json!(3),
            json!([]),
            json!({ "tools": 1 }),
            json!({ "agents": { "entries": [] } }),
        ] {
            let r = resolve_code_mode_config(Some(&config), &ctx(Some("main"), Some(M), None));
            assert_eq!((r.enabled, r.engaged), (Activation::Off, false));
            assert_eq!(r.limits, Limits::default());
        }
        assert_eq!(
            resolve_code_mode_config(None, &ResolveContext::default()).enabled,
            Activation::Off
        );
    }

    #[test]
    fn context_reads_documented_fields() {
        let c = ResolveContext::from_json(Some(&json!({
            "agentId": "a", "model": M, "compat": { "codeMode": "preferred" }, "toolCount": 0.0
        })));
        assert_eq!(
            c,
            ResolveContext {
                agent_id: Some("a".into()),
                model: Some(M.into()),
                compat_code_mode: Some("preferred".into()),
                tool_count: Some(0),
            }
        );
        assert_eq!(
            ResolveContext::from_json(Some(&json!({ "agentId": 3, "toolCount": -1 }))),
            ResolveContext::default()
        );
    }
}
