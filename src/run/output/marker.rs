//! The truncation marker that stands in for output or a value over its share, and the cut
//! of an oversized error; both sized through `json_size`.

use super::BYTES;
use crate::json_size::{marker_len, Unit, MARKER_HEAD, MARKER_MID};
use serde_json::{Map, Value};

use crate::json_size::GUIDANCE;

/// Appended to an error cut to fit its share.
pub const ERROR_SUFFIX: &str = " [error truncated]";

/// `{"truncated":true,"omittedBytes":N,"guidance":...,"prefix":...}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TruncationMarker {
    /// Original compact-JSON bytes minus `prefix` bytes.
    pub omitted_bytes: usize,
    /// Leading part of the original compact JSON, cut on a char boundary.
    pub prefix: String,
}

impl TruncationMarker {
    /// The marker as a JSON value (keys in documented order under `preserve_order`).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("truncated".into(), true.into());
        m.insert("omittedBytes".into(), self.omitted_bytes.into());
        m.insert("guidance".into(), GUIDANCE.into());
        m.insert("prefix".into(), self.prefix.as_str().into());
        Value::Object(m)
    }

    /// Compact JSON with keys in documented order, independent of serde_json features.
    pub fn to_json_string(&self) -> String {
        let prefix = serde_json::to_string(&self.prefix).unwrap_or_else(|_| "\"\"".into());
        format!("{MARKER_HEAD}{}{MARKER_MID}{prefix}}}", self.omitted_bytes)
    }

    /// Byte length of the compact JSON.
    pub fn json_len(&self) -> usize {
        marker_len(self.omitted_bytes, BYTES.json_string_len(&self.prefix))
    }
}

/// The marker for `original` (compact JSON) with the longest prefix whose marker fits in
/// `budget_bytes`; `None` if not even an empty prefix fits.
pub fn truncation_marker(original: &str, budget_bytes: usize) -> Option<TruncationMarker> {
    fit_marker(BYTES, original, original.len(), budget_bytes)
}

/// `error` unchanged if its JSON string fits `budget_bytes`, else its leading part plus
/// [`ERROR_SUFFIX`] within the budget; `None` if not even the bare suffix fits.
pub fn truncate_error(error: &str, budget_bytes: usize) -> Option<String> {
    if BYTES.json_string_len(error) <= budget_bytes {
        return Some(error.to_owned());
    }
    BYTES.cut_with_suffix(error, ERROR_SUFFIX, budget_bytes)
}

/// Marker for an original of `total_len` bytes whose leading part is `available`,
/// with the longest prefix whose marker fits `budget` units of `unit`.
pub fn fit_marker(
    unit: Unit,
    available: &str,
    total_len: usize,
    budget: usize,
) -> Option<TruncationMarker> {
    let end = unit.marker_prefix_end(available, total_len, budget)?;
    Some(TruncationMarker {
        omitted_bytes: total_len.saturating_sub(end),
        prefix: available[..end].to_owned(),
    })
}
