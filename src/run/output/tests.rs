//! Unit tests of `output`.

use super::entry::TEXT_HEAD;
use super::*;
use crate::json_size::Unit;
use serde_json::json;

/// The budget's results with output as JSON values, as these tests compare them.
impl OutputBudget {
    /// [`Self::take_partial_entries`] as JSON values.
    fn take_partial(&mut self) -> Vec<Value> {
        OutputEntry::into_values(self.take_partial_entries())
    }

    /// [`Self::finish_value_entries`] with the output as JSON values.
    fn finish_value(&mut self, value: Value) -> Result<(Vec<Value>, Value), Overflow> {
        let (output, value) = self.finish_value_entries(value)?;
        Ok((OutputEntry::into_values(output), value))
    }

    /// [`Self::finish_error_entries`] with the output as JSON values.
    fn finish_error(&mut self, error: &str) -> Result<(Vec<Value>, String), Overflow> {
        let (output, error) = self.finish_error_entries(error)?;
        Ok((OutputEntry::into_values(output), error))
    }
}

fn json_string_len(s: &str) -> usize {
    Unit::Bytes.json_string_len(s)
}

fn size(v: &Value) -> usize {
    serde_json::to_string(v).map_or(usize::MAX, |s| s.len())
}

/// Delivered cost of an output array (an empty one costs nothing).
fn out_size(out: &[Value]) -> usize {
    if out.is_empty() {
        0
    } else {
        size(&Value::Array(out.to_vec()))
    }
}

fn text(s: &str) -> OutputEntry {
    OutputEntry::Text(s.to_owned())
}

/// The documented compact JSON of an array of text entries.
fn texts_json(texts: &[String]) -> String {
    let entries: Vec<String> = texts
        .iter()
        .map(|t| {
            format!(
                "{TEXT_HEAD}{}}}",
                serde_json::to_string(t).unwrap_or_default()
            )
        })
        .collect();
    format!("[{}]", entries.join(","))
}

fn marker_of(entry: &Value) -> TruncationMarker {
    assert_eq!(entry["type"], "json");
    let m = &entry["value"];
    assert_eq!(
        (&m["truncated"], &m["guidance"]),
        (&json!(true), &json!(GUIDANCE))
    );
    let omitted = m["omittedBytes"]
        .as_u64()
        .map_or(usize::MAX, |n| n as usize);
    let prefix = m["prefix"].as_str().unwrap_or_default().to_owned();
    TruncationMarker {
        omitted_bytes: omitted,
        prefix,
    }
}

#[test]
fn small_output_and_value_pass_through_unchanged() {
    let mut b = OutputBudget::new(1024);
    b.push(text("hi"));
    b.push(OutputEntry::Json(json!({ "a": 1 })));
    let (out, value) = b.finish_value(json!([1, 2])).unwrap();
    let expected = [
        json!({ "type": "text", "text": "hi" }),
        json!({ "type": "json", "value": { "a": 1 } }),
    ];
    assert_eq!((out, value), (expected.to_vec(), json!([1, 2])));
}

#[test]
fn big_value_becomes_an_exact_marker_within_its_share() {
    let mut b = OutputBudget::new(1024);
    let (out, value) = b.finish_value(json!("x".repeat(2000))).unwrap();
    assert!(out.is_empty());
    // Original `"xxx…"` is 2002 bytes; the prefix's leading quote escapes to two bytes.
    let expected = format!(
        r#"{{"truncated":true,"omittedBytes":1086,"guidance":"Output truncated; rerun with narrower args.","prefix":"\"{}"}}"#,
        "x".repeat(915)
    );
    assert_eq!(
        marker_of(&json!({ "type": "json", "value": value })).to_json_string(),
        expected
    );
    assert_eq!((expected.len(), size(&value)), (1024, 1024));
}

#[test]
fn marker_for_a_fixed_input_is_exact() {
    let original = r#"{"msg":"héllo \"wörld\"","n":[1,2,3]}"#;
    let m = truncation_marker(original, 125).unwrap();
    let expected = r#"{"truncated":true,"omittedBytes":23,"guidance":"Output truncated; rerun with narrower args.","prefix":"{\"msg\":\"héllo \\"}"#;
    assert_eq!(m.to_json_string(), expected);
    assert_eq!(
        (m.json_len(), expected.len(), size(&m.to_value())),
        (125, 125, 125)
    );
    // 103 fixed bytes plus two digits is the smallest marker for 39 bytes.
    assert_eq!(truncation_marker(original, 104), None);
    assert_eq!(
        truncation_marker(original, 105).map(|m| m.omitted_bytes),
        Some(39)
    );
}

