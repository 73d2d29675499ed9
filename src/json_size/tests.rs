//! Unit tests of `json_size`, checked against serde_json's own output.

use super::*;

fn sample_chars() -> impl Iterator<Item = char> {
    (0u32..0x80)
        .filter_map(char::from_u32)
        .chain(['é', '中', '🎉', '\u{2028}', '\u{7f}'])
}

fn serde(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

#[test]
fn string_sizes_match_serde_json_in_both_units() {
    for c in sample_chars() {
        let s = format!("a{c}b");
        let json = serde(&s);
        assert_eq!(Unit::Bytes.json_string_len(&s), json.len(), "{c:?}");
        assert_eq!(
            Unit::Utf16.json_string_len(&s),
            json.encode_utf16().count(),
            "{c:?}"
        );
    }
}

#[test]
fn raw_sizes_count_their_unit() {
    assert_eq!(Unit::Bytes.str_len("é🎉"), 6);
    assert_eq!(Unit::Utf16.str_len("é🎉"), 3);
    assert_eq!(Unit::Bytes.char_len('中'), 3);
    assert_eq!(Unit::Utf16.char_len('中'), 1);
}

#[test]
fn decimal_digits_match_formatting() {
    for n in [0, 1, 9, 10, 99, 100, 65_535, 1_000_000, usize::MAX] {
        assert_eq!(decimal_digits(n), n.to_string().len(), "{n}");
    }
}

#[test]
fn marker_text_holds_the_guidance_and_sizes_match() {
    assert!(MARKER_MID.contains(&serde(GUIDANCE)));
    for (omitted, prefix) in [(0, ""), (7, "ab\"c"), (123_456, "é\n🎉")] {
        let json = format!("{MARKER_HEAD}{omitted}{MARKER_MID}{}}}", serde(prefix));
        let parsed: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(parsed["guidance"], GUIDANCE);
        let bytes = marker_len(omitted, Unit::Bytes.json_string_len(prefix));
        let units = marker_len(omitted, Unit::Utf16.json_string_len(prefix));
        assert_eq!(bytes, json.len());
        assert_eq!(units, json.encode_utf16().count());
    }
}

#[test]
fn longest_prefix_stops_at_the_first_miss_on_a_char_boundary() {
    let s = "ab🎉cd";
    assert_eq!(Unit::Bytes.longest_prefix(s, |_, e| e <= 5), 2);
    assert_eq!(Unit::Bytes.longest_prefix(s, |_, e| e <= 6), 6);
    assert_eq!(Unit::Utf16.longest_prefix(s, |_, e| e <= 4), 6);
    assert_eq!(Unit::Utf16.longest_prefix(s, |raw, _| raw <= 5), 2);
    assert_eq!(Unit::Bytes.longest_prefix("", |_, _| true), 0);
}

#[test]
fn a_suffixed_cut_fits_exactly_or_not_at_all() {
    let suffix = " [cut]";
    for unit in [Unit::Bytes, Unit::Utf16] {
        let text = "\"é🎉\"".repeat(20);
        for budget in 0..80 {
            match unit.cut_with_suffix(&text, suffix, budget) {
                None => assert!(budget < unit.json_string_len(suffix)),
                Some(cut) => {
                    assert!(cut.ends_with(suffix) && unit.json_string_len(&cut) <= budget);
                    assert!(text.starts_with(&cut[..cut.len() - suffix.len()]));
                }
            }
        }
    }
}

#[test]
fn marker_prefixes_are_the_longest_that_fit() {
    let original = "[\"é🎉\\n\",1,2,3,\"tail\"]".repeat(5);
    let total = original.len();
    for unit in [Unit::Bytes, Unit::Utf16] {
        let size = |end: usize| {
            let prefix = &original[..end];
            marker_len(total - end, unit.json_string_len(prefix))
        };
        for budget in 0..400 {
            match unit.marker_prefix_end(&original, total, budget) {
                None => assert!(size(0) > budget),
                Some(end) => {
                    assert!(size(end) <= budget, "{unit:?} {budget}");
                    let next = original[end..].chars().next().map(|c| end + c.len_utf8());
                    assert!(next.is_none_or(|n| size(n) > budget), "{unit:?} {budget}");
                }
            }
        }
    }
}
