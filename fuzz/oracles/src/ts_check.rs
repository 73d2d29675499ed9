//! "Valid-looking" TypeScript: one line, brackets balanced outside strings and comments,
//! and accepted by oxc's TypeScript parser. Hints may end open objects in `...`, which is
//! not TypeScript; those tokens are dropped before parsing.

use oxc::allocator::Allocator;
use oxc::parser::Parser;
use oxc::span::SourceType;

/// Panics unless `text` is a single-line type that TypeScript accepts (after dropping
/// `...` tokens when `ellipsis` is allowed).
pub(crate) fn assert_type_text(text: &str, ellipsis: bool, what: &str) {
    assert!(
        !text.contains(['\n', '\r', '\u{2028}', '\u{2029}']),
        "{what} spans lines: {text:?}"
    );
    let stripped = strip(text, ellipsis, what);
    assert_parses(&format!("type __T = {stripped};\n"), SourceType::ts(), what);
}

/// Panics unless `source` parses as `source_type` without errors.
pub(crate) fn assert_parses(source: &str, source_type: SourceType, what: &str) {
    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, source, source_type).parse();
    let errors: Vec<String> = parsed
        .diagnostics
        .iter()
        .map(|d| d.message.to_string())
        .collect();
    assert!(
        !parsed.panicked && errors.is_empty(),
        "{what} is not valid TypeScript ({errors:?}): {source:?}"
    );
}

/// Checks bracket balance outside string literals and `/* */` comments; returns the text
/// without `...` tokens.
fn strip(text: &str, ellipsis: bool, what: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut stack: Vec<u8> = Vec::new();
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                assert!(
                    i < bytes.len(),
                    "{what} has an unterminated string: {text:?}"
                );
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/");
                let end = end.unwrap_or_else(|| panic!("{what} has an open comment: {text:?}"));
                i += 2 + end + 1;
            }
            b'.' if text[i..].starts_with("...") => {
                assert!(ellipsis, "{what} contains `...`: {text:?}");
                out.push_str(&text[copied..i]);
                i += 2;
                copied = i + 1;
            }
            open @ (b'{' | b'(' | b'[' | b'<') => stack.push(open),
            close @ (b'}' | b')' | b']' | b'>') => {
                let want = match close {
                    b'}' => b'{',
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'<',
                };
                assert_eq!(stack.pop(), Some(want), "{what} is unbalanced: {text:?}");
            }
            _ => {}
        }
        i += 1;
    }
    assert!(stack.is_empty(), "{what} leaves brackets open: {text:?}");
    out.push_str(&text[copied.min(text.len())..]);
    out
}
