//! Config paths in messages, written the way a JS author would address them:
//! `agents.entries.main.tools.codeMode`, `agents.defaults.models["openai/*"].codeMode`.

/// `parent.key` for identifier-like keys, `parent["key"]` (JSON-quoted) for others.
pub fn child(parent: &str, key: &str) -> String {
    if is_identifier(key) {
        format!("{parent}.{key}")
    } else {
        format!("{parent}[{}]", quoted(key))
    }
}

/// `parent["key"]` always: model ids read best bracketed even when they are identifiers.
pub fn index(parent: &str, key: &str) -> String {
    format!("{parent}[{}]", quoted(key))
}

fn quoted(key: &str) -> String {
    serde_json::to_string(key).unwrap_or_else(|_| format!("\"{key}\""))
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$');
    first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_use_dots_and_others_brackets() {
        assert_eq!(child("agents.entries", "main"), "agents.entries.main");
        assert_eq!(
            child("agents.entries", "my-agent"),
            r#"agents.entries["my-agent"]"#
        );
        assert_eq!(
            index("agents.defaults.models", "openai/*"),
            r#"agents.defaults.models["openai/*"]"#
        );
        assert_eq!(child("a", "q\"x"), r#"a["q\"x"]"#);
    }
}
