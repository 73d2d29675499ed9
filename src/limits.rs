//! Every user limit (docs/contract.md, Limits and clamps): `CodeModeLimits` here; the runtime's,
//! headless scripts' and the JS glue's in `host`. Not user limits, so left where they act:
//! `pool::MAX_QUEUED_STARTS`, `pool::MAX_REPLACED_WORKERS`, `run::state::MAX_QUEUED`.

use serde_json::{Map, Value};

mod check;
mod host;
pub use check::{check_limit, check_session_limits, LimitCheck, LIMIT_KEYS};
pub use host::*;

const MIB: u64 = 1024 * 1024;

/// One numeric limit: its JSON key, documented default and inclusive clamp range.
struct Bound {
    key: &'static str,
    default: u64,
    min: u64,
    max: u64,
}

const fn bound(key: &'static str, default: u64, min: u64, max: u64) -> Bound {
    Bound {
        key,
        default,
        min,
        max,
    }
}

const TIMEOUT_MS: Bound = bound("timeoutMs", 10_000, 100, MAX_TIMEOUT_MS);
/// The longest `timeoutMs`: no cell's guest computes longer than this in one turn.
pub const MAX_TIMEOUT_MS: u64 = 60_000;
const MEMORY_LIMIT_BYTES: Bound = bound("memoryLimitBytes", 64 * MIB, MIB, 1024 * MIB);
const MAX_OUTPUT_BYTES: Bound = bound("maxOutputBytes", 65_536, 1024, 10 * MIB);
const MAX_SNAPSHOT_BYTES: Bound = bound("maxSnapshotBytes", 10 * MIB, 1024, 256 * MIB);
const MAX_PENDING_TOOL_CALLS: Bound = bound("maxPendingToolCalls", 16, 1, 128);
// A tool's input is parsed on the gateway's Node thread, in one piece.
const MAX_TOOL_INPUT_BYTES: Bound = bound("maxToolInputBytes", MIB, 1024, 64 * MIB);
const SNAPSHOT_TTL_SECONDS: Bound = bound("snapshotTtlSeconds", 900, 1, 86_400);
// Also bounded by the effective `maxSearchLimit`, applied after resolution.
const SEARCH_DEFAULT_LIMIT: Bound = bound("searchDefaultLimit", 8, 1, 50);
const MAX_SEARCH_LIMIT: Bound = bound("maxSearchLimit", 50, 1, 50);
const LANGUAGES_KEY: &str = "languages";

/// Guest languages a session accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Languages {
    pub javascript: bool,
    pub typescript: bool,
}

impl Default for Languages {
    fn default() -> Self {
        Languages {
            javascript: true,
            typescript: true,
        }
    }
}

impl Languages {
    /// Whether `language` (`"javascript"` or `"typescript"`) is enabled.
    pub fn allows(&self, language: &str) -> bool {
        match language {
            "javascript" => self.javascript,
            "typescript" => self.typescript,
            _ => false,
        }
    }

    /// Parses a non-empty array of known language names; `None` for anything else.
    fn from_json(v: &Value) -> Option<Languages> {
        let items = v.as_array().filter(|items| !items.is_empty())?;
        let mut langs = Languages {
            javascript: false,
            typescript: false,
        };
        for item in items {
            match item.as_str()? {
                "javascript" => langs.javascript = true,
                "typescript" => langs.typescript = true,
                _ => return None,
            }
        }
        Some(langs)
    }

    /// The enabled names, in a fixed order: `["javascript", "typescript"]` or one of them.
    pub fn to_json(self) -> Value {
        let names = [
            ("javascript", self.javascript),
            ("typescript", self.typescript),
        ];
        let enabled = names.iter().filter(|(_, on)| *on);
        Value::Array(enabled.map(|(name, _)| Value::from(*name)).collect())
    }
}

/// Resolved limits of a session. Invariant: every field is in range, at least one language
/// is enabled, and `search_default_limit <= max_search_limit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    pub timeout_ms: u64,
    pub memory_limit_bytes: u64,
    pub max_output_bytes: u64,
    pub max_snapshot_bytes: u64,
    pub max_pending_tool_calls: u32,
    pub max_tool_input_bytes: u64,
    pub snapshot_ttl_seconds: u64,
    pub search_default_limit: u32,
    pub max_search_limit: u32,
    pub languages: Languages,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout_ms: TIMEOUT_MS.default,
            memory_limit_bytes: MEMORY_LIMIT_BYTES.default,
            max_output_bytes: MAX_OUTPUT_BYTES.default,
            max_snapshot_bytes: MAX_SNAPSHOT_BYTES.default,
            max_pending_tool_calls: to_u32(MAX_PENDING_TOOL_CALLS.default),
            max_tool_input_bytes: MAX_TOOL_INPUT_BYTES.default,
            snapshot_ttl_seconds: SNAPSHOT_TTL_SECONDS.default,
            search_default_limit: to_u32(SEARCH_DEFAULT_LIMIT.default),
            max_search_limit: to_u32(MAX_SEARCH_LIMIT.default),
            languages: Languages::default(),
        }
    }
}

