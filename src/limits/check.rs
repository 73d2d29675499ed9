//! Config validation of one `CodeModeLimits` key: whether its value is used as given,
//! replaced by the default or clamped, by the same rules as `Limits::merge`.

use super::MAX_TOOL_INPUT_BYTES;
use super::{positive_integer, Languages, LANGUAGES_KEY};
use super::{MAX_OUTPUT_BYTES, MAX_PENDING_TOOL_CALLS, MAX_SEARCH_LIMIT, MAX_SNAPSHOT_BYTES};
use super::{MEMORY_LIMIT_BYTES, SEARCH_DEFAULT_LIMIT, SNAPSHOT_TTL_SECONDS, TIMEOUT_MS};
use crate::nearest::unknown_key_message;
use serde_json::Value;

/// Every `CodeModeLimits` key.
pub const LIMIT_KEYS: [&str; 10] = [
    TIMEOUT_MS.key,
    MEMORY_LIMIT_BYTES.key,
    MAX_OUTPUT_BYTES.key,
    MAX_SNAPSHOT_BYTES.key,
    MAX_PENDING_TOOL_CALLS.key,
    MAX_TOOL_INPUT_BYTES.key,
    SNAPSHOT_TTL_SECONDS.key,
    SEARCH_DEFAULT_LIMIT.key,
    MAX_SEARCH_LIMIT.key,
    LANGUAGES_KEY,
];

/// How one key of a `CodeModeLimits` object reads, for config validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LimitCheck {
    /// Not a limit key.
    Unknown,
    /// A value used as given.
    Fine,
    /// A value that is replaced (default) or clamped; the text says how.
    Problem(String),
}

/// Checks `value` under limit `key` against the resolution rules of [`Limits::merge`].
/// `null` is fine (it means absent).
pub fn check_limit(key: &str, value: &Value) -> LimitCheck {
    if key == LANGUAGES_KEY {
        return match value.is_null() || Languages::from_json(value).is_some() {
            true => LimitCheck::Fine,
            false => LimitCheck::Problem(
                "must be a non-empty array of \"javascript\" and \"typescript\"; both languages apply".into(),
            ),
        };
    }
    let bounds = [
        &TIMEOUT_MS,
        &MEMORY_LIMIT_BYTES,
        &MAX_OUTPUT_BYTES,
        &MAX_SNAPSHOT_BYTES,
        &MAX_PENDING_TOOL_CALLS,
        &MAX_TOOL_INPUT_BYTES,
        &SNAPSHOT_TTL_SECONDS,
        &SEARCH_DEFAULT_LIMIT,
        &MAX_SEARCH_LIMIT,
    ];
    let Some(bound) = bounds.into_iter().find(|b| b.key == key) else {
        return LimitCheck::Unknown;
    };
    if value.is_null() {
        return LimitCheck::Fine;
    }
    match positive_integer(value) {
        None => LimitCheck::Problem(format!(
            "must be a positive integer (got {value}); the default {} applies",
            bound.default
        )),
        Some(n) if n < bound.min || n > bound.max => LimitCheck::Problem(format!(
            "{n} is outside {}..{} and is clamped to {}",
            bound.min,
            bound.max,
            n.clamp(bound.min, bound.max)
        )),
        Some(_) => LimitCheck::Fine,
    }
}

/// A session's `limits` as its constructor takes them: an unknown key or a value that is
/// not a limit at all (a string, a negative number, a bad `languages`) is an error naming
/// `limits.<key>`; a positive integer outside a range is clamped, as documented.
pub fn check_session_limits(limits: &Value) -> Result<(), String> {
    let Some(obj) = limits.as_object() else {
        return Err("limits must be an object.".into());
    };
    for (key, value) in obj {
        let fine = match check_limit(key, value) {
            LimitCheck::Unknown => return Err(unknown_key_message("limits", key, &LIMIT_KEYS)),
            LimitCheck::Fine => true,
            LimitCheck::Problem(_) if key == LANGUAGES_KEY => false,
            // Only a clamp is a problem a positive integer can have.
            LimitCheck::Problem(_) => positive_integer(value).is_some(),
        };
        if !fine {
            let want = match key.as_str() {
                LANGUAGES_KEY => "a non-empty array of \"javascript\" and \"typescript\"",
                _ => "a positive integer",
            };
            return Err(format!("limits.{key} must be {want} (got {value})."));
        }
    }
    Ok(())
}
