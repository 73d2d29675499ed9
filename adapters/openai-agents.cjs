// Generated from openai-agents.mjs by scripts/build-adapters.mjs: edit openai-agents.mjs, then run
// `node scripts/build-adapters.mjs`.
"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.codeModeTools = codeModeTools;
exports.catalogTools = catalogTools;
// codemode-native for the OpenAI Agents SDK (@openai/agents): the session's model-facing
// tools as function tools, and function tools as catalog ToolDefinitions.
const agents_1 = require("@openai/agents");
const shared_cjs_1 = require("./shared.cjs");
// What the SDK's default errorFunction sends the model in place of a tool's error.
const HIDDEN_ERROR = "An error occurred while running the tool. Please try again.";
// [exec, wait, ...directOnly] as function tools for `new Agent({ tools })`: exec and wait
// strict (modelTools({ strict: true }), as the SDK defaults to), direct-only tools not.
// Each execute passes the call's signal into the session and the run context's `context`
// (or options.context) as `context`; it returns the model-ready result.
function codeModeTools(session, options = {}) {
    return (0, shared_cjs_1.sessionTools)(session, options, true).map((t) => (0, agents_1.tool)({
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        strict: t.strict,
        execute: (input, runContext, details) => t.run(input, { signal: details?.signal, callId: details?.toolCall?.callId, context: options.context ?? runContext?.context }),
    }));
}
// Function tools (`tool({ ... })`, zod or JSON Schema) as catalog ToolDefinitions. The call
// runs through the tool's own `invoke` (its input parsing and output checks) with a
// RunContext holding the exec call's context, the call's signal and a function_call item.
// A failure the SDK would hand the model as its default error text is thrown instead, so
// the guest sees a tool error; a tool's own errorFunction output passes as its result.
function catalogTools(tools) {
    if (!Array.isArray(tools))
        throw (0, shared_cjs_1.invalid)("catalogTools takes an array of OpenAI Agents function tools");
    return tools.map((t) => {
        if (t === null || typeof t !== "object" || t.type !== "function" || typeof t.invoke !== "function") {
            throw (0, shared_cjs_1.invalid)("catalogTools takes function tools (tool({ ... })); hosted tools run at the provider");
        }
        return (0, shared_cjs_1.definition)(t.name, t.description, t.parameters, async (input, ctx) => {
            const args = JSON.stringify(input ?? {});
            const toolCall = { type: "function_call", callId: ctx.callId, name: t.name, arguments: args, status: "completed" };
            const output = await (0, shared_cjs_1.drain)(await t.invoke(new agents_1.RunContext(ctx.context), args, { toolCall, signal: ctx.signal }));
            if (output === HIDDEN_ERROR)
                throw new Error(`${t.name} failed (the OpenAI Agents SDK hid the error; give the tool an errorFunction to say why)`);
            return output;
        });
    });
}
