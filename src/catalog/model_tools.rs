//! The model-facing tool definitions (`modelTools()`): `exec` with its description and
//! quick index, `wait`, then the direct-only tools unchanged. Deterministic for equal
//! catalogs: nothing here depends on time, randomness or hash order.

use crate::catalog::{quick_index, Catalog};
use crate::limits::{Languages, Limits};
use crate::mcp::McpCatalog;
use crate::surfaces::Surfaces;
use serde_json::{json, Value};

/// What the session offers beyond catalog tools; each part is described only when present.
pub struct Extras<'a> {
    pub mcp: &'a McpCatalog,
    pub surfaces: &'a Surfaces,
}

/// Lines the host-supplied namespace description and prompt may take each.
const NAMESPACE_TEXT_CHARS: usize = 600;

fn bounded(text: &str) -> String {
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= NAMESPACE_TEXT_CHARS {
        text
    } else {
        let cut: String = text.chars().take(NAMESPACE_TEXT_CHARS).collect();
        format!("{cut}…")
    }
}

fn extras_text(extras: &Extras) -> String {
    let mut text = String::new();
    let mcp = extras.mcp;
    if mcp.is_configured() {
        let visible: Vec<String> = mcp
            .servers
            .iter()
            .map(|s| format!("MCP.{}", s.identifier))
            .collect();
        text.push_str("\n- MCP servers are reachable only through the `MCP` namespace, never as globals or in `catalog`: call `await MCP.<server>.<tool>({ ...input })` with one object argument; results are `{ content, structuredContent?, isError }` and `isError: true` does not throw.");
        if !visible.is_empty() {
            text.push_str(&format!(" Servers: {}.", visible.join(", ")));
        }
        if !mcp.loading.is_empty() {
            text.push_str(&format!(" Loading: {}.", mcp.loading.join(", ")));
        }
        if !mcp.unavailable.is_empty() {
            let names: Vec<&str> = mcp.unavailable.iter().map(|(n, _)| n.as_str()).collect();
            text.push_str(&format!(
                " Unavailable now (their tools failed to load): {}.",
                names.join(", ")
            ));
        }
        text.push_str("\n- `API.list(\"mcp\").files` lists declaration files and `API.read(\"mcp/<server>.d.ts\").content` is the server's tools as TypeScript-style signatures (`API.read` returns `{ path, description, bytes, content }`); read one before calling an unfamiliar MCP tool. `MCP.<server>.resources.list()/templates()/read({ uri })` and `prompts.list()/get({ name, arguments })` work where the server supports them.");
    }
    let surfaces = extras.surfaces;
    if surfaces.has_nodes() {
        text.push_str("\n- Paired devices: `await nodes.list()`, then `const node = await nodes.get(idOrName)` and `await node.invoke(command, params)` for a command the node advertises.");
    }
    if surfaces.has_skills() {
        text.push_str("\n- Skills: `await skills.list()` and `await skills.read(name, relativePath?)` return skill text.");
    }
    for ns in surfaces.namespaces() {
        text.push_str(&format!("\n- Namespace `{}`: call its functions as `await {}.<path>.<fn>(args)` (also `namespaces.{}`).", ns.global_name, ns.global_name, ns.global_name));
        if !ns.description.trim().is_empty() {
            text.push(' ');
            text.push_str(&bounded(&ns.description));
        }
        if !ns.prompt.trim().is_empty() {
            text.push(' ');
            text.push_str(&bounded(&ns.prompt));
        }
    }
    if surfaces.has_swarm() {
        text.push_str("\n- Swarm: `await agents.run({ task, ... })` runs a sub-agent; `phase(title)` and `log(message)` mark progress; `API.read(\"agents.d.ts\").content` has the declarations.");
    }
    text
}

/// Characters the quick index may take in the exec description (docs/contract.md, Catalog).
pub const QUICK_INDEX_CHARS: usize = 8_000;

pub fn exec_description(catalog: &Catalog, limits: &Limits, extras: &Extras) -> String {
    let mut text = format!(
        "Run a short {} program (the body of an async function) that orchestrates tools, then `return` one JSON value. \
Not shell: no commands, no require/import, no Node modules, no fetch or filesystem.\n\
- Every tool is an async global function: `const r = await tool_name({{ ...input }})`. Use `Promise.all([...])` for independent calls.\n\
- Lines below read `- name <input> -> <output>`. `-> ?` means the output shape is unknown: return that value unchanged first and compose with it in a later exec; never guess its fields.\n\
- When a tool is not listed, `await catalog.search(query, {{ limit }})` returns callable tool functions; `await fn.describe()` gives the full schema.\n\
- `text(value)` and `json(value)` add output; `console.log` works too. `setTimeout`/`clearTimeout` are available.\n\
- A failed tool call throws a catchable Error (`message`, `code`, `effectStatus`): check what the tool may already have done before retrying.\n\
- Budget: {} ms of wall clock per exec or wait call; output and the returned value share {} bytes.\n\
- If the result has `status: \"waiting\"`, call `wait` with its top-level `runId` to continue; never rerun the program.",
        program_noun(limits.languages),
        limits.timeout_ms,
        limits.max_output_bytes
    );
    text.push_str(&extras_text(extras));
    let index = quick_index(catalog, QUICK_INDEX_CHARS);
    if !index.is_empty() {
        text.push_str("\n\n");
        text.push_str(&index);
    }
    text
}

/// The languages the session accepts, as the description names them.
fn program_noun(languages: Languages) -> &'static str {
    match (languages.javascript, languages.typescript) {
        (true, false) => "JavaScript",
        (false, true) => "TypeScript (`language: \"typescript\"`)",
        _ => "JavaScript or TypeScript",
    }
}

/// `exec`'s input schema: `language` offers only the enabled languages, and is required
/// when JavaScript (the default) is disabled.
pub fn exec_parameters(languages: Languages) -> Value {
    let (language_description, required) = if languages.javascript {
        ("Defaults to javascript.", json!(["code"]))
    } else {
        (
            "Required: only typescript is enabled.",
            json!(["code", "language"]),
        )
    };
    json!({
        "type": "object",
        "properties": {
            "code": { "type": "string", "description": "Program source (the body of an async function); `return` the result." },
            "language": { "type": "string", "enum": languages.to_json(), "description": language_description },
            "restartSafe": { "type": "boolean", "description": "Leave unset unless the gateway asks to replay a cell after a restart." }
        },
        "required": required,
        "additionalProperties": false
    })
}

pub const WAIT_DESCRIPTION: &str = "Continue a code mode program whose exec or wait result had status \"waiting\": \
pass that result's top-level runId, never a nested tool's id. Only for waiting results; returns the same kind of result as exec.";

pub fn wait_parameters() -> Value {
    json!({
        "type": "object",
        "properties": { "runId": { "type": "string", "description": "The runId of the waiting result." } },
        "required": ["runId"],
        "additionalProperties": false
    })
}

/// `[exec, wait, ...directOnly]`, each `{ name, description, parameters }`.
pub fn model_tools(
    catalog: &Catalog,
    limits: &Limits,
    extras: &Extras,
    direct_only: &[Value],
) -> Value {
    let mut tools = vec![
        json!({ "name": "exec", "description": exec_description(catalog, limits, extras), "parameters": exec_parameters(limits.languages) }),
        json!({ "name": "wait", "description": WAIT_DESCRIPTION, "parameters": wait_parameters() }),
    ];
    tools.extend(direct_only.iter().cloned());
    Value::Array(tools)
}
