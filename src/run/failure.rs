//! Turns the prelude's error JSON (`{ message, stack, code }`) into the text a model
//! reads: `Name: message` and only the user's own frames, at user positions (the async
//! wrapper's prefix shares the user's first line).

use serde::Deserialize;

#[derive(Deserialize, Default)]
struct GuestError {
    #[serde(default)]
    message: String,
    #[serde(default)]
    stack: String,
    #[serde(default)]
    code: Option<String>,
}

/// The error code a guest error carries (`e.code` of a host error), if any.
pub fn guest_error_code(payload: &str) -> Option<String> {
    serde_json::from_str::<GuestError>(payload)
        .ok()
        .and_then(|e| e.code)
}

/// Maps a user-file position (already without the wrapper prefix) to the position the
/// user wrote; identity for JavaScript, the printer's map for TypeScript.
pub type PositionMapper<'a> = &'a dyn Fn(u32, u32) -> (u32, u32);

pub fn guest_error_text(payload: &str, user_file: &str) -> String {
    guest_error_text_mapped(payload, user_file, &|line, column| (line, column))
}

pub fn guest_error_text_mapped(payload: &str, user_file: &str, map: PositionMapper<'_>) -> String {
    let error: GuestError = serde_json::from_str(payload).unwrap_or_else(|_| GuestError {
        message: payload.to_string(),
        ..GuestError::default()
    });
    let message = map_module_errors(&error.message);
    let frames: Vec<String> = error
        .stack
        .lines()
        .filter_map(|line| rebase_frame(line, user_file, map))
        .collect();
    if frames.is_empty() {
        message
    } else {
        format!("{message}\n{}", frames.join("\n"))
    }
}

/// A guest reaching for Node's module system gets the module-access message
/// (docs/contract.md, Source front-end).
fn map_module_errors(message: &str) -> String {
    const NAMES: [&str; 3] = ["require", "module", "process"];
    for name in NAMES {
        if message == format!("ReferenceError: {name} is not defined")
            || message == format!("ReferenceError: '{name}' is not defined")
        {
            return crate::error::messages::MODULE_ACCESS.to_string();
        }
    }
    message.to_string()
}

/// Keeps a stack line only if it points into the user file; columns on line 1 lose the
/// wrapper prefix that shares the user's first line.
fn rebase_frame(line: &str, user_file: &str, map: PositionMapper<'_>) -> Option<String> {
    let marker = format!("{user_file}:");
    let start = line.find(&marker)?;
    let after = &line[start + marker.len()..];
    let line_digits: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
    let line_number: u32 = line_digits.parse().ok()?;
    let rest = &after[line_digits.len()..];
    let Some(column_text) = rest.strip_prefix(':') else {
        return Some(line.to_string());
    };
    let column_digits: String = column_text
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let column: u32 = column_digits.parse().ok()?;
    let tail = &column_text[column_digits.len()..];
    let column = crate::guest::vm::user_column(line_number, column);
    let (line_number, column) = map(line_number, column);
    Some(format!(
        "{}{marker}{line_number}:{column}{tail}",
        &line[..start]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_user_frames_remain_and_lines_are_rebased() {
        let payload = r#"{"message":"Error: boom","stack":"    at f (user.js:3:9)\n    at run (codemode:prelude:200:5)\n    at <anonymous> (user.js:1:25)\n","code":null}"#;
        assert_eq!(
            guest_error_text(payload, "user.js"),
            "Error: boom\n    at f (user.js:3:9)\n    at <anonymous> (user.js:1:5)"
        );
    }

    #[test]
    fn require_reference_errors_become_module_access() {
        let payload =
            r#"{"message":"ReferenceError: require is not defined","stack":"","code":null}"#;
        assert_eq!(
            guest_error_text(payload, "user.js"),
            "code mode module access is disabled."
        );
    }

    #[test]
    fn unparsable_payload_is_kept_as_text() {
        assert_eq!(guest_error_text("plain", "user.js"), "plain");
    }
}