impl Limits {
    /// Resolves a `CodeModeLimits`-shaped object; `None` or a non-object gives the defaults.
    pub fn from_json(v: Option<&Value>) -> Limits {
        let defaults = Limits::default();
        match v {
            Some(v) => defaults.merge(v),
            None => defaults,
        }
    }

    /// Resolves several config layers, later ones winning key by key (global, then
    /// agent). Unlike chained `merge`, this sees the raw `searchDefaultLimit` of every
    /// layer, so a value clamped by an earlier layer's `maxSearchLimit` can recover.
    pub fn from_layers(layers: &[Option<&Value>]) -> Limits {
        let mut merged = Map::new();
        for layer in layers.iter().flatten() {
            if let Some(obj) = layer.as_object() {
                for (key, value) in obj {
                    if !value.is_null() {
                        merged.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        Limits::from_json(Some(&Value::Object(merged)))
    }

    /// Applies `overrides` on top of `self`: an absent (or `null`) key keeps `self`'s
    /// value, a present key follows the resolution rules (an invalid value means the
    /// documented default, not `self`'s). A non-object override changes nothing.
    pub fn merge(&self, overrides: &Value) -> Limits {
        let Some(obj) = overrides.as_object() else {
            return self.clone();
        };
        let max_search_limit = pick(obj, &MAX_SEARCH_LIMIT, self.max_search_limit.into());
        let search_default_limit =
            pick(obj, &SEARCH_DEFAULT_LIMIT, self.search_default_limit.into())
                .min(max_search_limit);
        let languages = match present(obj, LANGUAGES_KEY) {
            None => self.languages,
            Some(v) => Languages::from_json(v).unwrap_or_default(),
        };
        Limits {
            timeout_ms: pick(obj, &TIMEOUT_MS, self.timeout_ms),
            memory_limit_bytes: pick(obj, &MEMORY_LIMIT_BYTES, self.memory_limit_bytes),
            max_output_bytes: pick(obj, &MAX_OUTPUT_BYTES, self.max_output_bytes),
            max_snapshot_bytes: pick(obj, &MAX_SNAPSHOT_BYTES, self.max_snapshot_bytes),
            max_pending_tool_calls: to_u32(pick(
                obj,
                &MAX_PENDING_TOOL_CALLS,
                self.max_pending_tool_calls.into(),
            )),
            max_tool_input_bytes: pick(obj, &MAX_TOOL_INPUT_BYTES, self.max_tool_input_bytes),
            snapshot_ttl_seconds: pick(obj, &SNAPSHOT_TTL_SECONDS, self.snapshot_ttl_seconds),
            search_default_limit: to_u32(search_default_limit),
            max_search_limit: to_u32(max_search_limit),
            languages,
        }
    }

    /// `Required<CodeModeLimits>` as JSON: camelCase keys, `languages` as an array.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert(TIMEOUT_MS.key.into(), self.timeout_ms.into());
        m.insert(
            MEMORY_LIMIT_BYTES.key.into(),
            self.memory_limit_bytes.into(),
        );
        m.insert(MAX_OUTPUT_BYTES.key.into(), self.max_output_bytes.into());
        m.insert(
            MAX_SNAPSHOT_BYTES.key.into(),
            self.max_snapshot_bytes.into(),
        );
        m.insert(
            MAX_PENDING_TOOL_CALLS.key.into(),
            self.max_pending_tool_calls.into(),
        );
        m.insert(
            MAX_TOOL_INPUT_BYTES.key.into(),
            self.max_tool_input_bytes.into(),
        );
        m.insert(
            SNAPSHOT_TTL_SECONDS.key.into(),
            self.snapshot_ttl_seconds.into(),
        );
        m.insert(
            SEARCH_DEFAULT_LIMIT.key.into(),
            self.search_default_limit.into(),
        );
        m.insert(MAX_SEARCH_LIMIT.key.into(), self.max_search_limit.into());
        m.insert(LANGUAGES_KEY.into(), self.languages.to_json());
        Value::Object(m)
    }
}

/// The value under `key`, treating `null` like an absent key (a JS `undefined` field may
/// arrive as `null`, and must not reset an inherited value).
fn present<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

/// Absent → `fallback`; a positive integer → clamped into range; anything else → default.
fn pick(obj: &Map<String, Value>, bound: &Bound, fallback: u64) -> u64 {
    match present(obj, bound.key) {
        None => fallback,
        Some(v) => positive_integer(v).map_or(bound.default, |n| n.clamp(bound.min, bound.max)),
    }
}

/// A JSON number that is a positive integer. Integral floats count (JS has only
/// doubles: `1000.0` is the integer 1000); ones beyond `u64` saturate, then clamp.
fn positive_integer(v: &Value) -> Option<u64> {
    let n = v.as_number()?;
    if let Some(u) = n.as_u64() {
        return (u > 0).then_some(u);
    }
    if n.is_i64() {
        return None; // negative integer
    }
    let f = n.as_f64()?;
    if !f.is_finite() || f.fract() != 0.0 || f <= 0.0 {
        return None;
    }
    // `as` saturates at u64::MAX for larger floats, which the clamp then bounds.
    Some(f as u64)
}

fn to_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests;
