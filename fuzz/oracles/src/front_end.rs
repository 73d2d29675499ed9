//! The source front-end (docs/contract.md, Inputs and languages; Source front-end): never a
//! panic, syntax errors point inside the source, JavaScript passes through byte-identical,
//! module access is found wherever it is, and TypeScript output has none.

use crate::bytes::Bytes;
use codemode_native::error::{messages, ErrorCode};
use codemode_native::limits::Limits;
use codemode_native::source::program::{self, Language, SourceError};
use codemode_native::source::typescript::transform_typescript_mapped;
use codemode_native::source::{shell, validate_exec_input, Field, RawExecInput};

const LANGUAGES: [&str; 5] = ["javascript", "typescript", "JavaScript", "", "python"];
const SENTENCE_TAIL: &str = ". No tools were dispatched; correct the source and submit it again.";

/// Byte 0 chooses the exec-input shape, the rest (lossy UTF-8) is the source.
pub fn check_front_end(data: &[u8]) {
    let mut b = Bytes::new(data);
    let shape = b.u8();
    let source = String::from_utf8_lossy(b.rest()).into_owned();
    check_exec_input(shape, &source);
    check_shell(&source);
    for language in [Language::JavaScript, Language::TypeScript] {
        check_prepare(&source, language);
    }
}

fn check_exec_input(shape: u8, source: &str) {
    let field = |bits: u8, value: String| match bits % 4 {
        0 => Field::Absent,
        1 => Field::Invalid,
        2 => Field::Value(value),
        _ => Field::Value(format!(" {value}\t")),
    };
    let raw = RawExecInput {
        code: field(shape, source.to_owned()),
        command: field(shape >> 2, source.to_owned()),
        language: match (shape >> 4) % 8 {
            0..=2 => Field::Absent,
            3 => Field::Invalid,
            n => Field::Value(LANGUAGES[usize::from(n - 3) % LANGUAGES.len()].to_owned()),
        },
        restart_safe: if shape >> 7 == 1 {
            Field::Invalid
        } else {
            Field::Value(true)
        },
        not_an_object: false,
    };
    match validate_exec_input(&raw, &Limits::default()) {
        Ok(request) => {
            assert!(!request.code.trim().is_empty(), "a blank cell was accepted");
            let given = [&raw.code, &raw.command];
            assert!(
                given
                    .iter()
                    .any(|f| **f == Field::Value(request.code.clone())),
                "the accepted code is neither alias"
            );
            assert!(request.restart_safe && raw.restart_safe != Field::Invalid);
        }
        Err(error) => {
            assert_eq!(
                error.code,
                ErrorCode::InvalidInput,
                "exec input: wrong code"
            );
            let known = [
                messages::CODE_MISSING,
                messages::CODE_MISMATCH,
                messages::LANGUAGE_INVALID,
                messages::RESTART_SAFE_INVALID,
            ];
            let disabled = [
                messages::language_disabled("javascript"),
                messages::language_disabled("typescript"),
            ];
            assert!(
                known.contains(&error.message.as_str()) || disabled.contains(&error.message),
                "unknown message: {}",
                error.message
            );
        }
    }
}

fn check_shell(source: &str) {
    let verdict = shell::looks_like_shell(source, false);
    let lead = source.trim_start();
    // A shebang or fence is judged only as the very first text.
    if !lead.starts_with("#!") && !lead.starts_with("```") {
        let commented = format!("// a comment\n/* and\nanother */\n{source}\n\n");
        assert_eq!(
            shell::looks_like_shell(&commented, false),
            verdict,
            "leading comments changed the shell verdict"
        );
    }
}

