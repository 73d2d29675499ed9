//! Recognisable credential tokens, masked wherever they appear: provider API keys, GitHub
//! and Slack tokens, AWS access key ids, JWTs and PEM private-key blocks. Patterns demand
//! enough body characters that ordinary words (`task-list`, `sk-learn`) never match.

use regex::Regex;
use std::sync::LazyLock;

const PATTERNS: [&str; 6] = [
    // OpenAI / Anthropic style keys: sk-..., sk-proj-..., sk-ant-api03-...
    r"\bsk-[A-Za-z0-9][A-Za-z0-9_\-]{15,}",
    // GitHub tokens (personal, OAuth, user-to-server, server-to-server, refresh, fine-grained).
    r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
    // Slack bot, app, user, refresh and legacy tokens.
    r"\bxox[abprs]-[A-Za-z0-9\-]{10,}",
    // AWS access key ids (long-term and temporary).
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    // JSON Web Tokens: three base64url segments, the first a JSON object (`eyJ`).
    r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
    // PEM private keys, header to footer (or to the end of the text when cut).
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)",
];

/// One regex of all token patterns (a single pass over the text).
static TOKENS: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(&PATTERNS.join("|")).ok());

/// `"key": "value"` with a JSON string key and value (escapes allowed, no line breaks).
static JSON_PAIR: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#""([^"\\\n]{1,64})"\s*:\s*"((?:[^"\\\n]|\\.)*)""#).ok());

/// Byte ranges of the values of JSON pairs whose key names a credential (previews of
/// tool inputs and outputs are JSON text, often cut mid-way, so this is not a parse).
pub fn json_credential_spans(text: &str) -> Vec<(usize, usize)> {
    let Some(re) = JSON_PAIR.as_ref() else {
        return Vec::new();
    };
    re.captures_iter(text)
        .filter(|c| {
            c.get(1)
                .is_some_and(|key| super::names::is_sensitive_name(key.as_str()))
        })
        .filter_map(|c| c.get(2))
        .filter(|value| !value.is_empty())
        .map(|value| (value.start(), value.end()))
        .collect()
}

/// Byte ranges of recognisable tokens in `text`, in order, not overlapping.
pub fn token_spans(text: &str) -> Vec<(usize, usize)> {
    match TOKENS.as_ref() {
        Some(re) => re.find_iter(text).map(|m| (m.start(), m.end())).collect(),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        token_spans(text)
            .into_iter()
            .map(|(s, e)| &text[s..e])
            .collect()
    }

    #[test]
    fn the_token_patterns_compile() {
        assert!(TOKENS.is_some());
    }

    #[test]
    fn each_kind_is_found() {
        let jwt =
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        for token in [
            "sk-proj-abcdefghijklmnop1234",
            "sk-ant-api03-AbCdEfGhIjKlMnOp",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "github_pat_11ABCDEFG0123456789_abcdef",
            "xoxb-1234567890-abcdefghij",
            "AKIAIOSFODNN7EXAMPLE",
            jwt,
            "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
        ] {
            assert_eq!(found(&format!("x = '{token}';")), vec![token], "{token}");
        }
    }

    #[test]
    fn json_pairs_with_credential_keys_are_found() {
        let text = r#"{"user":"bob","apiKey":"k\"1","nested":{"password" : "p"},"token":"","auth":"cut-off"#;
        let values: Vec<&str> = json_credential_spans(text)
            .into_iter()
            .map(|(s, e)| &text[s..e])
            .collect();
        assert_eq!(values, vec![r#"k\"1"#, "p"]);
    }

    #[test]
    fn ordinary_text_is_not_a_token() {
        for text in [
            "task-manager-service-list",
            "sk-learn",
            "ghp_short",
            "xoxb-1",
            "AKIA123",
            "eyJ.a.b",
            "desk-abcdefghijklmnopqrst",
        ] {
            assert!(found(text).is_empty(), "{text}");
        }
    }
}