#[test]
fn big_output_with_small_value_gives_output_the_unused_share() {
    let texts: Vec<String> = (0..50)
        .map(|i| format!("{i:03}{}", "t".repeat(97)))
        .collect();
    let mut b = OutputBudget::new(1024);
    texts.iter().for_each(|t| b.push(text(t)));
    let (out, value) = b.finish_value(json!({ "ok": true })).unwrap();
    assert_eq!(value, json!({ "ok": true }));
    assert_eq!(out.len(), 1);
    let original = texts_json(&texts);
    let m = marker_of(&out[0]);
    assert!(
        original.starts_with(&m.prefix) && m.prefix.starts_with(r#"[{"type":"text","text":"000"#)
    );
    assert_eq!(m.omitted_bytes + m.prefix.len(), original.len());
    assert!(out_size(&out) <= 1024 - 11 && out_size(&out) > 1000);
}

#[test]
fn small_output_with_big_value_gives_value_the_unused_share() {
    let mut b = OutputBudget::new(1024);
    b.push(text("note"));
    let (out, value) = b.finish_value(json!("y".repeat(5000))).unwrap();
    assert_eq!(out, vec![json!({ "type": "text", "text": "note" })]);
    let out_cost = out_size(&out);
    assert!(size(&value) <= 1024 - out_cost && size(&value) > 1024 - out_cost - 4);
}

#[test]
fn both_oversized_channels_split_the_budget_in_half() {
    let mut b = OutputBudget::new(1000);
    b.push(text(&"o".repeat(3000)));
    let (out, value) = b.finish_value(json!("v".repeat(3000))).unwrap();
    assert!(out_size(&out) <= 500 && out_size(&out) > 495);
    assert!(size(&value) <= 500 && size(&value) > 495);
}

#[test]
fn multibyte_text_is_never_split() {
    let original = serde_json::to_string(&json!("🎉中文é".repeat(400))).unwrap_or_default();
    assert_eq!(truncation_marker(&original, 106), None); // 4802 bytes: four digits
    for budget in 107..400 {
        let m = truncation_marker(&original, budget).unwrap();
        assert!(original.starts_with(&m.prefix) && !m.prefix.contains('\u{FFFD}'));
        assert!(m.json_len() <= budget && size(&m.to_value()) == m.json_len());
        // Maximal: one more char would not fit.
        let next = original[m.prefix.len()..]
            .chars()
            .next()
            .map_or(0, char::len_utf8);
        let longer = &original[..m.prefix.len() + next];
        let bigger = TruncationMarker {
            omitted_bytes: original.len() - longer.len(),
            prefix: longer.into(),
        };
        assert!(bigger.json_len() > budget);
    }
    // Storage cut inside a code point keeps only whole chars.
    let mut b = OutputBudget::new(1030);
    b.push(text(&"🎉".repeat(300)));
    assert!(b.stored_bytes() <= 1030 && b.stored_bytes() > 1026);
    let (out, _) = b.finish_value(Value::Null).unwrap();
    assert!(!marker_of(&out[0]).prefix.contains('\u{FFFD}'));
}

#[test]
fn quotes_and_backslashes_are_measured_escaped() {
    let original = serde_json::to_string(&json!("\"\\".repeat(500))).unwrap_or_default();
    for budget in [107, 108, 150, 333, 1000] {
        let m = truncation_marker(&original, budget).unwrap();
        assert_eq!(m.to_json_string().len(), m.json_len());
        assert!(m.json_len() <= budget && m.json_len() + 3 > budget);
        assert_eq!(m.omitted_bytes + m.prefix.len(), original.len());
    }
}

#[test]
fn escaped_lengths_match_serde_json() {
    let chars = (0u32..0x80)
        .filter_map(char::from_u32)
        .chain(['é', '中', '🎉', '\u{2028}']);
    for c in chars {
        let s = c.to_string();
        assert_eq!(
            json_string_len(&s),
            serde_json::to_string(&s).unwrap_or_default().len(),
            "{c:?}"
        );
    }
}

#[test]
fn oversized_error_keeps_its_lead_and_ends_with_the_suffix() {
    let mut b = OutputBudget::new(1024);
    let (out, error) = b.finish_error(&"E".repeat(2000)).unwrap();
    assert!(out.is_empty());
    assert_eq!(error, format!("{}{ERROR_SUFFIX}", "E".repeat(1004)));
    assert_eq!(json_string_len(&error), 1024);
    let quoted = truncate_error(&"\"q\"".repeat(100), 50).unwrap_or_default();
    // Each `"q"` takes five bytes escaped: six fit beside the quotes and the suffix.
    assert_eq!(quoted, format!("{}{ERROR_SUFFIX}", "\"q\"".repeat(6)));
    assert_eq!(json_string_len(&quoted), 50);
    assert_eq!(truncate_error("short", 1024).as_deref(), Some("short"));
    assert_eq!(truncate_error("a message longer than the budget", 19), None);
}

#[test]
fn partial_results_carry_only_new_output() {
    let mut b = OutputBudget::new(4096);
    b.push(text("a"));
    assert_eq!(
        b.take_partial(),
        vec![json!({ "type": "text", "text": "a" })]
    );
    assert!(b.take_partial().is_empty());
    b.push(text("b"));
    let (out, value) = b.finish_value(json!(1)).unwrap();
    assert_eq!(
        (out, value),
        (vec![json!({ "type": "text", "text": "b" })], json!(1))
    );
}

#[test]
fn delivered_bytes_count_against_later_results() {
    let mut b = OutputBudget::new(1024);
    b.push(text(&"p".repeat(400)));
    let first = b.take_partial();
    assert_eq!(out_size(&first), 427);
    assert_eq!(b.remaining(), 597);
    let (out, value) = b.finish_value(json!("v".repeat(700))).unwrap();
    assert!(out.is_empty() && value.get("truncated").is_some());
    assert!(size(&value) <= 597);
}

#[test]
fn partial_output_leaves_half_the_budget_for_the_final_value() {
    let mut b = OutputBudget::new(1024);
    b.push(text(&"h".repeat(600)));
    let out = b.take_partial();
    assert!(marker_of(&out[0]).omitted_bytes > 0);
    assert!(out_size(&out) <= 512 && b.remaining() >= 512);
}

#[test]
fn partial_that_cannot_fit_a_marker_keeps_output_pending() {
    let mut b = OutputBudget::new(200);
    b.push(text(&"k".repeat(500)));
    assert!(b.take_partial().is_empty());
    let (out, value) = b.finish_value(Value::Null).unwrap();
    assert_eq!((out.len(), value), (1, Value::Null));
    assert!(out_size(&out) <= 196);
}

#[test]
fn flood_of_pushes_stays_bounded_and_counts_every_byte() {
    let mut b = OutputBudget::new(65_536);
    let kb = "f".repeat(1024);
    for _ in 0..100_000 {
        b.push(text(&kb));
    }
    assert!(b.stored_bytes() <= 65_536);
    let entry = TEXT_HEAD.len() + 1026 + 1;
    let original = 100_000 * entry + 99_999 + 2;
    assert_eq!(b.stored_bytes() + b.unstored_bytes() + 2, original);
    let (out, _) = b.finish_value(json!(null)).unwrap();
    let m = marker_of(&out[0]);
    assert_eq!(m.omitted_bytes + m.prefix.len(), original);
}

#[test]
fn unprojectable_result_overflows_without_consuming_budget() {
    let mut b = OutputBudget::new(230);
    b.push(text(&"o".repeat(1000)));
    assert_eq!(b.finish_value(json!("v".repeat(1000))), Err(Overflow));
    assert_eq!(b.remaining(), 230);
    let (out, value) = b.finish_value(json!(1)).unwrap();
    assert_eq!((out.len(), value), (1, json!(1)));
    assert_eq!(
        OutputBudget::new(19).finish_error("a long failure message"),
        Err(Overflow)
    );
    assert_eq!(
        OutputBudget::new(50).finish_value(json!(1)),
        Ok((vec![], json!(1)))
    );
}

/// Deterministic pseudo-random numbers for the property test.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n.max(1)
    }

    fn string(&mut self, len: usize) -> String {
        const ALPHABET: [&str; 8] = ["a", "\"", "\\", "\n", "\u{1}", "é", "中", "🎉"];
        (0..len)
            .map(|_| ALPHABET[self.next(ALPHABET.len())])
            .collect()
    }
}

