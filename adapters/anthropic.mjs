// codemode-native for the Anthropic SDK: the session's model-facing tools as Messages API
// tools (with the `run` the SDK's tool runners call), a tool_use block run into its
// tool_result block, and Anthropic runnable tools as catalog ToolDefinitions.
import { sessionTools, drain, definition, invalid, asText } from "./shared.mjs";

// [exec, wait, ...directOnly] as `{ name, description, input_schema, run }`. Pass them as
// `tools` to messages.create (JSON drops `run`) or to client.beta.messages.toolRunner.
// `run(input, { signal })` returns the model-ready result as JSON text.
export function codeModeTools(session, options = {}) {
  return sessionTools(session, options).map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.parameters,
    run: async (input, runContext) => asText(await t.run(input, { signal: runContext?.signal ?? undefined, context: options.context })),
  }));
}

// Runs one `tool_use` block of a response with `tools` (from codeModeTools) and returns
// its `tool_result` block: the result as text, `is_error` for failed results, unknown
// tools and tools that threw.
export async function runToolUse(tools, block, options = {}) {
  if (block === null || typeof block !== "object" || block.type !== "tool_use") throw invalid("runToolUse takes a tool_use block");
  const t = tools.find((x) => x.name === block.name);
  if (t === undefined) return { type: "tool_result", tool_use_id: block.id, content: `Unknown tool: ${block.name}`, is_error: true };
  try {
    const content = await t.run(block.input ?? {}, { signal: options.signal });
    const result = { type: "tool_result", tool_use_id: block.id, content };
    if (failedResult(content)) result.is_error = true;
    return result;
  } catch (error) {
    return { type: "tool_result", tool_use_id: block.id, content: String(error?.message ?? error), is_error: true };
  }
}

// Whether `content` (a run's JSON text) is a failed model-ready result.
function failedResult(content) {
  try {
    return JSON.parse(content)?.status === "failed";
  } catch (_) {
    return false;
  }
}

// Anthropic tools with a `run` (betaTool, betaZodTool or plain `{ name, input_schema, run }`)
// as catalog ToolDefinitions. `parse` (zod tools) validates the input first; `run` gets the
// call's signal; streaming runs are drained; text blocks become their text, JSON object or
// array text its value; a throw stays
// a tool error (the tool runner would turn it into an is_error result).
export function catalogTools(tools) {
  if (!Array.isArray(tools)) throw invalid("catalogTools takes an array of Anthropic runnable tools");
  return tools.map((t) => {
    if (typeof t.run !== "function") throw invalid(`Anthropic tool ${t.name} has no run`);
    return definition(t.name, t.description, t.input_schema, async (input, ctx) => {
      const args = typeof t.parse === "function" ? t.parse(input) : input;
      return blocksAsValue(await drain(await t.run(args, { signal: ctx.signal, context: ctx.context })));
    });
  });
}

// A run's result as a value for the guest: text blocks are their text, and text that is a
// JSON object or array is that value (Anthropic's run type returns text, so tools return
// JSON.stringify(value)); other text stays a string.
function blocksAsValue(value) {
  const text = Array.isArray(value) && value.every((b) => b && b.type === "text") ? value.map((b) => b.text).join("") : value;
  if (typeof text !== "string" || !/^\s*[[{]/.test(text)) return text;
  try {
    return JSON.parse(text);
  } catch (_) {
    return text;
  }
}
