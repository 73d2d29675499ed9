// Host-side glue of one CodeModeSession, compiled once per session on the Node thread.
// It owns everything that must stay a live JS value: tool definitions (their execute
// functions), AbortControllers of calls in flight, and abort-signal listeners. Rust talks
// to it with JSON strings and small integers only, so no JS object ever crosses threads.
(function createHost(done, pauseBudget, resumeBudget) {
  "use strict";
  const definitions = [];
  const controllers = new Map();
  let beforeToolCall = null;
  let onEvent = null;
  const PREVIEW = 512;

  // onEvent is display-only: a listener that throws never affects the cell.
  function emit(event) {
    if (onEvent === null) return;
    try {
      onEvent(event);
    } catch (_) {}
  }

  // Set by Rust to the session's redaction (secrets, patterns, tokens) plus the cut.
  let redactPreview = null;

  function preview(text) {
    if (redactPreview !== null) return redactPreview(text);
    return text.length <= PREVIEW ? text : text.slice(0, PREVIEW) + "…";
  }

  function plainJson(value) {
    const text = JSON.stringify(value === undefined ? null : value);
    return text === undefined ? null : JSON.parse(text);
  }

  function invalid(message) {
    const error = new TypeError(message);
    error.code = "invalid_input";
    return error;
  }

  function optionalString(value, path) {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") throw invalid(path + " must be a string.");
    return value;
  }

  // Schemas are checked for type here and serialised once, with the whole option set;
  // only if that fails is each one serialised alone, to name the culprit.
  function schemaOrUndefined(value, path) {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "object" && typeof value !== "boolean") throw invalid(path + " must be a JSON Schema object or boolean.");
    return value;
  }

  function serialize(value, specs) {
    try {
      return JSON.stringify(value);
    } catch (e) {
      for (const spec of specs) {
        for (const key of ["parameters", "outputSchema"]) {
          try {
            JSON.stringify(spec[key]);
          } catch (inner) {
            throw invalid("tools[" + spec.hostIndex + "]." + key + " must be plain JSON: " + inner.message);
          }
        }
      }
      throw invalid("options must be plain JSON: " + e.message);
    }
  }

  // Returns the specs for Rust; `commit()` registers the definitions, and is called only
  // once Rust accepted them, so host indices never drift from Rust's count.
  function normalizeTools(list, path) {
    if (list === undefined || list === null) return { specs: [], commit() {} };
    if (!Array.isArray(list)) throw invalid(path + " must be an array of tool definitions.");
    const specs = [];
    const pending = [];
    list.forEach((tool, i) => {
      const at = path + "[" + i + "]";
      if (tool === null || typeof tool !== "object") throw invalid(at + " must be an object.");
      if (typeof tool.name !== "string" || tool.name.trim() === "") throw invalid(at + ".name must be a non-empty string.");
      if (typeof tool.execute !== "function") throw invalid(at + ".execute must be a function.");
      const source = tool.source === undefined ? "openclaw" : tool.source;
      if (source !== "openclaw" && source !== "client") throw invalid(at + '.source must be "openclaw" or "client".');
      for (const flag of ["directOnly", "replaySafe"]) {
        if (tool[flag] !== undefined && typeof tool[flag] !== "boolean") throw invalid(at + "." + flag + " must be a boolean.");
      }
      specs.push({
        hostIndex: definitions.length + pending.length,
        name: tool.name,
        description: optionalString(tool.description, at + ".description") || "",
        label: optionalString(tool.label, at + ".label"),
        parameters: schemaOrUndefined(tool.parameters, at + ".parameters"),
        outputSchema: schemaOrUndefined(tool.outputSchema, at + ".outputSchema"),
        source,
        directOnly: tool.directOnly === true,
        replaySafe: tool.replaySafe === true,
      });
      pending.push(tool);
    });
    return {
      specs,
      commit() {
        for (const tool of pending) definitions.push(tool);
      },
    };
  }

  class BlockedCall extends Error {}

  // `redaction.patterns` may hold RegExp objects: their source, with the flags Rust's
  // regex syntax shares written inline. Everything else is checked in Rust.
  function redactionOptions(redaction) {
    if (redaction === null || typeof redaction !== "object" || !Array.isArray(redaction.patterns)) return redaction === null ? undefined : redaction;
    const patterns = redaction.patterns.map((p) => {
      if (!(p instanceof RegExp)) return p;
      const flags = ["i", "m", "s"].filter((f) => p.flags.includes(f)).join("");
      return (flags ? "(?" + flags + ")" : "") + p.source;
    });
    return { secrets: redaction.secrets, patterns };
  }

  const NOT_YET = ["mcpServers", "nodes", "skills", "namespaces", "swarm"];

  function budgetOption(value) {
    if (value === undefined || value === null) return undefined;
    return typeof value === "number" && Number.isFinite(value) ? value : "invalid";
  }

  function field(input, key) {
    if (!Object.prototype.hasOwnProperty.call(input, key) || input[key] === undefined || input[key] === null) return { kind: "absent" };
    const value = input[key];
    return { kind: typeof value, value: typeof value === "string" || typeof value === "boolean" ? value : null };
  }

  function errorText(error) {
    try {
      if (error instanceof Error) return String(error.message);
      if (typeof error === "string") return error;
      return JSON.stringify(error) ?? String(error);
    } catch (_) {
      return "tool failed with an unreadable error";
    }
  }

  return {
    normalizeOptions(options) {
      if (options === null || typeof options !== "object") throw invalid("CodeModeSession options must be an object.");
      if (typeof options.sessionId !== "string" || options.sessionId.trim() === "") throw invalid("sessionId must be a non-empty string.");
      for (const key of NOT_YET) {
        if (options[key] !== undefined && options[key] !== null) throw invalid(key + " is not supported by this version of codemode-native yet.");
      }
      if (options.limits !== undefined && options.limits !== null && (typeof options.limits !== "object" || Array.isArray(options.limits))) {
        throw invalid("limits must be an object.");
      }
      for (const hook of ["beforeToolCall", "onEvent"]) {
        if (options[hook] !== undefined && options[hook] !== null && typeof options[hook] !== "function") throw invalid(hook + " must be a function.");
      }
      beforeToolCall = typeof options.beforeToolCall === "function" ? options.beforeToolCall : null;
      onEvent = typeof options.onEvent === "function" ? options.onEvent : null;
      const tools = normalizeTools(options.tools, "tools");
      const text = serialize(
        {
          events: onEvent !== null,
          sessionId: options.sessionId,
          sessionKey: optionalString(options.sessionKey, "sessionKey"),
          agentId: optionalString(options.agentId, "agentId"),
          agentRunId: optionalString(options.agentRunId, "agentRunId"),
          limits: options.limits || undefined,
          redaction: redactionOptions(options.redaction),
          tools: tools.specs,
        },
        tools.specs
      );
      tools.commit();
      return text;
    },
    readScriptOptions(options) {
      const o = options !== null && typeof options === "object" ? options : {};
      const int = (v) => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined);
      return JSON.stringify({
        language: typeof o.language === "string" ? o.language : undefined,
        wallClockMs: int(o.wallClockMs),
        maxToolCalls: int(o.maxToolCalls),
        aborted: !!(o.signal && o.signal.aborted),
      });
    },
    fail(message) {
      throw invalid(message);
    },
    setRedactor(fn) {
      redactPreview = fn;
    },
    addTools(list) {
      const tools = normalizeTools(list, "tools");
      const text = serialize(tools.specs, tools.specs);
      tools.commit();
      return text;
    },
    readExecInput(input) {
      if (input === null || typeof input !== "object") return JSON.stringify({ notAnObject: true });
      return JSON.stringify({
        code: field(input, "code"),
        command: field(input, "command"),
        language: field(input, "language"),
        restartSafe: field(input, "restartSafe"),
      });
    },
    readWaitInput(input) {
      if (input === null || typeof input !== "object") return null;
      const runId = input.runId !== undefined ? input.runId : input.run_id;
      return typeof runId === "string" ? runId : null;
    },
    readCallOptions(options) {
      if (options === undefined || options === null || typeof options !== "object") return JSON.stringify({});
      const signal = options.signal;
      return JSON.stringify({
        callId: typeof options.callId === "string" ? options.callId : undefined,
        aborted: !!(signal && signal.aborted),
        // Non-finite numbers would serialise as null (absent): mark every non-number.
        resultBudgetChars: budgetOption(options.resultBudgetChars),
      });
    },
    onAbort(options, listener) {
      const signal = options && options.signal;
      if (signal && typeof signal.addEventListener === "function") {
        signal.addEventListener("abort", listener, { once: true });
      }
    },
    emit(eventJson) {
      if (onEvent !== null) emit(JSON.parse(eventJson));
    },
    invoke(index, callableName, inputJson, callId, parentCallId, runId, sessionId, token) {
      const definition = definitions[index];
      const toolName = definition.name;
      const controller = new AbortController();
      controllers.set(callId, controller);
      const started = Date.now();
      let resumed = false;
      let settled = false;
      const parent = parentCallId === "" ? undefined : parentCallId;
      const ctx = {
        callId,
        parentCallId: parent,
        runId,
        sessionId,
        signal: controller.signal,
        onUpdate(partial) {
          if (settled) return;
          let value;
          try {
            value = plainJson(partial);
          } catch (_) {
            return;
          }
          emit({ type: "tool_call_update", runId, callId, partial: value });
        },
        pauseBudget() {
          pauseBudget(token);
          return () => {
            if (!resumed) {
              resumed = true;
              resumeBudget(token);
            }
          };
        },
      };
      emit({ type: "tool_call_start", runId, callId, parentCallId: parent, toolName, callableName, source: definition.source || "openclaw", inputPreview: preview(inputJson) });
      const finish = (ok, text) => {
        if (settled) return;
        settled = true;
        controllers.delete(callId);
        if (!resumed) {
          resumed = true;
          resumeBudget(token);
        }
        const end = { type: "tool_call_end", runId, callId, status: ok ? "ok" : controller.signal.aborted ? "cancelled" : "error", durationMs: Date.now() - started };
        if (ok) end.outputPreview = preview(text);
        else end.error = preview(text);
        emit(end);
        done(token, ok, text);
      };
      Promise.resolve()
        .then(async () => {
          let input = JSON.parse(inputJson);
          if (beforeToolCall !== null) {
            const decision = await beforeToolCall({ toolName, callableName, input: plainJson(input), callId });
            if (decision !== null && typeof decision === "object") {
              if (decision.block !== undefined && decision.block !== null && decision.block !== false) {
                const reason = typeof decision.block === "string" ? decision.block : "blocked by policy";
                throw new BlockedCall('Tool "' + toolName + '" was blocked before execution: ' + reason);
              }
              if (Object.prototype.hasOwnProperty.call(decision, "input")) input = plainJson(decision.input);
            }
          }
          return definition.execute(input, ctx);
        })
        .then(
          (value) => {
            let text;
            try {
              text = JSON.stringify(value === undefined ? null : value);
            } catch (e) {
              finish(false, "tool returned a value that is not JSON: " + errorText(e));
              return;
            }
            finish(true, text === undefined ? "null" : text);
          },
          (error) => finish(false, errorText(error))
        );
    },
    abort(callId) {
      const controller = controllers.get(callId);
      if (controller !== undefined) {
        controllers.delete(callId);
        controller.abort(new Error("code mode execution aborted"));
      }
    },
  };
});