#[test]
fn total_delivered_never_exceeds_the_budget() {
    let mut rng = Lcg(7);
    for max in [1024, 1500, 2048, 4096, 10_000] {
        for _ in 0..150 {
            let mut b = OutputBudget::new(max);
            let mut delivered = 0;
            let mut seen = String::new();
            for _ in 0..rng.next(6) {
                for _ in 0..rng.next(5) {
                    let len = rng.next(max / 2);
                    b.push(if rng.next(2) == 0 {
                        OutputEntry::Text(rng.string(len))
                    } else {
                        OutputEntry::Json(json!([rng.string(len)]))
                    });
                }
                let before = b.remaining();
                let out = b.take_partial();
                assert!(out_size(&out) <= before / 2);
                delivered += out_size(&out);
                seen.push_str(&serde_json::to_string(&out).unwrap_or_default());
            }
            let len = rng.next(max * 2);
            let remaining = b.remaining();
            let result = if rng.next(2) == 0 {
                b.finish_value(json!({ "v": rng.string(len) }))
                    .map(|(o, v)| (o, size(&v), v))
            } else {
                b.finish_error(&rng.string(len))
                    .map(|(o, e)| (o, json_string_len(&e), json!(e)))
            };
            match result {
                Ok((out, final_size, final_value)) => {
                    delivered += out_size(&out) + final_size;
                    seen.push_str(&serde_json::to_string(&(out, final_value)).unwrap_or_default());
                }
                Err(Overflow) => assert!(remaining < 300, "overflow with {remaining} left"),
            }
            assert!(delivered <= max, "{delivered} > {max}");
            assert_eq!(delivered, max - b.remaining());
            assert!(!seen.contains('\u{FFFD}'));
        }
    }
}
