//! A guest calling a misspelt tool (`searchTicket(…)`) gets QuickJS's `ReferenceError:
//! searchTicket is not defined`; this adds the catalog tool it most likely meant.

use serde_json::Value;

/// `text` (a guest error as the model reads it) with `; did you mean <tool>?` after an
/// undefined name close to a catalog tool; `None` for any other error. `prelude_config`
/// is the session's prelude configuration, whose `tools` are the callable names.
pub fn explain(text: &str, prelude_config: &str) -> Option<String> {
    let (first, frames) = text.split_once('\n').unwrap_or((text, ""));
    let name = first
        .strip_prefix("ReferenceError: ")?
        .strip_suffix(" is not defined")?
        .trim_matches('\'');
    let config: Value = serde_json::from_str(prelude_config).ok()?;
    let tools: Vec<&str> = config
        .get("tools")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let near = crate::nearest::nearest(name, &tools).filter(|near| *near != name)?;
    let message = format!("{first}; did you mean {near}?");
    Some(if frames.is_empty() {
        message
    } else {
        format!("{message}\n{frames}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = r#"{"tools":["searchTickets","get_weather"],"surfaces":null,"mcp":null}"#;

    #[test]
    fn a_near_miss_of_a_tool_is_suggested_and_the_frames_kept() {
        assert_eq!(
            explain("ReferenceError: searchTicket is not defined\n    at <anonymous> (user.js:1:14)", CONFIG).as_deref(),
            Some("ReferenceError: searchTicket is not defined; did you mean searchTickets?\n    at <anonymous> (user.js:1:14)")
        );
    }

    #[test]
    fn names_far_from_every_tool_and_other_errors_are_left_alone() {
        assert_eq!(
            explain("ReferenceError: zzzzzzzz is not defined", CONFIG),
            None
        );
        assert_eq!(explain("TypeError: not a function", CONFIG), None);
    }
}
