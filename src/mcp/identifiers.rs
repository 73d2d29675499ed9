//! MCP identifiers (docs/contract.md, MCP): server and tool names become unique
//! lowerCamelCase JS identifiers, never a keyword, an `Object.prototype` member or `$api`,
//! `resources`, `prompts`; the same set of names gives the same identifiers in any order.

use std::collections::{BTreeMap, HashSet};

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

    fn usable(&self, candidate: &str) -> bool {
        !self.taken.contains(candidate)
            && !UNSAFE.contains(&candidate)
            && !crate::catalog::is_keyword(candidate)
    }

    /// The lowerCamelCase identifier of `name`, suffixed `2`, `3`, … when it is a keyword,
    /// unsafe, reserved here or already taken.
    pub fn assign(&mut self, name: &str) -> String {
        let base = lower_camel(name);
        let mut candidate = base.clone();
        let mut n = 2u32;
        while !self.usable(&candidate) {
            candidate = format!("{base}{n}");
            n += 1;
        }
        self.taken.insert(candidate.clone());
        candidate
    }

    /// Identifiers for `names` (returned in their order) that do not depend on that order:
    /// names that already are usable identifiers claim themselves first, then the rest
    /// are assigned in sorted order, so suffixes stay put when a server reorders its list.
    pub fn assign_all(&mut self, names: &[&str]) -> Vec<String> {
        let mut order: Vec<usize> = (0..names.len()).collect();
        let is_own = |name: &str| lower_camel(name) == name && self.usable(name);
        order.sort_by(|&a, &b| {
            (!is_own(names[a]), names[a], a).cmp(&(!is_own(names[b]), names[b], b))
        });
        let mut out = vec![String::new(); names.len()];
        for i in order {
            out[i] = self.assign(names[i]);
        }
        out
    }
}

/// Own names that differ from their identifier and may stand beside the identifiers:
/// never one that is some entry's identifier or a reserved or prototype name.
pub fn aliases<'a>(
    pairs: impl Iterator<Item = (&'a str, &'a str)> + Clone,
    reserved: &[&str],
) -> BTreeMap<String, String> {
    let identifiers: HashSet<&str> = pairs.clone().map(|(_, id)| id).collect();
    pairs
        .filter(|(name, id)| {
            name != id
                && !identifiers.contains(name)
                && !reserved.contains(name)
                && !UNSAFE.contains(name)
                && !name.contains('\0')
        })
        .map(|(name, id)| (name.to_string(), id.to_string()))
        .collect()
}

/// A path segment a guest or host names inside a namespace (docs/contract.md, MCP): one
/// that could walk the prototype chain, or that holds NUL, is refused.
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
    fn assignment_ignores_listing_order_and_lets_exact_names_keep_themselves() {
        let forward = ["get-user", "getUser", "get_user", "delete", "delete2"];
        let backward = ["delete2", "delete", "get_user", "getUser", "get-user"];
        let a = Identifiers::new(&SERVER_RESERVED).assign_all(&forward);
        let b = Identifiers::new(&SERVER_RESERVED).assign_all(&backward);
        assert_eq!(a, ["getUser2", "getUser", "getUser3", "delete3", "delete2"]);
        let by_name = |names: &[&str], ids: &[String], name: &str| {
            let i = names.iter().position(|n| *n == name).unwrap();
            ids[i].clone()
        };
        for name in forward {
            assert_eq!(by_name(&forward, &a, name), by_name(&backward, &b, name));
        }
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
