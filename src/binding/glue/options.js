// Validation of what the host passes in: session options (tools, hosts, MCP servers,
// hooks), exec/wait inputs and call options. Errors are TypeErrors with code
// "invalid_input" naming the offending path; Rust receives plain JSON text only and
// validates namespaces itself (src/surfaces/namespaces.rs).
(function options(deps) {
  "use strict";
  // `redactionAsText`: glue/redaction.js, shared with `redactSource`; `durable`: glue/durable.js.
  const { invoke, limits, redactionAsText, durable } = deps;
  const MAX_NAMESPACE_DEPTH = limits.maxNamespaceDepth;
  const MAX_NAMESPACE_LEAVES = limits.maxNamespaceLeaves;
  // Options this version refuses rather than ignores.
  const NOT_YET = [];
  // Every key a session reads (`isolation` is checked in Rust); any other is a mistake.
  const SESSION_KEYS = ["sessionId", "sessionKey", "agentId", "agentRunId", "tools", "mcpServers", "nodes", "skills", "namespaces", "swarm", "limits", "redaction", "onEvent", "beforeToolCall", "isolation", "sandboxGroup", "telemetry", "durableRuns"];
  // The keys of the `telemetry` option.
  const TELEMETRY_KEYS = ["enabled", "captureContent"];
  // Every key a tool definition has; the other tool formats' names for them are pointed to.
  const TOOL_KEYS = ["name", "description", "label", "parameters", "outputSchema", "source", "directOnly", "replaySafe", "execute"];
  const TOOL_ALIASES = { inputSchema: "parameters", input_schema: "parameters", output_schema: "outputSchema" };
  // What `runCodeModeScript` reads on top of the session's keys.
  const SCRIPT_KEYS = ["language", "wallClockMs", "maxToolCalls", "signal"];
  // Names of the tools registered in this session so far, with their source: a name is
  // taken once per source (a client tool may shadow a core tool of the same name).
  const registered = new Map();

  function invalid(message) {
    const error = new TypeError(message);
    error.code = "invalid_input";
    return error;
  }
  const readDurableRuns = durable(invalid);

  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  function editDistance(a, b) {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 0; i < a.length; i++) {
      const next = [i + 1];
      for (let j = 0; j < b.length; j++) next.push(Math.min(row[j + 1] + 1, next[j] + 1, row[j] + (a[i] === b[j] ? 0 : 1)));
      row = next;
    }
    return row[b.length];
  }

  // The rule of Rust's `nearest`: a name containing the other (`tool`, `tools`), sharing
  // its first five letters, or within a third of the key's length (at least two edits).
  // `parent`: the path of the object holding `key` ("" at the top).
  function unknownKey(key, known, parent, aliases) {
    const at = (name) => (parent ? parent + "." + name : name);
    const alias = aliases && Object.prototype.hasOwnProperty.call(aliases, key) ? aliases[key] : undefined;
    if (alias !== undefined) return invalid(at(key) + " is not an option; did you mean " + at(alias) + "?");
    const lower = key.toLowerCase();
    let best = null;
    for (const name of known) {
      const candidate = name.toLowerCase();
      let shared = 0;
      while (shared < lower.length && lower[shared] === candidate[shared]) shared++;
      const d = candidate.includes(lower) || lower.includes(candidate) ? Math.min(1, Math.abs(candidate.length - lower.length)) : shared >= 5 ? 2 : editDistance(lower, candidate);
      if (best === null || d < best.d) best = { d, name };
    }
    if (best !== null && best.d <= Math.max(2, Math.floor(key.length / 3))) return invalid(at(key) + " is not an option; did you mean " + at(best.name) + "?");
    return invalid(at(key) + " is not an option; valid options: " + known.join(", ") + ".");
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

  // A tool name is taken once per source: a client tool may shadow a core tool of the same
  // name (the seed's precedence: the client's wins in the catalog), never the other way
  // round, and a direct-only tool is never shadowed (the model would see two of one name).
  // `names`: this batch's name → { core?: index, client?: index, directOnly }.
  function checkShadow(tool, source, i, at, path, names) {
    const directOnly = tool.directOnly === true;
    const unique = "; tool names must be unique within a source (a client tool may shadow a core tool of the same name).";
    const seen = names.get(tool.name) || { directOnly: false };
    const other = source === "core" ? "client" : "core";
    for (const clash of [source, other]) {
      const refused = clash === source || directOnly || seen.directOnly;
      if (seen[clash] !== undefined && refused) throw invalid(at + '.name "' + tool.name + '" is also the name of ' + path + "[" + seen[clash] + "]" + unique);
    }
    const taken = registered.get(tool.name);
    if (taken !== undefined && !(taken === "core" && source === "client" && !directOnly)) {
      throw invalid(at + '.name "' + tool.name + '" is already registered in this session' + unique);
    }
    names.set(tool.name, { ...seen, [source]: i, directOnly: seen.directOnly || directOnly });
  }

  // Returns the specs for Rust; `commit()` registers the definitions, and is called only
  // once Rust accepted them, so host indices never drift from Rust's count.
  function normalizeTools(list, path) {
    if (list === undefined || list === null) return { specs: [], commit() {} };
    if (!Array.isArray(list)) throw invalid(path + " must be an array of tool definitions.");
    const specs = [];
    const pending = [];
    const base = invoke.definitionCount();
    const names = new Map();
    list.forEach((tool, i) => {
      const at = path + "[" + i + "]";
      if (tool === null || typeof tool !== "object") throw invalid(at + " must be an object.");
      for (const key of Object.keys(tool)) {
        if (!TOOL_KEYS.includes(key)) throw unknownKey(key, TOOL_KEYS, at, TOOL_ALIASES);
      }
      if (typeof tool.name !== "string" || tool.name.trim() === "") throw invalid(at + ".name must be a non-empty string.");
      if (typeof tool.execute !== "function") throw invalid(at + ".execute must be a function.");
      // "openclaw" is the old name of "core".
      const source = tool.source === undefined || tool.source === "openclaw" ? "core" : tool.source;
      if (source !== "core" && source !== "client") throw invalid(at + '.source must be "core" or "client".');
      checkShadow(tool, source, i, at, path, names);
      for (const flag of ["directOnly", "replaySafe"]) {
        if (tool[flag] !== undefined && typeof tool[flag] !== "boolean") throw invalid(at + "." + flag + " must be a boolean.");
      }
      // The model calls a direct-only tool itself: its parameters must be an object schema.
      const parameters = schemaOrUndefined(tool.parameters, at + ".parameters");
      if (tool.directOnly === true && parameters !== undefined && (typeof parameters !== "object" || Array.isArray(parameters) || (parameters.type !== undefined && parameters.type !== "object"))) {
        throw invalid(at + '.parameters of a direct-only tool must be an object schema ({ type: "object", … }).');
      }
      specs.push({
        hostIndex: base + pending.length,
        name: tool.name,
        description: optionalString(tool.description, at + ".description") || "",
        label: optionalString(tool.label, at + ".label"),
        parameters,
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
        invoke.addDefinitions(pending);
        for (const [name, seen] of names) registered.set(name, seen.client !== undefined ? "client" : "core");
      },
    };
  }

  // Leaves are called with (args, ctx) and `this` set to the object holding them. The
  // walk stops at the first object past the depth limit (scopes may be cyclic) or the first
  // function past the count limit; Rust words the error.
  function namespaceLeaves(scope, path, at, read, depth) {
    if (depth > MAX_NAMESPACE_DEPTH) {
      read.tooDeep = at;
      return false;
    }
    for (const key of Object.keys(scope)) {
      const value = scope[key];
      const here = path.concat([key]);
      if (typeof value === "function") {
        read.leaves.push({ path: here, fn: value, holder: scope });
        if (read.leaves.length > MAX_NAMESPACE_LEAVES) return false;
      } else if (isObject(value) && !namespaceLeaves(value, here, at + "." + key, read, depth + 1)) {
        return false;
      }
    }
    return true;
  }

  // What Rust needs to judge a namespace: a field that is not a string, a scope that is
  // not an object, or an entry that is not an object reads as null.
  function readNamespace(ns, i) {
    if (!isObject(ns)) return null;
    const text = (value) => (value === undefined || value === null ? "" : typeof value === "string" ? value : null);
    const name = typeof ns.globalName === "string" ? ns.globalName : null;
    const read = { leaves: [], tooDeep: undefined };
    if (isObject(ns.scope)) namespaceLeaves(ns.scope, [], "namespaces[" + i + "].scope", read, 1);
    return {
      globalName: name,
      description: text(ns.description),
      prompt: text(ns.prompt),
      leaves: isObject(ns.scope)
        ? read.leaves.map((leaf) => ({
            path: leaf.path,
            hostIndex: invoke.addSurface(name + "." + leaf.path.join("."), "namespace", (input, ctx) => leaf.fn.call(leaf.holder, input, ctx)),
          }))
        : null,
      tooDeep: read.tooDeep,
    };
  }

  // The namespaces for Rust, which validates them; null when the option is not an array.
  function readNamespaces(list) {
    if (list === undefined || list === null) return [];
    return Array.isArray(list) ? list.map(readNamespace) : null;
  }

  function requireHost(value, name, methods) {
    if (value === undefined || value === null) return null;
    if (typeof value !== "object" && typeof value !== "function") throw invalid(name + " must be an object.");
    for (const method of methods) {
      if (typeof value[method] !== "function") throw invalid(name + "." + method + " must be a function.");
    }
    return value;
  }

  function normalizeSwarm(swarm) {
    if (requireHost(swarm, "swarm", ["run"]) === null) return null;
    const methods = [];
    for (const method of ["phase", "log"]) {
      if (swarm[method] === undefined || swarm[method] === null) continue;
      if (typeof swarm[method] !== "function") throw invalid("swarm." + method + " must be a function.");
      methods.push(method);
    }
    return invoke.hostSurfaces.swarm(swarm, methods);
  }

  // Servers as the MCP driver keeps them: { name, client }, names unique.
  function normalizeMcpServers(list) {
    if (list === undefined || list === null) return [];
    if (!Array.isArray(list)) throw invalid("mcpServers must be an array of { name, client }.");
    const names = new Set();
    return list.map((server, i) => {
      const at = "mcpServers[" + i + "]";
      if (!isObject(server)) throw invalid(at + " must be an object.");
      if (typeof server.name !== "string" || server.name.trim() === "") throw invalid(at + ".name must be a non-empty string.");
      if (names.has(server.name)) throw invalid(at + '.name "' + server.name + '" is used by more than one server.');
      names.add(server.name);
      const client = server.client;
      if (client === null || (typeof client !== "object" && typeof client !== "function")) throw invalid(at + ".client must be an MCP client.");
      for (const method of ["listTools", "callTool"]) {
        if (typeof client[method] !== "function") throw invalid(at + ".client." + method + " must be a function.");
      }
      return { name: server.name, client };
    });
  }

  // `telemetry: { enabled?, captureContent? }` (glue/telemetry.js), or undefined.
  function normalizeTelemetry(value) {
    if (value === undefined || value === null) return undefined;
    if (!isObject(value)) throw invalid("telemetry must be an object.");
    for (const key of Object.keys(value)) {
      if (!TELEMETRY_KEYS.includes(key)) throw unknownKey(key, TELEMETRY_KEYS, "telemetry");
    }
    for (const key of TELEMETRY_KEYS) {
      if (value[key] !== undefined && value[key] !== null && typeof value[key] !== "boolean") throw invalid("telemetry." + key + " must be a boolean.");
    }
    return { enabled: value.enabled !== false, captureContent: value.captureContent === true };
  }

  // The session options as JSON text for Rust, with the hooks and MCP servers they carry.
  // Tools and surfaces are registered on the way; `commit()` once Rust accepted the text.
  // `script`: the options of `runCodeModeScript`, which reads a few keys more.
  function normalizeOptions(options, script) {
    if (options === null || typeof options !== "object") throw invalid("CodeModeSession options must be an object.");
    const known = script === true ? SESSION_KEYS.concat(SCRIPT_KEYS) : SESSION_KEYS;
    for (const key of Object.keys(options)) {
      if (!known.includes(key)) throw unknownKey(key, known, "");
    }
    if (typeof options.sessionId !== "string" || options.sessionId.trim() === "") throw invalid("sessionId must be a non-empty string.");
    for (const key of NOT_YET) {
      if (options[key] !== undefined && options[key] !== null) throw invalid(key + " is not supported by this version of codemode-native yet.");
    }
    const durableRuns = readDurableRuns(options.durableRuns, script);
    if (options.limits !== undefined && options.limits !== null && (typeof options.limits !== "object" || Array.isArray(options.limits))) {
      throw invalid("limits must be an object.");
    }
    // JSON would carry NaN and Infinity as null, which Rust reads as absent.
    for (const key of options.limits ? Object.keys(options.limits) : []) {
      const value = options.limits[key];
      if (typeof value === "number" && !Number.isFinite(value)) throw invalid("limits." + key + " must be a positive integer (got " + value + ").");
    }
    for (const hook of ["beforeToolCall", "onEvent"]) {
      if (options[hook] !== undefined && options[hook] !== null && typeof options[hook] !== "function") throw invalid(hook + " must be a function.");
    }
    const beforeToolCall = typeof options.beforeToolCall === "function" ? options.beforeToolCall : null;
    const telemetry = normalizeTelemetry(options.telemetry);
    const onEvent = typeof options.onEvent === "function" ? options.onEvent : null;
    const tools = normalizeTools(options.tools, "tools");
    const servers = normalizeMcpServers(options.mcpServers);
    const surfaceSpecs = {
      namespaces: readNamespaces(options.namespaces),
      nodes: requireHost(options.nodes, "nodes", ["list", "invoke"]) === null ? null : invoke.hostSurfaces.nodes(options.nodes),
      skills: requireHost(options.skills, "skills", ["list", "read"]) === null ? null : invoke.hostSurfaces.skills(options.skills),
      swarm: normalizeSwarm(options.swarm),
      mcpServers: servers.map((s) => s.name),
    };
    const text = serialize(
      {
        events: onEvent !== null,
        sessionId: options.sessionId,
        sessionKey: optionalString(options.sessionKey, "sessionKey"),
        agentId: optionalString(options.agentId, "agentId"),
        agentRunId: optionalString(options.agentRunId, "agentRunId"),
        limits: options.limits || undefined,
        isolation: options.isolation,
        sandboxGroup: options.sandboxGroup,
        redaction: redactionAsText(options.redaction),
        tools: tools.specs,
        surfaces: surfaceSpecs,
        durableRuns: durableRuns === null ? undefined : { keys: durableRuns.keys },
      },
      tools.specs
    );
    return { text, beforeToolCall, onEvent, servers, telemetry, durableRuns, sessionId: options.sessionId, commit: tools.commit };
  }

  // Tools added to a live session: their specs as JSON text; `commit()` registers them
  // once Rust accepted the text.
  function addTools(list) {
    const tools = normalizeTools(list, "tools");
    return { text: serialize(tools.specs, tools.specs), commit: tools.commit };
  }

  function budgetOption(value) {
    if (value === undefined || value === null) return undefined;
    return typeof value === "number" && Number.isFinite(value) ? value : "invalid";
  }

  function field(input, key) {
    if (!Object.prototype.hasOwnProperty.call(input, key) || input[key] === undefined || input[key] === null) return { kind: "absent" };
    const value = input[key];
    return { kind: typeof value, value: typeof value === "string" || typeof value === "boolean" ? value : null };
  }

  return {
    invalid,
    isObject,
    normalizeOptions,
    addTools,
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
    // What exec received, field by field (types are judged in Rust).
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
  };
})
