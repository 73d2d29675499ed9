//! Channel projections of the result budget: sizes of the output, value and error
//! channels, and their cut to a share in UTF-16 units (markers recut, never wrapped).

use super::{chars_of, compact};
use crate::json_size::{marker_len, Unit};
use crate::run::output::{fit_marker, TruncationMarker, ERROR_SUFFIX, GUIDANCE};
use serde_json::{json, Map, Value};

/// `[{"type":"json","value":` … `}]` around an output marker.
const OUTPUT_WRAP: usize = 26;
const UTF16: Unit = Unit::Utf16;

/// Full and smallest projected size of the value or error channel.
pub(super) fn channel_sizes(key: Option<&str>, v: &Value) -> (usize, usize) {
    let cost = chars_of(v);
    let min = match key {
        Some("value") => marker_min(v),
        _ => UTF16.json_string_len(ERROR_SUFFIX),
    };
    (cost, cost.min(min))
}

pub(super) fn output_sizes(output: &Value) -> (usize, usize) {
    let cost = chars_of(output);
    let min = match single_output_marker(output) {
        Some(m) => marker_chars(m.omitted_bytes + m.prefix.len()),
        None => marker_chars(compact(output).len()),
    } + OUTPUT_WRAP;
    (cost, cost.min(min))
}

fn marker_min(v: &Value) -> usize {
    match as_marker(v) {
        Some(m) => marker_chars(m.omitted_bytes + m.prefix.len()),
        None => marker_chars(compact(v).len()),
    }
}

pub(super) fn project_value(v: &Value, share: usize) -> Option<Value> {
    if chars_of(v) <= share {
        return Some(v.clone());
    }
    let marker = match as_marker(v) {
        Some(m) => recut(&m.prefix, m.omitted_bytes + m.prefix.len(), share)?,
        None => {
            let original = compact(v);
            recut(&original, original.len(), share)?
        }
    };
    Some(marker.to_value())
}

pub(super) fn project_output(output: &Value, share: usize) -> Option<Value> {
    if chars_of(output) <= share {
        return Some(output.clone());
    }
    let budget = share.checked_sub(OUTPUT_WRAP)?;
    let marker = match single_output_marker(output) {
        Some(m) => recut(&m.prefix, m.omitted_bytes + m.prefix.len(), budget)?,
        None => {
            let original = compact(output);
            recut(&original, original.len(), budget)?
        }
    };
    let mut entry = Map::new();
    entry.insert("type".into(), json!("json"));
    entry.insert("value".into(), marker.to_value());
    Some(Value::Array(vec![Value::Object(entry)]))
}

pub(super) fn project_error(v: &Value, share: usize) -> Option<Value> {
    let text = v.as_str().unwrap_or_default();
    if UTF16.json_string_len(text) <= share {
        return Some(v.clone());
    }
    let lead = text.strip_suffix(ERROR_SUFFIX).unwrap_or(text);
    Some(json!(UTF16.cut_with_suffix(lead, ERROR_SUFFIX, share)?))
}

/// A marker for an original of `total_bytes` whose leading text is `available`, with the
/// longest prefix whose marker fits `budget` chars.
fn recut(available: &str, total_bytes: usize, budget: usize) -> Option<TruncationMarker> {
    fit_marker(UTF16, available, total_bytes, budget)
}

/// A value that is a truncation marker (the byte budget's, or one the guest built).
pub(super) fn as_marker(v: &Value) -> Option<TruncationMarker> {
    let obj = v.as_object()?;
    if obj.len() != 4
        || obj.get("truncated") != Some(&json!(true))
        || obj.get("guidance") != Some(&json!(GUIDANCE))
    {
        return None;
    }
    Some(TruncationMarker {
        omitted_bytes: usize::try_from(obj.get("omittedBytes")?.as_u64()?).ok()?,
        prefix: obj.get("prefix")?.as_str()?.to_string(),
    })
}

/// `[{"type":"json","value":<marker>}]`, the byte budget's projected output.
pub(super) fn single_output_marker(output: &Value) -> Option<TruncationMarker> {
    match output.as_array()?.as_slice() {
        [entry] if entry.get("type") == Some(&json!("json")) => as_marker(entry.get("value")?),
        _ => None,
    }
}

/// Chars of a marker with an empty prefix: the smallest it can be.
fn marker_chars(omitted_bytes: usize) -> usize {
    marker_len(omitted_bytes, 2)
}
