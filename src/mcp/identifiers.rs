//! MCP identifiers (SPEC §9): server and tool names become lowerCamelCase JS identifiers,
//! unique within their scope and never a keyword, an `Object.prototype` member or a name
//! the namespace itself uses (`$api`, `resources`, `prompts`). Deterministic: the same
//! names in the same order always give the same identifiers.

use std::collections::HashSet;

/// Names an object of the namespace may never give a child: they would shadow or reach
/// into the prototype chain.
const UNSAFE: [&str; 3] = ["__proto__", "constructor", "prototype"];
/// Names every server object uses for itself.
pub const SERVER_RESERVED: [&str; 3] = ["$api", "resources", "prompts"];
/// Names the `MCP` root uses for itself.
pub const ROOT_RESERVED: [&str; 1] = ["$api"];

/// `read_file` → `readFile`, `chrome-devtools` → `chromeDevtools`, `Search` → `search`.
/// Characters outside `[A-Za-z0-9$]` separate words; a leading digit gets a `_` prefix;
/// a name with no usable character becomes `tool`.
pub fn lower_camel(name: &str) -> String {
    let mut out = String::new();
    for word in name
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '$'))
        .filter(|w| !w.is_empty())
    {
        let mut chars = word.chars();
        let Some(first) = chars.next() else { continue };
        if out.is_empty() {
            out.push(first.to_ascii_lowercase());
        } else {
            out.push(first.to_ascii_uppercase());
        }
        out.extend(chars);
    }
    if out.is_empty() {
        return "tool".to_string();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// Hands out identifiers within one scope (the servers of a session, or one server's tools).
pub struct Identifiers {
    taken: HashSet<String>,
}

impl Identifiers {
    pub fn new(reserved: &[&str]) -> Self {
        Identifiers {
            taken: reserved.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// The lowerCamelCase identifier of `name`, suffixed `2`, `3`, … when it is a keyword,
    /// unsafe, reserved here or already taken.
    pub fn assign(&mut self, name: &str) -> String {
        let base = lower_camel(name);
        let usable = |candidate: &str, taken: &HashSet<String>| {
            !taken.contains(candidate)
                && !UNSAFE.contains(&candidate)
                && !crate::catalog::is_keyword(candidate)
        };
        let mut candidate = base.clone();
        let mut n = 2u32;
        while !usable(&candidate, &self.taken) {
            candidate = format!("{base}{n}");
            n += 1;
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

/// A path segment a guest or host names inside a namespace (SPEC §9): one that could walk
/// the prototype chain, or that holds NUL, is refused.
pub fn check_segment(segment: &str) -> Result<(), String> {
    if UNSAFE.contains(&segment) || segment.contains('\0') {
        return Err(format!(
            "Invalid code mode namespace path segment: {}",
            segment.replace('\0', "\\0")
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_lower_camel_case() {
        assert_eq!(lower_camel("read_file"), "readFile");
        assert_eq!(lower_camel("chrome-devtools"), "chromeDevtools");
        assert_eq!(lower_camel("Search"), "search");
        assert_eq!(lower_camel("get.user/by id"), "getUserById");
        assert_eq!(lower_camel("2fa"), "_2fa");
        assert_eq!(lower_camel("***"), "tool");
    }

    #[test]
    fn keywords_unsafe_names_and_clashes_get_numeric_suffixes() {
        let mut ids = Identifiers::new(&SERVER_RESERVED);
        assert_eq!(ids.assign("delete"), "delete2");
        assert_eq!(ids.assign("enum"), "enum2");
        assert_eq!(ids.assign("constructor"), "constructor2");
        assert_eq!(ids.assign("__proto__"), "proto");
        assert_eq!(ids.assign("read_file"), "readFile");
        assert_eq!(ids.assign("readFile"), "readFile2");
        assert_eq!(ids.assign("read-file"), "readFile3");
        assert_eq!(ids.assign("resources"), "resources2");
        assert_eq!(ids.assign("$api"), "$api2");
    }

    #[test]
    fn unsafe_segments_are_refused() {
        for bad in ["__proto__", "constructor", "prototype", "a\0b"] {
            assert!(check_segment(bad)
                .unwrap_err()
                .starts_with("Invalid code mode namespace path segment: "));
        }
        assert!(check_segment("readFile").is_ok());
    }
}
