// Generated from ai-sdk.mjs by scripts/build-adapters.mjs: edit ai-sdk.mjs, then run
// `node scripts/build-adapters.mjs`.
"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.codeModeTools = codeModeTools;
exports.catalogTools = catalogTools;
// codemode-native for the Vercel AI SDK: the session's model-facing tools as AI SDK tools,
// and AI SDK tools as catalog ToolDefinitions.
const ai_1 = require("ai");
const shared_cjs_1 = require("./shared.cjs");
// { exec, wait, ...directOnly } for generateText/streamText `tools`. Each execute passes the
// AI SDK's abortSignal and the tool's context (AI SDK 7: `toolsContext.exec` / `.wait`,
// AI SDK 6: `experimental_context`), unless options.context is set, to the session and
// returns toModelResult(result, { budgetChars }).
function codeModeTools(session, options = {}) {
    const out = {};
    for (const t of (0, shared_cjs_1.sessionTools)(session, options)) {
        out[t.name] = (0, ai_1.tool)({
            description: t.description,
            inputSchema: (0, ai_1.jsonSchema)(t.parameters),
            execute: (input, { abortSignal, toolCallId, context, experimental_context }) => t.run(input, { signal: abortSignal, callId: toolCallId, context: options.context ?? context ?? experimental_context }),
        });
    }
    return out;
}
// AI SDK tools (a record by name, as generateText takes them) as catalog ToolDefinitions.
// The AI SDK's execute options are built from ctx: toolCallId is the call id, abortSignal
// the call's signal, `context` (AI SDK 7) and `experimental_context` (AI SDK 6) the exec
// call's `context`, messages empty.
// Streaming tools are drained to their last value; a throw stays a tool error.
function catalogTools(tools) {
    if (tools === null || typeof tools !== "object")
        throw (0, shared_cjs_1.invalid)("catalogTools takes a record of AI SDK tools");
    return Object.entries(tools).map(([name, t]) => {
        if (typeof t.execute !== "function")
            throw (0, shared_cjs_1.invalid)(`AI SDK tool ${name} has no execute`);
        const schema = t.inputSchema === undefined ? undefined : (0, ai_1.asSchema)(t.inputSchema).jsonSchema;
        if (schema !== undefined && typeof schema.then === "function") {
            throw (0, shared_cjs_1.invalid)(`AI SDK tool ${name} has an asynchronous input schema; pass a resolved JSON Schema`);
        }
        return (0, shared_cjs_1.definition)(name, t.description, schema, async (input, ctx) => (0, shared_cjs_1.drain)(await t.execute(input, { toolCallId: ctx.callId, messages: [], abortSignal: ctx.signal, context: ctx.context, experimental_context: ctx.context })));
    });
}
