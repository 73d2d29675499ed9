//! Source redaction for session history (`redactSource`) and nested-call previews: AST
//! credential literals first (source only), then text-wide tokens, secrets and patterns.
//! Masks cover the full literal or token, so redacting a redacted text changes nothing.

mod literals;
mod names;
mod tokens;

use crate::error::CodeModeError;
use regex::{Regex, RegexBuilder};
use serde_json::Value;

pub use literals::credential_literal_spans;
pub use names::is_sensitive_name;

/// What a masked literal or token becomes.
pub const MASK: &str = "[REDACTED]";
/// Compiled size cap of one configured pattern (a bad pattern cannot eat memory).
const PATTERN_SIZE_LIMIT: usize = 1 << 20;
/// Previews redact this much text beyond the preview length, so a secret crossing the
/// cut is still recognised whole.
const PREVIEW_LOOKAHEAD_BYTES: usize = 8 * 1024;

/// Registered secrets and configured patterns, compiled once per session.
#[derive(Debug, Default)]
pub struct Redactor {
    secrets: Vec<String>,
    patterns: Vec<Regex>,
}

impl Redactor {
    /// Compiles `secrets` (empty ones ignored) and `patterns`.
    pub fn new(
        secrets: Vec<String>,
        patterns: &[String],
        path: &str,
    ) -> Result<Self, CodeModeError> {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .filter(|s| !s.trim().is_empty())
            .collect();
        // Longest first, so a secret containing another is masked whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        let mut compiled = Vec::with_capacity(patterns.len());
        for (i, pattern) in patterns.iter().enumerate() {
            let re = RegexBuilder::new(pattern)
                .size_limit(PATTERN_SIZE_LIMIT)
                .build()
                .map_err(|e| {
                    let detail = e.to_string();
                    let last = detail.lines().last().unwrap_or("").trim().to_string();
                    CodeModeError::invalid_input(format!(
                        "{path}.patterns[{i}] is not a valid regular expression: {last}"
                    ))
                })?;
            compiled.push(re);
        }
        Ok(Redactor {
            secrets,
            patterns: compiled,
        })
    }

    /// Parses `{ secrets?: string[], patterns?: string[] }` (`null`/absent: none).
    /// `path` names the option in messages (`redaction`, `options`).
    pub fn from_json(v: Option<&Value>, path: &str) -> Result<Self, CodeModeError> {
        let Some(v) = v.filter(|v| !v.is_null()) else {
            return Ok(Redactor::default());
        };
        if !v.is_object() {
            return Err(CodeModeError::invalid_input(format!(
                "{path} must be an object."
            )));
        }
        let list = |key: &str| -> Result<Vec<String>, CodeModeError> {
            match v.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        item.as_str().map(str::to_string).ok_or_else(|| {
                            CodeModeError::invalid_input(format!(
                                "{path}.{key}[{i}] must be a string."
                            ))
                        })
                    })
                    .collect(),
                Some(_) => Err(CodeModeError::invalid_input(format!(
                    "{path}.{key} must be an array of strings."
                ))),
            }
        };
        Redactor::new(list("secrets")?, &list("patterns")?, path)
    }

    /// `redactSource`: AST credential literals, then the text layer.
    pub fn redact_source(&self, code: &str) -> String {
        self.redact_source_with(code, literals::credential_literal_spans(code))
    }

    /// [`Self::redact_source`] with the literal layer's spans found by the caller
    /// ([`credential_literal_spans`]); `None` for the text layers alone.
    pub fn redact_source_with(&self, code: &str, literals: Option<Vec<(usize, usize)>>) -> String {
        let masked = match literals {
            Some(spans) => replace_spans(code, spans),
            None => code.to_string(),
        };
        self.redact_text(&masked)
    }

    /// The text layer alone: tokens, JSON `"credentialKey": "value"` pairs (previews are
    /// JSON), registered secrets, configured patterns.
    pub fn redact_text(&self, text: &str) -> String {
        let mut spans = tokens::token_spans(text);
        spans.extend(tokens::json_credential_spans(text));
        for secret in &self.secrets {
            spans.extend(
                text.match_indices(secret.as_str())
                    .map(|(i, s)| (i, i + s.len())),
            );
        }
        for re in &self.patterns {
            spans.extend(
                re.find_iter(text)
                    .filter(|m| !m.is_empty())
                    .map(|m| (m.start(), m.end())),
            );
        }
        if spans.is_empty() {
            return text.to_string();
        }
        let masks: Vec<(usize, usize)> = text
            .match_indices(MASK)
            .map(|(i, _)| (i, i + MASK.len()))
            .collect();
        spans.retain(|(s, e)| !masks.iter().any(|(ms, me)| ms <= s && e <= me));
        replace_spans(text, spans)
    }

    /// A bounded, redacted preview: about `max_bytes` of `text` (cut on a char
    /// boundary, `…` appended when cut), redacted before it is cut.
    pub fn preview(&self, text: &str, max_bytes: usize) -> String {
        let window_end = floor_boundary(text, max_bytes.saturating_add(PREVIEW_LOOKAHEAD_BYTES));
        let redacted = self.redact_text(&text[..window_end]);
        if redacted.len() <= max_bytes && window_end == text.len() {
            return redacted;
        }
        let cut = floor_boundary(&redacted, max_bytes);
        format!("{}…", &redacted[..cut])
    }
}

/// The largest char boundary of `s` at or below `at`.
fn floor_boundary(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    let mut end = at;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// `text` with each byte range replaced by [`MASK`]; overlapping or touching ranges
/// merge into one mask. Ranges must lie on char boundaries.
fn replace_spans(text: &str, mut spans: Vec<(usize, usize)>) -> String {
    spans.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut current: Option<(usize, usize)> = None;
    let flush = |out: &mut String, copied: &mut usize, (s, e): (usize, usize)| {
        out.push_str(&text[*copied..s]);
        out.push_str(MASK);
        *copied = e;
    };
    for (s, e) in spans {
        if s >= e || e > text.len() || !text.is_char_boundary(s) || !text.is_char_boundary(e) {
            continue;
        }
        current = match current {
            Some((cs, ce)) if s <= ce => Some((cs, ce.max(e))),
            Some(done) => {
                flush(&mut out, &mut copied, done);
                Some((s, e))
            }
            None => Some((s, e)),
        };
    }
    if let Some(done) = current {
        flush(&mut out, &mut copied, done);
    }
    out.push_str(&text[copied..]);
    out
}

#[cfg(test)]
mod tests;
