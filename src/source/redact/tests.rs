//! Unit tests of source redaction: AST literals, text-wide tokens, secrets and patterns.

use super::*;

fn redact(code: &str) -> String {
    Redactor::default().redact_source(code)
}

#[test]
fn credential_literals_are_masked_keeping_quotes() {
    let table = [
        (
            r#"const API_TOKEN = "abc123";"#,
            r#"const API_TOKEN = "[REDACTED]";"#,
        ),
        ("let password = 'hunter2';", "let password = '[REDACTED]';"),
        ("const secret = `s3cr3t`;", "const secret = `[REDACTED]`;"),
        (
            r#"const c = { apiKey: "k1", user: "bob" };"#,
            r#"const c = { apiKey: "[REDACTED]", user: "bob" };"#,
        ),
        (
            r#"const h = { "x-api-key": "k2" };"#,
            r#"const h = { "x-api-key": "[REDACTED]" };"#,
        ),
        (r#"cfg.auth = "Basic Zm9v";"#, r#"cfg.auth = "[REDACTED]";"#),
        (
            r#"function f(token = "t0") { return token; }"#,
            r#"function f(token = "[REDACTED]") { return token; }"#,
        ),
        (
            r#"const t = env.TOKEN ?? "fallback";"#,
            r#"const t = env.TOKEN ?? "fallback";"#,
        ),
        (
            r#"const token = env.TOKEN ?? "fallback";"#,
            r#"const token = env.TOKEN ?? "[REDACTED]";"#,
        ),
        (
            r#"if (password === "letmein") {}"#,
            r#"if (password === "[REDACTED]") {}"#,
        ),
        (
            r#"headers.set("Authorization", "Bearer abc");"#,
            r#"headers.set("Authorization", "[REDACTED]");"#,
        ),
        (
            r#"const h = [["Authorization", "Bearer abc"]];"#,
            r#"const h = [["Authorization", "[REDACTED]"]];"#,
        ),
        (
            r#"class A { credential = "c"; }"#,
            r#"class A { credential = "[REDACTED]"; }"#,
        ),
        (
            r#"const token: string = "ts" as string;"#,
            r#"const token: string = "[REDACTED]" as string;"#,
        ),
    ];
    for (input, want) in table {
        assert_eq!(redact(input), want, "{input}");
    }
}

#[test]
fn computations_and_non_string_values_are_kept() {
    for code in [
        "const API_TOKEN = computeToken();",
        "const token = null; const secret = true; const password = 42;",
        "const auth = `Bearer ${token}`;",
        "const password = \"\";",
        "const author = \"Jane\";",
        "const note = \"the password is in the vault\";",
        "return await tools.login({ user: \"bob\", token: process.env.T });",
    ] {
        assert_eq!(redact(code), code);
    }
}

#[test]
fn recognisable_tokens_are_masked_anywhere() {
    let code = "// key sk-proj-abcdefghijklmnop1234\nconst x = \"ghp_abcdefghijklmnopqrstuvwxyz0123\";\nlog(`AKIAIOSFODNN7EXAMPLE`);";
    assert_eq!(
        redact(code),
        "// key [REDACTED]\nconst x = \"[REDACTED]\";\nlog(`[REDACTED]`);"
    );
    let jwt = "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N";
    assert_eq!(
        redact(&format!("const h = \"{jwt}\";")),
        "const h = \"Bearer [REDACTED]\";"
    );
}

#[test]
fn registered_secrets_and_patterns_are_masked() {
    let r = Redactor::new(
        vec!["opensesame".into(), "".into()],
        &["corp-[0-9]{4}".into()],
        "redaction",
    )
    .unwrap_or_default();
    assert_eq!(
        r.redact_source("const door = \"opensesame\"; const id = 'corp-1234';"),
        "const door = \"[REDACTED]\"; const id = '[REDACTED]';"
    );
    assert_eq!(r.redact_text("x opensesame y"), "x [REDACTED] y");
}

#[test]
fn redacting_twice_changes_nothing() {
    let r = Redactor::new(vec!["RED".into(), "ACT".into()], &["[A-Z]{3,}".into()], "r")
        .unwrap_or_default();
    for code in [
        r#"const token = "abc"; const k = "sk-proj-abcdefghijklmnop1234"; const d = "REDWOOD";"#,
        "const password = 'x' + 'y'; broken(((",
    ] {
        let once = r.redact_source(code);
        assert_eq!(r.redact_source(&once), once, "{code}");
    }
}

#[test]
fn unparsable_source_falls_back_to_token_patterns() {
    let code = "const token = \"plain\"; if ( { sk-proj-abcdefghijklmnop1234";
    assert_eq!(redact(code), "const token = \"plain\"; if ( { [REDACTED]");
}

#[test]
fn invalid_patterns_and_option_types_are_invalid_input() {
    let e = Redactor::new(vec![], &["ok".into(), "(unclosed".into()], "redaction").unwrap_err();
    assert_eq!(e.code, crate::error::ErrorCode::InvalidInput);
    assert!(
        e.message
            .starts_with("redaction.patterns[1] is not a valid regular expression: "),
        "{}",
        e.message
    );
    let bad = Redactor::from_json(
        Some(&serde_json::json!({ "secrets": ["a", 3] })),
        "redaction",
    )
    .unwrap_err();
    assert_eq!(bad.message, "redaction.secrets[1] must be a string.");
    let bad =
        Redactor::from_json(Some(&serde_json::json!({ "patterns": "x" })), "options").unwrap_err();
    assert_eq!(bad.message, "options.patterns must be an array of strings.");
    assert!(Redactor::from_json(Some(&serde_json::json!(null)), "r").is_ok());
}

#[test]
fn previews_are_redacted_before_they_are_cut() {
    let r = Redactor::new(vec!["S".repeat(40)], &[], "r").unwrap_or_default();
    let text = format!("{}{}tail", "a".repeat(500), "S".repeat(40));
    let p = r.preview(&text, 512);
    assert!(!p.contains('S') && p.ends_with('…'), "{p}");
    assert_eq!(
        r.preview("short sk-proj-abcdefghijklmnop1234", 512),
        "short [REDACTED]"
    );
    let wide = "é".repeat(600);
    let p = r.preview(&wide, 512);
    assert!(p.len() <= 512 + '…'.len_utf8() && p.ends_with('…'));
}

#[test]
fn overlapping_matches_merge_into_one_mask() {
    let r = Redactor::new(vec!["abcdef".into(), "cdefgh".into()], &[], "r").unwrap_or_default();
    assert_eq!(r.redact_text("xxabcdefghyy"), "xx[REDACTED]yy");
}
