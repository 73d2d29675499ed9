// What every adapter shares: the model-facing tools of a session as plain
// { name, description, parameters, run(input, { signal, context }) }, and helpers for
// turning a framework's tool into a catalog ToolDefinition.
import { toModelResult } from "codemode-native";

function invalid(message) {
  const error = new TypeError(message);
  error.code = "invalid_input";
  return error;
}

// exec, wait and the direct-only tools of `session`, each run returning the model-ready
// result. Direct-only tools run their own execute, taken from the session (or from
// `options.tools`, which wins for a name both have).
// `strict`: exec and wait in OpenAI strict form (modelTools({ strict: true })).
export function sessionTools(session, options = {}, strict = false) {
  const { budgetChars, tools = [], context } = options;
  const held = typeof session.directOnlyTools === "function" ? session.directOnlyTools() : [];
  const byName = new Map([...held, ...tools].map((t) => [t.name, t]));
  const fit = (result) => toModelResult(result, budgetChars === undefined ? {} : { budgetChars });
  return session.modelTools(strict ? { strict: true } : undefined).map((definition) => {
    const { name, description, parameters } = definition;
    if (name === "exec") {
      return { name, description, parameters, strict, run: async (input, call = {}) => fit(await session.exec(input, { signal: call.signal, context: call.context ?? context })) };
    }
    if (name === "wait") {
      return { name, description, parameters, strict, run: async (input, call = {}) => fit(await session.wait(input, { signal: call.signal, context: call.context ?? context })) };
    }
    const own = byName.get(name);
    if (own === undefined || typeof own.execute !== "function") {
      throw invalid(`direct-only tool ${name} has no execute function`);
    }
    return {
      name, description, parameters, strict: false,
      run: (input, call = {}) => own.execute(input, { callId: call.callId ?? name, sessionId: session.sessionId, signal: call.signal ?? new AbortController().signal, context: call.context ?? context, onUpdate() {}, pauseBudget: () => () => {} }),
    };
  });
}

export function isAsyncIterable(value) {
  return value !== null && typeof value === "object" && typeof value[Symbol.asyncIterator] === "function";
}

// A streaming (async-generator) tool's final value: the last one it yields, or what it returns.
export async function drain(value) {
  if (!isAsyncIterable(value)) return value;
  const iterator = value[Symbol.asyncIterator]();
  let last;
  for (;;) {
    const step = await iterator.next();
    if (step.done) return step.value === undefined ? last : step.value;
    last = step.value;
  }
}

// A clean catalog ToolDefinition (the session rejects unknown keys).
export function definition(name, description, parameters, execute) {
  const tool = { name, execute };
  if (typeof description === "string" && description !== "") tool.description = description;
  if (parameters !== undefined) tool.parameters = parameters;
  return tool;
}

// A tool result as the text a message carries: strings as they are, anything else as JSON.
export function asText(value) {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}

export { invalid };
