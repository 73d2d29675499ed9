// OpenTelemetry spans of one session: exec/wait/script calls and the tool calls their runs
// make, under the caller's active context. The API is reached through its global registry
// (the one a registered tracer provider lives in), read per call: nothing is loaded, and
// without a registered provider (or with `telemetry: { enabled: false }`) nothing is made.
// Raw code, inputs and results never go on a span unless `captureContent` is set, and then
// only as the session's redacted previews (the text onEvent shows).
(function telemetry(deps) {
  "use strict";
  const { preview } = deps;
  // Stable across @opentelemetry/api 1.x: its global registry and the context key of the
  // active span (`trace.setSpan`/`getSpan` use it).
  const API = Symbol.for("opentelemetry.js.api.1");
  const SPAN = Symbol.for("OpenTelemetry Context Key SPAN");
  const STATUS_ERROR = 2;
  const KIND_INTERNAL = 0;
  const TRACER = "codemode-native";
  // Runs a span may still parent tool calls of or be linked from (a parked run is resumed
  // by wait); the oldest are forgotten past this many.
  const MAX_RUNS = 1024;
  const byteLength = typeof Buffer === "function" ? Buffer.byteLength : (text) => String(text).length;

  let enabled = true;
  let captureContent = false;
  let sessionId = "";
  // Open exec/wait/script spans by promise token: { span, context, runId }.
  const calls = new Map();
  // By run id: { context, spanContext } of the last call span of the run.
  const runs = new Map();
  // Open tool spans by call id (a call's own nested calls go under it): their context.
  const tools = new Map();
  // exec's input text (from readExecInput) for the call the next `open("exec")` opens.
  let stagedInput = null;

  // An immutable context for when no context manager is registered (the API's ROOT_CONTEXT
  // is not reachable without loading it).
  function plainContext(values) {
    return {
      getValue: (key) => values.get(key),
      setValue: (key, value) => plainContext(new Map(values).set(key, value)),
      deleteValue(key) {
        const next = new Map(values);
        next.delete(key);
        return plainContext(next);
      },
    };
  }
  const ROOT = plainContext(new Map());

  // The registry's tracer and context manager, or null when nothing should be traced.
  function api() {
    if (!enabled) return null;
    const registry = globalThis[API];
    if (registry === undefined || registry === null || registry.trace === undefined) return null;
    return registry;
  }

  function activeContext(registry) {
    const manager = registry.context;
    return manager !== undefined ? manager.active() : ROOT;
  }

  function tracer(registry) {
    return registry.trace.getTracer(TRACER);
  }

  function remember(runId, entry) {
    if (typeof runId !== "string" || runId === "") return;
    runs.delete(runId);
    runs.set(runId, entry);
    if (runs.size > MAX_RUNS) runs.delete(runs.keys().next().value);
  }

  // Runs `fn` with `context` active, so spans the tool makes nest under its call's span.
  function within(context, fn) {
    const registry = globalThis[API];
    if (registry === undefined || registry === null || registry.context === undefined) return fn();
    return registry.context.with(context, fn);
  }

  function safely(fn) {
    try {
      return fn();
    } catch (_) {
      // A throwing exporter or processor must never change a run.
      return undefined;
    }
  }

  function setRun(entry, runId) {
    if (entry.runId !== undefined || typeof runId !== "string" || runId === "") return;
    entry.runId = runId;
    entry.span.setAttribute("codemode.run_id", runId);
  }

  return {
    // The session's `telemetry` option (checked by options.js) and id.
    configure(option, id) {
      enabled = option === undefined || option.enabled !== false;
      captureContent = option !== undefined && option.captureContent === true;
      sessionId = id;
    },
    // Whether calls are traced now: a provider is registered and the session allows it.
    active() {
      return api() !== null;
    },
    stageExecInput(text) {
      stagedInput = text;
    },
    // exec/wait/script `kind` opened the promise under `token`, in the caller's tick: its
    // span starts under the caller's active context. `runId`: wait's, when known.
    open(token, kind, runId) {
      const input = stagedInput;
      stagedInput = null;
      const registry = api();
      if (registry === null) return;
      safely(() => {
        const parent = activeContext(registry);
        const attributes = { "codemode.operation": kind, "codemode.session_id": sessionId };
        const links = [];
        if (typeof runId === "string" && runId !== "") {
          attributes["codemode.run_id"] = runId;
          const run = runs.get(runId);
          if (run !== undefined) links.push({ context: run.spanContext, attributes: { "codemode.link": "parked_run" } });
        }
        let code;
        if (kind === "exec" && input !== null) {
          const fields = JSON.parse(input);
          const field = fields.code && fields.code.kind === "string" ? fields.code : fields.command;
          if (field && field.kind === "string") code = field.value;
        }
        if (code !== undefined) {
          attributes["codemode.code.bytes"] = byteLength(code, "utf8");
          if (captureContent) attributes["codemode.code"] = preview(code);
        }
        const span = tracer(registry).startSpan("codemode." + kind, { kind: KIND_INTERNAL, attributes, links }, parent);
        const entry = { span, context: parent.setValue(SPAN, span), runId: undefined };
        setRun(entry, runId);
        calls.set(token, entry);
      });
    },
    // The call under `token` started run `runId`: its tool calls go under the call's span.
    bind(token, runId) {
      const entry = calls.get(token);
      if (entry === undefined) return;
      safely(() => {
        setRun(entry, runId);
        remember(runId, { context: entry.context, spanContext: entry.span.spanContext() });
      });
    },
    // Whether the call under `token` has a span (Rust then tells `bind` its run id).
    tracing(token) {
      return calls.has(token);
    },
    // The promise under `token` settles with `text` (a CodeModeResult as JSON, `result`).
    settle(token, text, result, runId) {
      const entry = calls.get(token);
      if (entry === undefined) return;
      calls.delete(token);
      safely(() => {
        const span = entry.span;
        setRun(entry, result.runId !== undefined ? result.runId : runId);
        span.setAttribute("codemode.status", result.status);
        span.setAttribute("codemode.result.bytes", byteLength(text, "utf8"));
        if (Array.isArray(result.output)) span.setAttribute("codemode.output.bytes", byteLength(JSON.stringify(result.output), "utf8"));
        const run = result.telemetry && result.telemetry.run;
        if (run && typeof run.nestedCalls === "number") span.setAttribute("codemode.tool_calls", run.nestedCalls);
        if (result.status === "failed") {
          span.setAttribute("codemode.error.code", String(result.code));
          span.setAttribute("error.type", String(result.code));
          span.setStatus({ code: STATUS_ERROR, message: captureContent ? preview(String(result.error)) : String(result.code) });
        } else if (result.status === "waiting") {
          span.setAttribute("codemode.waiting.reason", String(result.reason));
        }
        if (entry.runId !== undefined) {
          if (result.status === "waiting") remember(entry.runId, { context: entry.context, spanContext: span.spanContext() });
          else runs.delete(entry.runId);
        }
        span.end();
      });
    },
    // A tool call of run `runId` starts: its span (under its parent call's, else its run's),
    // or null when the run is not traced.
    startTool(runId, callId, parentCallId, toolName, callableName, source, inputJson) {
      const registry = api();
      if (registry === null) return null;
      const parent = (parentCallId !== undefined && tools.get(parentCallId)) || (runs.get(runId) || {}).context;
      if (parent === undefined) return null;
      return (
        safely(() => {
          const attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": toolName,
            "gen_ai.tool.call.id": callId,
            "codemode.run_id": runId,
            "codemode.tool.callable_name": callableName,
            "codemode.tool.source": source,
            "codemode.tool.input.bytes": byteLength(inputJson, "utf8"),
          };
          if (parentCallId !== undefined) attributes["codemode.tool.parent_call.id"] = parentCallId;
          if (captureContent) attributes["gen_ai.tool.call.arguments"] = preview(inputJson);
          const span = tracer(registry).startSpan("execute_tool " + toolName, { kind: KIND_INTERNAL, attributes }, parent);
          const context = parent.setValue(SPAN, span);
          tools.set(callId, context);
          return { span, context, callId };
        }) || null
      );
    },
    // Runs the tool with its span active (a span from startTool, or null).
    within(tool, fn) {
      return tool === null ? fn() : within(tool.context, fn);
    },
    // The tool call ended: `status` "ok" | "error" | "cancelled", `text` its result's JSON
    // or its error's text.
    endTool(tool, status, text) {
      if (tool === null) return;
      tools.delete(tool.callId);
      safely(() => {
        const span = tool.span;
        span.setAttribute("codemode.tool.status", status);
        if (status === "ok") {
          span.setAttribute("codemode.tool.result.bytes", byteLength(text, "utf8"));
          if (captureContent) span.setAttribute("gen_ai.tool.call.result", preview(text));
        } else {
          const type = status === "cancelled" ? "cancelled" : "tool_error";
          span.setAttribute("error.type", type);
          span.setStatus({ code: STATUS_ERROR, message: captureContent ? preview(text) : type });
        }
        span.end();
      });
    },
  };
})
