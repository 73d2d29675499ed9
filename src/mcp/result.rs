//! Fits an oversized MCP result into a byte budget without losing its shape: long strings
//! are cut and end with a visible `…[truncated N chars]`, and a string `structuredContent`
//! repeats from `content` is kept once. Short strings (types, URIs, names) are never cut.

use serde_json::{Map, Value};

/// Strings of at most this many chars are never cut: they carry the shape (`type`,
/// `mimeType`, `uri`), not the bulk.
const KEPT_CHARS: usize = 64;
/// A string is cut only when that saves more than its marker costs.
const MARKER_CHARS: usize = 40;

/// The result JSON cut to at most `max_bytes`, or `None` when it is not an object or
/// cannot fit even with every long string cut to the minimum.
pub fn fit_result(json: &str, max_bytes: usize) -> Option<String> {
    let mut value: Value = serde_json::from_str(json).ok()?;
    let object = value.as_object_mut()?;
    let fits = |v: &Value| {
        serde_json::to_string(v)
            .ok()
            .filter(|t| t.len() <= max_bytes)
    };
    // The duplicate goes first: keeping it would halve what the guest sees of the text.
    let originals = long_strings_in_content(object);
    if let Some(structured) = object.get_mut("structuredContent") {
        replace_duplicates(structured, &originals);
    }
    if let Some(text) = fits(&value) {
        return Some(text);
    }
    // The result's size grows with the cap (a longer kept prefix outweighs a shorter
    // count in its marker): the largest cap that fits, by bisection. Every probe cuts
    // from the original strings, so each marker counts what the guest does not see.
    let (mut low, mut high) = (KEPT_CHARS, max_bytes.max(KEPT_CHARS));
    let mut best = fits(&cut_strings(&value, low))?;
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        match fits(&cut_strings(&value, mid)) {
            Some(text) => {
                best = text;
                low = mid;
            }
            None => high = mid - 1,
        }
    }
    Some(best)
}

/// Long strings directly in `content` blocks (`text`, `data`, a resource's `text`), with
/// the path the guest would read them at.
fn long_strings_in_content(object: &Map<String, Value>) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let Some(Value::Array(blocks)) = object.get("content") else {
        return found;
    };
    for (i, block) in blocks.iter().enumerate() {
        let Value::Object(block) = block else {
            continue;
        };
        for (key, field) in block {
            let nested = match field {
                Value::String(text) => vec![(format!("content[{i}].{key}"), text.as_str())],
                Value::Object(inner) => inner
                    .iter()
                    .filter_map(|(k, v)| v.as_str().map(|t| (format!("content[{i}].{key}.{k}"), t)))
                    .collect(),
                _ => Vec::new(),
            };
            for (path, text) in nested {
                if text.chars().count() > KEPT_CHARS {
                    found.push((text.to_string(), path));
                }
            }
        }
    }
    found
}

/// Every string in `value` equal to one of `originals` becomes a short note naming where
/// the text is.
fn replace_duplicates(value: &mut Value, originals: &[(String, String)]) {
    match value {
        Value::String(text) => {
            if let Some((original, path)) = originals.iter().find(|(o, _)| o == text) {
                let chars = original.chars().count();
                *text = format!("…[truncated {chars} chars: duplicate of {path}]");
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| replace_duplicates(item, originals)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|item| replace_duplicates(item, originals)),
        _ => {}
    }
}

/// A copy of `value` whose strings longer than `cap` chars (plus a marker's worth) keep
/// their first `cap` chars and end with `…[truncated N chars]`.
fn cut_strings(value: &Value, cap: usize) -> Value {
    match value {
        Value::String(text) => Value::String(cut(text, cap)),
        Value::Array(items) => Value::Array(items.iter().map(|v| cut_strings(v, cap)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), cut_strings(v, cap)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn cut(text: &str, cap: usize) -> String {
    let keep = cap.max(KEPT_CHARS);
    // Shorter strings stay whole: cutting them would save less than the marker costs.
    if text.char_indices().nth(keep + MARKER_CHARS).is_none() {
        return text.to_string();
    }
    let cut_at = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    let omitted = text[cut_at..].chars().count();
    format!("{}…[truncated {omitted} chars]", &text[..cut_at])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn file_result(text: &str) -> String {
        json!({
            "content": [{ "type": "text", "text": text }],
            "structuredContent": { "content": text },
            "isError": false,
        })
        .to_string()
    }

    #[test]
    fn a_long_text_block_is_cut_inside_and_the_result_keeps_its_shape() {
        let text = "a".repeat(40_000);
        let fitted = fit_result(&file_result(&text), 4096).unwrap_or_default();
        assert!(fitted.len() <= 4096, "{} bytes", fitted.len());
        let v: Value = serde_json::from_str(&fitted).unwrap_or(Value::Null);
        let cut = v["content"][0]["text"].as_str().unwrap_or("");
        let kept = cut.chars().take_while(|c| *c == 'a').count();
        assert!(kept > 3000, "kept {kept} chars");
        assert_eq!(
            cut,
            format!("{}…[truncated {} chars]", "a".repeat(kept), 40_000 - kept)
        );
        assert_eq!(v["content"][0]["type"], "text");
        assert_eq!(v["isError"], false);
    }

    #[test]
    fn text_that_structured_content_repeats_is_counted_once() {
        let text = "b".repeat(40_000);
        let fitted = fit_result(&file_result(&text), 4096).unwrap_or_default();
        let v: Value = serde_json::from_str(&fitted).unwrap_or(Value::Null);
        assert_eq!(
            v["structuredContent"]["content"],
            "…[truncated 40000 chars: duplicate of content[0].text]"
        );
    }

    #[test]
    fn a_duplicate_alone_may_make_the_result_fit_uncut() {
        let text = "c".repeat(3000);
        let fitted = fit_result(&file_result(&text), 4096).unwrap_or_default();
        let v: Value = serde_json::from_str(&fitted).unwrap_or(Value::Null);
        assert_eq!(v["content"][0]["text"], text.as_str());
    }

    #[test]
    fn cuts_keep_whole_chars_and_short_strings() {
        let text = "é🙂".repeat(5000);
        let json =
            json!({ "content": [{ "type": "text", "text": text, "mimeType": "text/plain" }] });
        let fitted = fit_result(&json.to_string(), 2048).unwrap_or_default();
        assert!(fitted.len() <= 2048, "{} bytes", fitted.len());
        let v: Value = serde_json::from_str(&fitted).unwrap_or(Value::Null);
        assert_eq!(v["content"][0]["mimeType"], "text/plain");
        let cut = v["content"][0]["text"].as_str().unwrap_or("");
        assert!(
            cut.starts_with("é🙂é🙂") && cut.ends_with(" chars]"),
            "{cut}"
        );
    }

    #[test]
    fn a_result_of_many_short_strings_that_cannot_fit_is_refused() {
        let blocks: Vec<Value> = (0..500)
            .map(|i| json!({ "type": "text", "text": format!("line {i}") }))
            .collect();
        let json = json!({ "content": blocks }).to_string();
        assert_eq!(fit_result(&json, 1024), None);
        assert_eq!(fit_result("[1,2,3]", 1024), None);
    }
}
