//! The model-facing tool definitions (`modelTools()`): `exec` with its description and
//! quick index, `wait`, then the direct-only tools unchanged. Deterministic for equal
//! catalogs: nothing here depends on time, randomness or hash order.

use crate::catalog::{quick_index, Catalog};
use crate::limits::Limits;
use serde_json::{json, Value};

/// Characters the quick index may take in the exec description (SPEC §4).
pub const QUICK_INDEX_CHARS: usize = 8_000;

pub fn exec_description(catalog: &Catalog, limits: &Limits) -> String {
    let mut text = format!(
        "Run a short JavaScript or TypeScript program (the body of an async function) that orchestrates tools, then `return` one JSON value. \
Not shell: no commands, no require/import, no Node modules, no fetch or filesystem.\n\
- Every tool is an async global function: `const r = await tool_name({{ ...input }})`. Use `Promise.all([...])` for independent calls.\n\
- Lines below read `- name <input> -> <output>`. `-> ?` means the output shape is unknown: return that value unchanged first and compose with it in a later exec; never guess its fields.\n\
- When a tool is not listed, `await catalog.search(query, {{ limit }})` returns callable tool functions; `await fn.describe()` gives the full schema.\n\
- `text(value)` and `json(value)` add output; `console.log` works too. `setTimeout`/`clearTimeout` are available.\n\
- A failed tool call throws an Error with `message`, `code` and `effectStatus: \"unknown\"`: catch it, and inspect what the tool may already have done before retrying.\n\
- Budget: {} ms of wall clock per exec or wait call; output and the returned value share {} bytes.\n\
- If the result has `status: \"waiting\"`, call `wait` with its top-level `runId` to continue; never rerun the program.",
        limits.timeout_ms, limits.max_output_bytes
    );
    let index = quick_index(catalog, QUICK_INDEX_CHARS);
    if !index.is_empty() {
        text.push_str("\n\n");
        text.push_str(&index);
    }
    text
}

pub fn exec_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "code": { "type": "string", "description": "JavaScript or TypeScript source: the body of an async function; `return` the result." },
            "language": { "type": "string", "enum": ["javascript", "typescript"], "description": "Defaults to javascript." },
            "restartSafe": { "type": "boolean", "description": "Leave unset. Only set true when the gateway asks to replay a cell after a restart." }
        },
        "required": ["code"],
        "additionalProperties": false
    })
}

pub const WAIT_DESCRIPTION: &str = "Continue a code mode program whose exec (or previous wait) result had status \"waiting\". \
Pass the top-level runId of that result, never a nested tool's id. Only use it for waiting results; it returns the same kind of result as exec.";

pub fn wait_parameters() -> Value {
    json!({
        "type": "object",
        "properties": { "runId": { "type": "string", "description": "The runId of the waiting result." } },
        "required": ["runId"],
        "additionalProperties": false
    })
}

/// `[exec, wait, ...directOnly]`, each `{ name, description, parameters }`.
pub fn model_tools(catalog: &Catalog, limits: &Limits, direct_only: &[Value]) -> Value {
    let mut tools = vec![
        json!({ "name": "exec", "description": exec_description(catalog, limits), "parameters": exec_parameters() }),
        json!({ "name": "wait", "description": WAIT_DESCRIPTION, "parameters": wait_parameters() }),
    ];
    tools.extend(direct_only.iter().cloned());
    Value::Array(tools)
}