fn check_prepare(source: &str, language: Language) {
    let result = codemode_native::source::prepare::prepare(source, language);
    assert_eq!(
        result,
        codemode_native::source::prepare::prepare(source, language),
        "prepare is not deterministic"
    );
    match &result {
        Ok(prepared) => {
            if language == Language::JavaScript {
                assert_eq!(prepared.js, source, "a JavaScript cell was changed");
            } else {
                check_transform_output(source, &prepared.js);
            }
            check_appended_require(source, language);
        }
        Err(SourceError::Syntax {
            line,
            column,
            message,
        }) => {
            check_location(source, *line, *column);
            let sentence = result
                .as_ref()
                .err()
                .map(|e| e.message(language))
                .unwrap_or_default();
            assert!(sentence.chars().count() < 500, "syntax error of 500+ chars");
            assert!(!sentence.contains('\n'), "multi-line syntax error");
            assert!(
                sentence.ends_with(SENTENCE_TAIL),
                "syntax sentence shape: {sentence}"
            );
            assert!(!message.is_empty(), "empty syntax message");
        }
        Err(SourceError::Transform(text)) => {
            assert_eq!(
                language,
                Language::TypeScript,
                "JavaScript went through the transform"
            );
            assert!(text.len() <= 400, "transform message unbounded");
        }
        Err(SourceError::TooLarge { bytes, limit }) => {
            assert!(
                bytes > limit,
                "a source within the limit was refused as too large"
            );
        }
        Err(SourceError::ModuleAccess) => {}
    }
    let front = codemode_native::source::prepare(source, language);
    if let Err(error) = front {
        assert_eq!(error.code, ErrorCode::InvalidInput, "front-end error code");
    }
}

/// TypeScript output runs as a JavaScript cell: it parses and reaches no module loader.
fn check_transform_output(source: &str, js: &str) {
    assert!(
        program::parses(js, Language::JavaScript),
        "transform output does not parse: {source:?} -> {js:?}"
    );
    assert_ne!(
        codemode_native::source::prepare::prepare(js, Language::JavaScript),
        Err(SourceError::ModuleAccess),
        "transform output reaches modules: {source:?} -> {js:?}"
    );
    if let Ok((_, map)) = transform_typescript_mapped(source) {
        for (line, text) in js.split('\n').enumerate().take(50) {
            let line = line as u32 + 1;
            for column in [1, 2, text.len() as u32 / 2 + 1, text.len() as u32 + 1] {
                if let Some((l, c)) = map.original(line, column) {
                    assert!(l >= 1 && c >= 1, "mapped position below 1");
                    assert!(
                        l as usize <= lines(source).len(),
                        "mapped line {l} past the source"
                    );
                }
            }
        }
    }
}

/// A cell that passed, followed by a call of the global `require`, is module access
/// (unless the cell itself could bind the name).
fn check_appended_require(source: &str, language: Language) {
    if program::may_name_require(source) || source.contains("eval") {
        return;
    }
    let extended = format!("{source}\n;require('fs');");
    // Too long, or nested too deep once the statement is added: refused before module access.
    if !program::parses(&extended, language) {
        return;
    }
    assert_eq!(
        codemode_native::source::prepare::prepare(&extended, language),
        Err(SourceError::ModuleAccess),
        "an appended require() was not module access after {source:?}"
    );
}

/// 1-based line and UTF-16 column inside the source (the column may sit just past the end
/// of its line).
fn check_location(source: &str, line: u32, column: u32) {
    let lines = lines(source);
    assert!(line >= 1 && column >= 1, "position {line}:{column} below 1");
    let text = lines
        .get(line as usize - 1)
        .unwrap_or_else(|| panic!("line {line} past the {} lines of the source", lines.len()));
    let width = text.encode_utf16().count() as u32;
    assert!(
        column <= width + 1,
        "column {column} past line {line} of width {width}"
    );
}

/// Lines split at `\n`, `\r\n`, `\r`, U+2028 and U+2029 (an empty source has one line).
fn lines(source: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = source.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}') {
            out.push(&source[start..i]);
            let mut end = i + c.len_utf8();
            if c == '\r' && chars.peek().map(|p| p.1) == Some('\n') {
                chars.next();
                end += 1;
            }
            start = end;
        }
    }
    out.push(&source[start..]);
    out
}
