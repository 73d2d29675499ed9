//! The source front-end (docs/contract.md, Inputs and languages; Source front-end): exec
//! input validation, then module-access, shell and syntax checks and the TypeScript
//! transform, all before any guest runs.

pub mod depth;
pub mod prepare;
pub mod program;
pub mod redact;
pub mod shell;
pub mod typescript;

use crate::error::{messages, CodeModeError};
use crate::limits::Limits;
pub use program::Language;
use program::SourceError;

impl Language {
    /// The file name user frames and syntax errors are reported against.
    pub fn user_file(self) -> &'static str {
        match self {
            Language::JavaScript => crate::guest::vm::USER_FILE_JS,
            Language::TypeScript => crate::guest::vm::USER_FILE_TS,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
        }
    }
}

/// One field of the exec input as the caller sent it.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Field<T> {
    #[default]
    Absent,
    Value(T),
    /// Present but of the wrong type.
    Invalid,
}

/// The exec input before validation.
#[derive(Clone, Debug, Default)]
pub struct RawExecInput {
    pub code: Field<String>,
    pub command: Field<String>,
    pub language: Field<String>,
    pub restart_safe: Field<bool>,
    /// The input was not an object at all.
    pub not_an_object: bool,
}

/// A validated exec request.
#[derive(Clone, Debug)]
pub struct ExecRequest {
    pub code: String,
    pub language: Language,
    pub restart_safe: bool,
}

/// Validates exec input in the order docs/contract.md (Inputs and languages) gives, with
/// its exact messages.
pub fn validate_exec_input(
    input: &RawExecInput,
    limits: &Limits,
) -> Result<ExecRequest, CodeModeError> {
    let code = source_alias(input)?;
    let language = match &input.language {
        Field::Absent => Language::JavaScript,
        Field::Value(v) if v == "javascript" => Language::JavaScript,
        Field::Value(v) if v == "typescript" => Language::TypeScript,
        _ => return Err(CodeModeError::invalid_input(messages::LANGUAGE_INVALID)),
    };
    if !limits.languages.allows(language.as_str()) {
        return Err(CodeModeError::invalid_input(messages::language_disabled(
            language.as_str(),
        )));
    }
    let restart_safe = match input.restart_safe {
        Field::Absent => false,
        Field::Value(v) => v,
        Field::Invalid => return Err(CodeModeError::invalid_input(messages::RESTART_SAFE_INVALID)),
    };
    Ok(ExecRequest {
        code,
        language,
        restart_safe,
    })
}

/// `code` and its alias `command`: blank counts as absent, a non-string invalidates both.
fn source_alias(input: &RawExecInput) -> Result<String, CodeModeError> {
    if input.not_an_object || input.code == Field::Invalid || input.command == Field::Invalid {
        return Err(CodeModeError::invalid_input(messages::CODE_MISSING));
    }
    let present = |field: &Field<String>| match field {
        Field::Value(v) if !v.trim().is_empty() => Some(v.clone()),
        _ => None,
    };
    match (present(&input.code), present(&input.command)) {
        (Some(code), Some(command)) if code != command => {
            Err(CodeModeError::invalid_input(messages::CODE_MISMATCH))
        }
        (Some(code), _) => Ok(code),
        (None, Some(command)) => Ok(command),
        (None, None) => Err(CodeModeError::invalid_input(messages::CODE_MISSING)),
    }
}

/// Runs the front-end on a cell's source and returns the JavaScript to evaluate.
/// Module access is decided first, then shell look-alikes, then syntax and transform.
pub fn prepare(code: &str, language: Language) -> Result<prepare::Prepared, CodeModeError> {
    let prepared = prepare::prepare(code, language);
    match prepared {
        Err(SourceError::ModuleAccess) => {
            Err(CodeModeError::invalid_input(messages::MODULE_ACCESS))
        }
        _ if shell::looks_like_shell(code, prepared.is_ok()) => {
            Err(CodeModeError::invalid_input(shell::SHELL_REJECTION))
        }
        Ok(prepared) => Ok(prepared),
        Err(error) => Err(CodeModeError::invalid_input(error.message(language))),
    }
}

/// The syntax-error sentence for an error the engine's own compile found.
pub fn syntax_message(language: Language, line: u32, column: u32, message: &str) -> String {
    SourceError::Syntax {
        line,
        column,
        message: message.to_string(),
    }
    .message(language)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(code: Field<String>, command: Field<String>) -> RawExecInput {
        RawExecInput {
            code,
            command,
            ..RawExecInput::default()
        }
    }

    fn message(raw: RawExecInput) -> String {
        match validate_exec_input(&raw, &Limits::default()) {
            Ok(_) => "ok".into(),
            Err(e) => e.message,
        }
    }

    #[test]
    fn blank_aliases_count_as_absent() {
        let raw = input(Field::Value("  ".into()), Field::Value("return 1".into()));
        assert_eq!(message(raw), "ok");
    }

    #[test]
    fn different_aliases_are_rejected() {
        let raw = input(
            Field::Value("return 1".into()),
            Field::Value("return 2".into()),
        );
        assert_eq!(message(raw), messages::CODE_MISMATCH);
    }

    #[test]
    fn a_non_string_alias_invalidates_both() {
        let raw = input(Field::Value("return 1".into()), Field::Invalid);
        assert_eq!(message(raw), messages::CODE_MISSING);
    }

    #[test]
    fn unknown_language_is_rejected() {
        let mut raw = input(Field::Value("return 1".into()), Field::Absent);
        raw.language = Field::Value("python".into());
        assert_eq!(message(raw), messages::LANGUAGE_INVALID);
    }

    #[test]
    fn module_access_wins_over_shell_look() {
        let result = prepare("require('fs')", Language::JavaScript);
        assert_eq!(
            result.map_err(|e| e.message),
            Err(messages::MODULE_ACCESS.to_string())
        );
    }

    #[test]
    fn shell_commands_are_rejected_before_syntax() {
        let result = prepare("echo hello", Language::JavaScript);
        assert!(result.is_err_and(|e| e.message.contains("not shell")));
    }

    #[test]
    fn a_command_name_in_a_valid_expression_is_javascript() {
        for code in ["ls + count", "ls - count", "cat * 2", "make / 2\nreturn 1"] {
            for language in [Language::JavaScript, Language::TypeScript] {
                assert!(prepare(code, language).is_ok(), "{code:?} ({language:?})");
            }
        }
    }

    #[test]
    fn a_command_with_a_lone_operator_that_does_not_parse_is_shell() {
        for code in [
            "ls *",
            "rm * && echo done",
            "ls -la /workspace",
            "make > log",
            "ls",
        ] {
            let result = prepare(code, Language::JavaScript);
            assert!(
                result.is_err_and(|e| e.message.contains("not shell")),
                "{code:?}"
            );
        }
    }
}
