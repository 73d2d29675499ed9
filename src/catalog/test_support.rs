//! Test fixtures shared by the catalog's unit tests: tool specs and generated catalogs.

use serde_json::json;

use super::{Source, ToolSpec};

/// A core tool with nothing but a name.
pub(super) fn tool(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.to_owned(),
        ..ToolSpec::default()
    }
}

/// A client tool with nothing but a name.
pub(super) fn client(name: &str) -> ToolSpec {
    ToolSpec {
        source: Source::Client,
        ..tool(name)
    }
}

const VERBS: [(&str, &str); 10] = [
    ("send", "Send"),
    ("read", "Read"),
    ("list", "List"),
    ("create", "Create a new"),
    ("delete", "Permanently remove"),
    ("update", "Update"),
    ("search", "Search"),
    ("archive", "Archive"),
    ("export", "Export"),
    ("share", "Share"),
];

const NOUNS: [(&str, &str); 20] = [
    ("email", "email messages"),
    ("sms", "text messages"),
    ("chat_message", "chat messages"),
    ("calendar_event", "calendar events"),
    ("file", "files"),
    ("folder", "folders"),
    ("issue", "issues"),
    ("pull_request", "pull requests"),
    ("contact", "contacts"),
    ("invoice", "invoices"),
    ("ticket", "support tickets"),
    ("note", "notes"),
    ("task", "tasks"),
    ("document", "documents"),
    ("spreadsheet", "spreadsheets"),
    ("image", "images"),
    ("video", "videos"),
    ("webhook", "webhooks"),
    ("user", "users"),
    ("repository", "repositories"),
];

/// `n` plausible core tools (`send_email`, `list_files`, …; beyond 200 the names
/// repeat with a numeric suffix), each with a description and a small input schema.
pub(super) fn generated(n: usize) -> Vec<ToolSpec> {
    (0..n)
        .map(|i| {
            let (verb, verb_text) = VERBS[i % VERBS.len()];
            let (noun, noun_text) = NOUNS[(i / VERBS.len()) % NOUNS.len()];
            let round = i / (VERBS.len() * NOUNS.len());
            let name = if round == 0 {
                format!("{verb}_{noun}")
            } else {
                format!("{verb}_{noun}_{round}")
            };
            let mut spec = tool(&name);
            spec.description =
                format!("{verb_text} {noun_text} in the connected workspace account.");
            spec.parameters = Some(json!({
                "type": "object",
                "required": ["id"],
                "additionalProperties": false,
                "properties": {
                    "id": {"type": "string", "description": format!("Identifier of the {noun_text}.")},
                    "limit": {"type": "integer", "minimum": 1},
                },
            }));
            spec
        })
        .collect()
}
