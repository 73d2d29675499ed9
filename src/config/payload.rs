//! `assertCodeModePayload` (docs/contract.md, Config and activation): the fail-closed check
//! of the final tool list a gateway sends to a model once code mode engaged: exactly one
//! `exec`, one `wait`, and otherwise only approved direct-only tools, each once.

use crate::error::CodeModeError;
use std::collections::HashSet;

/// Names shown in a message before it says how many more there are.
const NAMES_SHOWN: usize = 10;

/// `Ok` when `tool_names` is a valid code-mode payload, else the `invalid_input` error
/// naming what is wrong (missing or repeated control tools, unapproved or repeated names).
pub fn assert_code_mode_payload(
    tool_names: &[String],
    direct_only: &[String],
) -> Result<(), CodeModeError> {
    let mut problems = Vec::new();
    for control in ["exec", "wait"] {
        let count = tool_names.iter().filter(|n| *n == control).count();
        if count != 1 {
            problems.push(format!(
                "exactly one \"{control}\" tool is required (found {count})"
            ));
        }
    }
    let approved: HashSet<&str> = direct_only.iter().map(String::as_str).collect();
    let mut seen = HashSet::new();
    let mut unapproved = Vec::new();
    let mut repeated = Vec::new();
    for name in tool_names {
        if name == "exec" || name == "wait" {
            continue;
        }
        if !approved.contains(name.as_str()) {
            if !unapproved.contains(&name.as_str()) {
                unapproved.push(name.as_str());
            }
        } else if !seen.insert(name.as_str()) && !repeated.contains(&name.as_str()) {
            repeated.push(name.as_str());
        }
    }
    if !unapproved.is_empty() {
        problems.push(format!(
            "tools that are not approved direct-only tools must stay in the catalog: {}",
            name_list(&unapproved)
        ));
    }
    if !repeated.is_empty() {
        problems.push(format!(
            "direct-only tools listed more than once: {}",
            name_list(&repeated)
        ));
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(CodeModeError::invalid_input(format!(
        "code mode payload rejected: {}.",
        problems.join("; ")
    )))
}

fn name_list(names: &[&str]) -> String {
    let shown: Vec<String> = names
        .iter()
        .take(NAMES_SHOWN)
        .map(|n| serde_json::to_string(n).unwrap_or_default())
        .collect();
    let more = names.len().saturating_sub(NAMES_SHOWN);
    if more == 0 {
        shown.join(", ")
    } else {
        format!("{} and {more} more", shown.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn check(list: &[&str], direct: &[&str]) -> Result<(), String> {
        assert_code_mode_payload(&names(list), &names(direct)).map_err(|e| e.message)
    }

    #[test]
    fn exact_control_tools_and_approved_direct_tools_pass() {
        assert_eq!(check(&["exec", "wait"], &[]), Ok(()));
        assert_eq!(
            check(&["wait", "ask_user", "exec"], &["ask_user", "other"]),
            Ok(())
        );
    }

    #[test]
    fn missing_or_repeated_control_tools_fail() {
        assert_eq!(
            check(&["exec"], &[]),
            Err(
                "code mode payload rejected: exactly one \"wait\" tool is required (found 0)."
                    .into()
            )
        );
        let twice = check(&["exec", "exec", "wait"], &[]).unwrap_err();
        assert!(
            twice.contains("exactly one \"exec\" tool is required (found 2)"),
            "{twice}"
        );
    }

    #[test]
    fn unapproved_and_repeated_tools_are_named() {
        let e = check(
            &["exec", "wait", "read_file", "ask", "ask", "web"],
            &["ask"],
        )
        .unwrap_err();
        assert_eq!(
            e,
            "code mode payload rejected: tools that are not approved direct-only tools must stay in the catalog: \"read_file\", \"web\"; direct-only tools listed more than once: \"ask\"."
        );
    }

    #[test]
    fn long_lists_are_cut() {
        let many: Vec<String> = (0..15).map(|i| format!("t{i}")).collect();
        let mut list = names(&["exec", "wait"]);
        list.extend(many);
        let e = assert_code_mode_payload(&list, &[]).unwrap_err().message;
        assert!(e.ends_with("\"t9\" and 5 more."), "{e}");
    }
}
