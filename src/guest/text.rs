//! Guest strings on their way into Rust: each lone surrogate (WTF-8 from QuickJS, `\udXXX`
//! from `JSON.stringify`) becomes U+FFFD here, once, so no later stage sees text it cannot
//! decode; well-formed text passes unchanged.

use rquickjs::{Ctx, FromJs, Value};
use std::borrow::Cow;

/// A guest string converted to UTF-8, lone surrogates replaced by U+FFFD.
pub struct GuestText(pub String);

impl<'js> FromJs<'js> for GuestText {
    fn from_js(_ctx: &Ctx<'js>, value: Value<'js>) -> rquickjs::Result<Self> {
        let Some(string) = value.as_string() else {
            return Err(rquickjs::Error::new_from_js(value.type_name(), "string"));
        };
        let cstring = string.clone().to_cstring()?;
        // SAFETY: `CString` keeps the bytes alive and `len` is their exact length.
        let bytes =
            unsafe { std::slice::from_raw_parts(cstring.as_ptr().cast::<u8>(), cstring.len()) };
        Ok(GuestText(from_wtf8(bytes)))
    }
}

const REPLACEMENT: &str = "\u{FFFD}";

/// UTF-8 from WTF-8: each encoded surrogate (ED A0..BF xx) becomes U+FFFD.
pub fn from_wtf8(bytes: &[u8]) -> String {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return text.to_owned();
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let surrogate = bytes[i] == 0xED
            && bytes.get(i + 1).is_some_and(|b| (0xA0..=0xBF).contains(b))
            && bytes.get(i + 2).is_some_and(|b| (0x80..=0xBF).contains(b));
        if surrogate {
            out.extend_from_slice(REPLACEMENT.as_bytes());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    // Anything else invalid cannot come from QuickJS; replace it rather than fail.
    match String::from_utf8(out) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
    }
}

/// JSON text with every lone `\uD800`–`\uDFFF` escape replaced by `\ufffd`; paired
/// escapes, other escapes and escaped backslashes are kept as they are.
pub fn well_formed_json(json: &str) -> Cow<'_, str> {
    if !json.contains("\\ud") && !json.contains("\\uD") {
        return Cow::Borrowed(json);
    }
    let bytes = json.as_bytes();
    let mut out = String::with_capacity(json.len());
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        match bytes.get(i + 1) {
            Some(b'u') => {
                let unit = hex_unit(bytes, i + 2);
                let lone = match unit {
                    Some(0xD800..=0xDBFF) => {
                        let next_low = bytes.get(i + 6) == Some(&b'\\')
                            && bytes.get(i + 7) == Some(&b'u')
                            && matches!(hex_unit(bytes, i + 8), Some(0xDC00..=0xDFFF));
                        if next_low {
                            // A valid pair: skip both escapes.
                            i += 12;
                            continue;
                        }
                        true
                    }
                    Some(0xDC00..=0xDFFF) => true,
                    _ => false,
                };
                if lone {
                    out.push_str(&json[copied..i]);
                    out.push_str("\\ufffd");
                    copied = i + 6;
                }
                i += 6;
            }
            // Any other escape is two characters (`\\` included, which is the point).
            Some(_) => i += 2,
            None => i += 1,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(json);
    }
    out.push_str(&json[copied.min(json.len())..]);
    Cow::Owned(out)
}

/// [`well_formed_json`] for an owned string: kept as is unless something was replaced.
pub fn into_well_formed_json(json: String) -> String {
    match well_formed_json(&json) {
        Cow::Borrowed(_) => json,
        Cow::Owned(repaired) => repaired,
    }
}

fn hex_unit(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogate_escapes_become_replacement_escapes() {
        assert_eq!(well_formed_json(r#""a\ud800b""#), r#""a\ufffdb""#);
        assert_eq!(well_formed_json(r#""\uDC00""#), r#""\ufffd""#);
        assert_eq!(well_formed_json(r#"["\ud800"]"#), r#"["\ufffd"]"#);
        assert_eq!(well_formed_json(r#""\ud800\ud800""#), r#""\ufffd\ufffd""#);
        let parsed: serde_json::Value =
            serde_json::from_str(&well_formed_json(r#"{"s":"x\ud83d"}"#)).unwrap();
        assert_eq!(parsed["s"], "x\u{FFFD}");
    }

    #[test]
    fn pairs_escaped_backslashes_and_plain_text_are_kept() {
        for kept in [
            r#""\ud83d\ude00""#,
            r#""\\ud800""#,
            r#""\\\\ud800""#,
            r#""plain \n \u0041""#,
            r#""\ud83d\ude00\u0041""#,
        ] {
            assert_eq!(well_formed_json(kept), kept);
            assert!(matches!(well_formed_json(kept), Cow::Borrowed(_)));
        }
        // An escaped backslash followed by a real lone escape: only the escape changes.
        assert_eq!(well_formed_json(r#""\\\ud800""#), r#""\\\ufffd""#);
    }

    #[test]
    fn truncated_escapes_do_not_panic() {
        for text in [
            r#""\ud8"#,
            "\\",
            "\\u",
            r#""\ud800\"#,
            r#""\ud800\u"#,
            r#""\ud800\udc"#,
        ] {
            let _ = well_formed_json(text);
        }
    }

    #[test]
    fn wtf8_surrogates_become_replacement_characters() {
        assert_eq!(from_wtf8(b"a\xED\xA0\x80b"), "a\u{FFFD}b");
        assert_eq!(from_wtf8(b"\xED\xB0\x80"), "\u{FFFD}");
        assert_eq!(
            from_wtf8("h\u{e9}llo \u{1F600}".as_bytes()),
            "h\u{e9}llo \u{1F600}"
        );
        assert_eq!(from_wtf8(b"\xED\xA0"), "\u{FFFD}\u{FFFD}");
    }
}
