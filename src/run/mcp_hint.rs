//! QuickJS says only `TypeError: not a function` when a guest calls a tool an MCP server
//! lacks (`MCP.fs.noSuchTool({})`); this finds the call on the failing line of the user's
//! source and names the server, the tool and its nearest tools instead.

use super::owner::Directory;
use serde_json::Value;

/// The lines of a cell's source that mention `MCP.`, kept (instead of the whole source)
/// to explain a failing call on one of them.
#[derive(Default)]
pub struct McpLines(Vec<(u32, String)>);

impl McpLines {
    pub fn of(source: &str) -> Self {
        McpLines(
            source
                .lines()
                .enumerate()
                .filter(|(_, line)| line.contains("MCP."))
                .map(|(i, line)| (u32::try_from(i + 1).unwrap_or(u32::MAX), line.to_string()))
                .collect(),
        )
    }

    fn line(&self, number: u32) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| *n == number)
            .map(|(_, l)| l.as_str())
    }
}

/// `text` (a guest error as the model reads it, frames at user positions) with a bare
/// "not a function" on an `MCP.<server>.<tool>` call explained; `None` when it is another
/// error or no missing tool is called on the failing line.
pub fn explain(
    text: &str,
    lines: &McpLines,
    user_file: &str,
    dir: &dyn Directory,
) -> Option<String> {
    let (first, frames) = text.split_once('\n').unwrap_or((text, ""));
    if first != "TypeError: not a function" {
        return None;
    }
    let number = failing_line(frames, user_file)?;
    let line = lines.line(number)?;
    let (server, tool, known) = calls(line).into_iter().find_map(|(server, tool)| {
        let (known, own_names) = tools_of(dir, &server)?;
        let exists = known.contains(&tool) || own_names.contains(&tool);
        (!exists).then_some((server, tool, known))
    })?;
    let hint = match nearest_tools(&tool, &known).as_slice() {
        [] => "it has no tools".to_string(),
        [one] => format!("did you mean MCP.{server}.{one}?"),
        several => format!(
            "did you mean one of {}?",
            several
                .iter()
                .map(|t| format!("MCP.{server}.{t}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let message = format!(
        "TypeError: MCP.{server}.{tool} is not a function: MCP server \"{server}\" has no tool \"{tool}\"; {hint} (API.list(\"mcp/{server}\") lists its tools)"
    );
    Some(if frames.is_empty() {
        message
    } else {
        format!("{message}\n{frames}")
    })
}

// The line number of the first frame in the user's file.
fn failing_line(frames: &str, user_file: &str) -> Option<u32> {
    let marker = format!("{user_file}:");
    frames.lines().find_map(|frame| {
        let after = &frame[frame.find(&marker)? + marker.len()..];
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    })
}

// Every call `MCP.<identifier>.<identifier>(` on `line`, in order.
fn calls(line: &str) -> Vec<(String, String)> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
            .collect()
    };
    let mut found = Vec::new();
    for (at, _) in line.match_indices("MCP.") {
        // `xMCP.` is another name.
        let before = line[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.') {
            continue;
        }
        let rest = &line[at + 4..];
        let server = ident(rest);
        let Some(after) = rest[server.len()..].strip_prefix('.') else {
            continue;
        };
        let tool = ident(after);
        let called = after[tool.len()..].trim_start().starts_with('(');
        if called && !server.is_empty() && !tool.is_empty() {
            found.push((server, tool));
        }
    }
    found
}

// The guest-facing tool names of `server` and the server's own names for them (which
// the guest may call too); `None` for a server the session lacks.
fn tools_of(dir: &dyn Directory, server: &str) -> Option<(Vec<String>, Vec<String>)> {
    let api: Value = serde_json::from_str(&dir.mcp_api(server, None, false).ok()?).ok()?;
    let tools = api.get("tools")?.as_array()?;
    let field = |key: &str| -> Vec<String> {
        tools
            .iter()
            .filter_map(|t| t.get(key)?.as_str().map(str::to_owned))
            .collect()
    };
    Some((field("name"), field("toolName")))
}

// Up to three tools nearest to `wanted`: the close match first, then the closest by
// edit distance.
fn nearest_tools(wanted: &str, known: &[String]) -> Vec<String> {
    let names: Vec<&str> = known.iter().map(String::as_str).collect();
    let mut ranked: Vec<&str> = names.clone();
    ranked.sort_by_key(|name| crate::nearest::distance(wanted, name));
    let mut picked: Vec<String> = Vec::new();
    if let Some(close) = crate::nearest::nearest(wanted, &names) {
        picked.push(close.to_string());
    }
    for name in ranked {
        if picked.len() == 3 {
            break;
        }
        if !picked.iter().any(|p| p == name) {
            picked.push(name.to_string());
        }
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_found_in_order_and_other_names_skipped() {
        assert_eq!(
            calls("const a = await MCP.fs.read_file({}); xMCP.no.no(); typeof MCP.fs.gone; MCP.mem.x_y$ ()"),
            vec![
                ("fs".into(), "read_file".into()),
                ("mem".into(), "x_y$".into())
            ]
        );
    }

    #[test]
    fn the_failing_line_is_the_first_user_frame() {
        let frames = "    at run (codemode:prelude:2:1)\n    at <anonymous> (user.js:3:14)";
        assert_eq!(failing_line(frames, "user.js"), Some(3));
    }

    #[test]
    fn the_nearest_tools_start_with_the_close_match() {
        let known = [
            "write_file",
            "read_file",
            "list_directory",
            "read_multiple_files",
        ]
        .map(String::from);
        assert_eq!(nearest_tools("read_fil", &known)[0], "read_file");
        assert_eq!(nearest_tools("read_fil", &known).len(), 3);
    }
}
