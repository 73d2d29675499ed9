// Generated from langchain.mjs by scripts/build-adapters.mjs: edit langchain.mjs, then run
// `node scripts/build-adapters.mjs`.
"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.codeModeTools = codeModeTools;
exports.catalogTools = catalogTools;
// codemode-native for LangChain (@langchain/core): the session's model-facing tools as
// LangChain tools, and LangChain tools as catalog ToolDefinitions.
const tools_1 = require("@langchain/core/tools");
const json_schema_1 = require("@langchain/core/utils/json_schema");
const shared_cjs_1 = require("./shared.cjs");
// [exec, wait, ...directOnly] as LangChain tools (JSON Schema `schema`) for
// `model.bindTools(tools)`; each returns the model-ready result as JSON text. The run's
// `signal` is passed into the session, its `context` (or options.context) as `context`.
function codeModeTools(session, options = {}) {
    return (0, shared_cjs_1.sessionTools)(session, options).map((t) => (0, tools_1.tool)(async (input, config) => (0, shared_cjs_1.asText)(await t.run(input, { signal: config?.signal, callId: config?.toolCall?.id, context: options.context ?? config?.context })), { name: t.name, description: t.description, schema: t.parameters }));
}
// LangChain tools (StructuredTool, DynamicStructuredTool, `tool(...)`, zod or JSON Schema)
// as catalog ToolDefinitions. The call runs through the tool's own `invoke` (schema check,
// callbacks, streaming tools drained by LangChain) with the call's signal and the exec
// call's context; a throw stays a tool error.
function catalogTools(tools) {
    if (!Array.isArray(tools))
        throw (0, shared_cjs_1.invalid)("catalogTools takes an array of LangChain tools");
    return tools.map((t) => {
        if (t === null || typeof t !== "object" || typeof t.invoke !== "function")
            throw (0, shared_cjs_1.invalid)("catalogTools takes LangChain tools (with invoke)");
        const parameters = t.schema === undefined ? undefined : plainSchema(t.schema);
        return (0, shared_cjs_1.definition)(t.name, t.description, parameters, (input, ctx) => t.invoke(input, { signal: ctx.signal, context: ctx.context }));
    });
}
// A tool's schema as JSON Schema: zod schemas are converted; `$schema` is dropped since
// LangChain writes draft 2020-12 for zod and the catalog needs only the shape.
function plainSchema(schema) {
    const json = typeof schema?.parse === "function" || typeof schema?._zod === "object" ? (0, json_schema_1.toJsonSchema)(schema) : schema;
    if (json === null || typeof json !== "object")
        return json;
    const { $schema: _ignored, ...rest } = json;
    return rest;
}
