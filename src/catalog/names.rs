//! Callable names: the deterministic mapping from host tool names to guest globals.
//! Invariant: within one catalog every callable name is unique, a valid JS identifier,
//! and never a reserved word, runtime global or built-in.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use super::reserved::{BUILTINS, KEYWORDS, RUNTIME_GLOBALS};

/// Whether `name` is a JS reserved word, a code-mode runtime global or a standard
/// built-in global (case-sensitive, as JS is). Namespace validation can reuse this.
pub fn is_reserved(name: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| {
        [KEYWORDS, RUNTIME_GLOBALS, BUILTINS]
            .iter()
            .flat_map(|list| list.split_whitespace())
            .collect()
    })
    .contains(name)
}

/// Why `name` cannot be a guest global, if it cannot: the three families of reserved names.
pub fn reserved_kind(name: &str) -> Option<&'static str> {
    let within = |list: &str| list.split_whitespace().any(|w| w == name);
    if within(KEYWORDS) {
        Some("a JavaScript reserved word")
    } else if within(RUNTIME_GLOBALS) {
        Some("a code mode runtime global")
    } else if within(BUILTINS) {
        Some("a JavaScript built-in")
    } else {
        None
    }
}

/// Whether `name` is a JS reserved word or a keyword that cannot be a plain binding.
pub fn is_keyword(name: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| KEYWORDS.split_whitespace().collect())
        .contains(name)
}

/// Replaces every char outside `[A-Za-z0-9_$]` with `_` and prefixes `tool_` when the
/// result does not start with a letter, `_` or `$`.
pub(super) fn sanitize(name: &str) -> String {
    let body: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '$' {
                c
            } else {
                '_'
            }
        })
        .collect();
    match body.chars().next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$' => body,
        _ => format!("tool_{body}"),
    }
}

/// Assigns callable names to `host_names` (catalog order, exact names unique).
/// `taken` reports names already in use (earlier entries on append); `extra_reserved`
/// adds namespace globals. Three passes, so order of arrival never decides who keeps
/// a plain spelling over an exact safe name:
/// 1. names that are already safe identifiers keep their spelling;
/// 2. other names take their sanitized spelling if still free;
/// 3. the rest (reserved or colliding) get `_` + a sha256 prefix of the host name.
pub(super) fn assign_callable_names(
    host_names: &[&str],
    taken: &dyn Fn(&str) -> bool,
    extra_reserved: &[String],
) -> Vec<String> {
    let blocked = |name: &str| is_reserved(name) || extra_reserved.iter().any(|r| r == name);
    let sanitized: Vec<String> = host_names.iter().map(|n| sanitize(n)).collect();
    let mut claimed: HashSet<String> = HashSet::new();
    let mut result: Vec<Option<String>> = vec![None; host_names.len()];
    let free = |claimed: &HashSet<String>, name: &str| {
        !blocked(name) && !taken(name) && !claimed.contains(name)
    };

    for exact_pass in [true, false] {
        for (i, spelled) in sanitized.iter().enumerate() {
            let is_exact = spelled.as_str() == host_names[i];
            if result[i].is_some() || is_exact != exact_pass || !free(&claimed, spelled) {
                continue;
            }
            claimed.insert(spelled.clone());
            result[i] = Some(spelled.clone());
        }
    }

    for (i, spelled) in sanitized.iter().enumerate() {
        if result[i].is_some() {
            continue;
        }
        let name = suffixed(spelled, host_names[i], |n| free(&claimed, n));
        claimed.insert(name.clone());
        result[i] = Some(name);
    }
    // Every slot is filled by now; flatten only unwraps.
    result.into_iter().flatten().collect()
}

/// `<spelled>_<hex>` with 8, 10, … 64 hex chars of sha256(host name), then a counter
/// in the (practically unreachable) case that every hash length is taken.
fn suffixed(spelled: &str, host_name: &str, free: impl Fn(&str) -> bool) -> String {
    let digest = Sha256::digest(host_name.as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest {
        let _ = write!(hex, "{byte:02x}");
    }
    for len in (8..=64).step_by(2) {
        let candidate = format!("{spelled}_{}", &hex[..len]);
        if free(&candidate) {
            return candidate;
        }
    }
    let mut n: u64 = 2;
    loop {
        let candidate = format!("{spelled}_{hex}_{n}");
        if free(&candidate) {
            return candidate;
        }
        n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assign(names: &[&str]) -> Vec<String> {
        assign_callable_names(names, &|_| false, &[])
    }

    #[test]
    fn callable_names_follow_the_spec_table() {
        let hosts = [
            "sessions_spawn",
            "llm-task",
            "llm_task",
            "catalog",
            "MCP",
            "class",
            "9patch",
            "delete",
            "1password",
            "a-b",
            "a_b",
        ];
        let expected = [
            "sessions_spawn",
            "llm_task_5bc99c96",
            "llm_task",
            "catalog_652f5501",
            "MCP_53f13ae9",
            "class_0889113e",
            "tool_9patch",
            "delete_61975955",
            "tool_1password",
            "a_b_d44362d6",
            "a_b",
        ];
        assert_eq!(assign(&hosts), expected);
    }

    #[test]
    fn an_exact_safe_name_wins_regardless_of_order() {
        assert_eq!(assign(&["a_b", "a-b"]), ["a_b", "a_b_d44362d6"]);
        assert_eq!(assign(&["a-b", "a_b"]), ["a_b_d44362d6", "a_b"]);
    }

    #[test]
    fn sanitizing_replaces_each_unsafe_char_and_prefixes_non_identifier_starts() {
        assert_eq!(sanitize("web.search/v2"), "web_search_v2");
        assert_eq!(sanitize("$jq"), "$jq");
        assert_eq!(sanitize("héllo"), "h_llo");
        assert_eq!(sanitize("-x"), "_x");
        assert_eq!(sanitize(""), "tool_");
    }

    #[test]
    fn a_collision_with_a_suffixed_name_lengthens_the_hash() {
        let names = assign(&["delete", "delete_61975955"]);
        assert_eq!(names[1], "delete_61975955");
        assert_eq!(names[0].len(), "delete_".len() + 10);
        assert!(names[0].starts_with("delete_61975955"));
    }

    #[test]
    fn names_taken_by_existing_entries_are_avoided() {
        let names = assign_callable_names(&["read"], &|n| n == "read", &[]);
        assert!(names[0].starts_with("read_") && names[0].len() == "read_".len() + 8);
    }

    #[test]
    fn keywords_runtime_globals_and_builtins_are_reserved() {
        for name in [
            "await",
            "yield",
            "let",
            "static",
            "implements",
            "arguments",
            "eval",
        ] {
            assert!(is_reserved(name), "{name}");
        }
        for name in [
            "setTimeout",
            "yield_control",
            "URLSearchParams",
            "Math",
            "NaN",
            "__proto__",
        ] {
            assert!(is_reserved(name), "{name}");
        }
        assert!(!is_reserved("mcp") && !is_reserved("exec") && !is_reserved("read"));
    }

    #[test]
    fn assignment_is_deterministic() {
        let hosts = ["x-y", "x_y", "x.y", "Array", "eval"];
        assert_eq!(assign(&hosts), assign(&hosts));
        let all = assign(&hosts);
        let unique: HashSet<&String> = all.iter().collect();
        assert_eq!(unique.len(), all.len());
    }
}
