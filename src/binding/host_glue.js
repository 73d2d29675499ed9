// Host-side glue of one CodeModeSession, compiled once per session on the Node thread: it
// owns every live JS value (tool definitions, AbortControllers, abort listeners), and Rust
// talks to it in JSON strings and small integers only, so no JS object crosses threads.
(function createHost(done, pauseBudget, resumeBudget, mcpLoaded, nextLetter, abortCall, scheduler, watchToolList) {
  "use strict";
  const definitions = [];
  // Namespace leaves, MCP tools and operations, nodes, skills and Swarm: called like tools
  // (policy hook, events, abort signal), indexed separately from catalog tools.
  const surfaces = [];
  let mcpServers = [];
  let mcpReady = null;
  // Per MCP server, by index: its latest load report (null until the first ends), the
  // number of its newest load, whether a list_changed refresh runs or is due, and the
  // listener the client's list_changed handler holds weakly (kept alive here).
  let serverStates = [];
  let closed = false;
  const MCP_LIST_TIMEOUT_MS = 15000;
  const MAX_PAGES = 100;
  const MAX_NAMESPACE_DEPTH = 8;
  const MAX_NAMESPACE_LEAVES = 2000;
  const controllers = new Map();
  // exec/wait promises by token, settled by a letter from the mailbox: { resolve, owner,
  // signal, listener }. owner is the JS session, kept reachable meanwhile; listener is the
  // call's abort listener on signal, removed on settling. While any is pending the
  // scheduler holds the event loop open (the wake-up function is weak, so an idle session
  // never does).
  const results = new Map();
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

  // Guest BigInts cross as decimal strings; a tool's BigInts (also boxed ones) do the same.
  // The replacer only runs after a plain stringify threw, so the usual path stays fast.
  const bigintValueOf = BigInt.prototype.valueOf;
  function bigintAsString(_key, value) {
    if (typeof value === "bigint") return value.toString();
    if (value !== null && typeof value === "object") {
      try {
        return bigintValueOf.call(value).toString();
      } catch (_) {
        // Not a boxed BigInt.
      }
    }
    return value;
  }
  function toJsonText(value) {
    try {
      return JSON.stringify(value);
    } catch (error) {
      if (!(error instanceof TypeError) || !/BigInt/i.test(String(error.message))) throw error;
      return JSON.stringify(value, bigintAsString);
    }
  }

  function plainJson(value) {
    const text = toJsonText(value === undefined ? null : value);
    return text === undefined ? null : JSON.parse(text);
  }

  function abortReason() {
    return new Error("code mode execution aborted");
  }

  // ctx.signal: an own, enumerable accessor (so destructuring and `{ ...ctx }` see it)
  // whose AbortController is made on first read; most tools never read it. One getter for
  // every ctx: a getter made per call gives each ctx its own shape, which V8 stores as a
  // slow dictionary (770 B a ctx instead of 310, and twice the time to build).
  const CALL = Symbol("codemode.toolCall");
  const SIGNAL_PROPERTY = {
    enumerable: true,
    configurable: true,
    get() {
      const call = this !== null && typeof this === "object" ? this[CALL] : undefined;
      if (call === undefined) return undefined;
      if (call.controller === null) {
        call.controller = new AbortController();
        if (call.aborted) call.controller.abort(abortReason());
      }
      return call.controller.signal;
    },
  };

  // beforeToolCall may block the call or rewrite its input before the tool runs.
  async function withPolicy(definition, toolName, callableName, inputJson, callId, ctx) {
    let input = JSON.parse(inputJson);
    const decision = await beforeToolCall({ toolName, callableName, input: plainJson(input), callId });
    if (decision !== null && typeof decision === "object") {
      if (decision.block !== undefined && decision.block !== null && decision.block !== false) {
        const reason = typeof decision.block === "string" ? decision.block : "blocked by policy";
        // The addon's own text names the tool as the guest called it; the reason is the
        // policy's and passes unchanged.
        throw new BlockedCall('Tool "' + callableName + '" was blocked before execution: ' + reason);
      }
      if (Object.prototype.hasOwnProperty.call(decision, "input")) input = plainJson(decision.input);
    }
    return definition.execute(input, ctx);
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

  const NOT_YET = [];

  function addSurface(name, source, execute) {
    surfaces.push({ name, source, execute });
    return surfaces.length - 1;
  }

  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  // Leaves are called with (args, ctx) and `this` set to the object holding them.
  function namespaceLeaves(scope, path, at, out, depth) {
    if (depth > MAX_NAMESPACE_DEPTH) throw invalid(at + " is nested more than " + MAX_NAMESPACE_DEPTH + " levels deep.");
    for (const key of Object.keys(scope)) {
      const value = scope[key];
      const here = path.concat([key]);
      if (typeof value === "function") {
        if (out.length >= MAX_NAMESPACE_LEAVES) throw invalid(at + " has more than " + MAX_NAMESPACE_LEAVES + " functions.");
        out.push({ path: here, fn: value, holder: scope });
      } else if (isObject(value)) {
        namespaceLeaves(value, here, at + "." + key, out, depth + 1);
      }
    }
  }

  function normalizeNamespaces(list) {
    if (list === undefined || list === null) return [];
    if (!Array.isArray(list)) throw invalid("namespaces must be an array of namespace definitions.");
    return list.map((ns, i) => {
      const at = "namespaces[" + i + "]";
      if (!isObject(ns)) throw invalid(at + " must be an object.");
      if (typeof ns.globalName !== "string") throw invalid(at + ".globalName must be a string.");
      if (!isObject(ns.scope)) throw invalid(at + ".scope must be an object whose leaves are functions.");
      const leaves = [];
      namespaceLeaves(ns.scope, [], at + ".scope", leaves, 1);
      const name = ns.globalName;
      return {
        globalName: name,
        description: optionalString(ns.description, at + ".description") || "",
        prompt: optionalString(ns.prompt, at + ".prompt") || "",
        leaves: leaves.map((leaf) => ({
          path: leaf.path,
          hostIndex: addSurface(name + "." + leaf.path.join("."), "namespace", (input, ctx) => leaf.fn.call(leaf.holder, input, ctx)),
        })),
      };
    });
  }

  function requireHost(value, name, methods) {
    if (value === undefined || value === null) return null;
    if (typeof value !== "object" && typeof value !== "function") throw invalid(name + " must be an object.");
    for (const method of methods) {
      if (typeof value[method] !== "function") throw invalid(name + "." + method + " must be a function.");
    }
    return value;
  }

  function normalizeNodes(nodes) {
    if (requireHost(nodes, "nodes", ["list", "invoke"]) === null) return null;
    return {
      list: addSurface("nodes.list", "nodes", async (_input, ctx) => {
        const list = await nodes.list(ctx);
        if (!Array.isArray(list)) throw new Error("nodes.list returned a value that is not an array.");
        return list;
      }),
      invoke: addSurface("nodes.invoke", "nodes", async (input, ctx) => {
        const command = input.command;
        // The generic surface never runs shell commands: those go through the exec tool.
        if (command === "system.run" || command === "exec") {
          throw new Error('node command "' + command + '" is reserved for the exec tool and cannot run from code mode.');
        }
        return nodes.invoke(String(input.nodeId), command, input.params === undefined ? null : input.params, ctx);
      }),
    };
  }

  function normalizeSkills(skills) {
    if (requireHost(skills, "skills", ["list", "read"]) === null) return null;
    return {
      list: addSurface("skills.list", "skills", (_input, ctx) => skills.list(ctx)),
      read: addSurface("skills.read", "skills", async (input, ctx) => {
        const rel = typeof input.relativePath === "string" ? input.relativePath : undefined;
        if (rel !== undefined && (rel.startsWith("/") || rel.split(/[\\/]/).includes(".."))) {
          throw new Error("skills.read relativePath must stay inside the skill.");
        }
        return skills.read(String(input.name), rel, ctx);
      }),
    };
  }

  function normalizeSwarm(swarm) {
    if (requireHost(swarm, "swarm", ["run"]) === null) return null;
    const ops = { run: addSurface("agents.run", "swarm", (input, ctx) => swarm.run(input, ctx)) };
    for (const method of ["phase", "log"]) {
      if (swarm[method] === undefined || swarm[method] === null) continue;
      if (typeof swarm[method] !== "function") throw invalid("swarm." + method + " must be a function.");
      ops[method] = addSurface(method, "swarm", async (input, ctx) => {
        await swarm[method](String(input), ctx);
        return null;
      });
    }
    return ops;
  }

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
      return { name: server.name, client, surfaceIndices: new Map() };
    });
  }

  // A server's tool or operation keeps its surface index across reloads: its function
  // depends only on the client and the name, and surfaces are never removed, so a server
  // that keeps announcing list changes must not grow them.
  function mcpSurface(server, key, name, execute) {
    let index = server.surfaceIndices.get(key);
    if (index === undefined) {
      index = addSurface(name, "mcp", execute);
      server.surfaceIndices.set(key, index);
    }
    return index;
  }

  function withTimeout(promise, ms, message) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
      if (typeof timer.unref === "function") timer.unref();
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }

  // Every page of a list. Some clients ignore the cursor and answer the first page (and
  // its nextCursor) again: paging stops when a cursor repeats or a page brings nothing
  // new, and an item whose key was already seen is dropped (one name, one entry).
  async function allPages(fetchPage, field, keyOf) {
    const items = [];
    const keys = new Set();
    const cursors = new Set();
    let cursor;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await fetchPage(cursor === undefined ? undefined : { cursor });
      const batch = result !== null && typeof result === "object" ? result[field] : undefined;
      let added = 0;
      if (Array.isArray(batch)) {
        for (const item of batch) {
          const key = keyOf(item);
          if (key !== undefined && keys.has(key)) continue;
          if (key !== undefined) keys.add(key);
          items.push(item);
          added++;
        }
      }
      cursor = result !== null && typeof result === "object" ? result.nextCursor : undefined;
      if (typeof cursor !== "string" || cursor === "" || added === 0 || cursors.has(cursor)) break;
      cursors.add(cursor);
    }
    return items;
  }

  // What makes a listed item the same as another: tools and prompts by name, resources
  // by uri, templates by uriTemplate. Items without one are kept as they are.
  function keyBy(property) {
    return (item) => (item !== null && typeof item === "object" && typeof item[property] === "string" ? item[property] : undefined);
  }

  // setTimeout's largest delay (a larger one fires at once): the SDK's own request timer
  // (60 s unless told) must not cut a call whose run is parked while the model thinks. The
  // run's lifetime bounds the call instead: ctx.signal aborts it when the run ends,
  // expires, is aborted or its session closes.
  const MCP_REQUEST_TIMEOUT_MS = 0x7fffffff;

  // Request options of every MCP call the guest makes: onprogress makes the SDK send a
  // progressToken, and each notifications/progress becomes the call's tool_call_update
  // event, as ctx.onUpdate does for host tools.
  function mcpRequestOptions(ctx) {
    return {
      signal: ctx.signal,
      timeout: MCP_REQUEST_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress: (progress) => {
        const p = progress !== null && typeof progress === "object" ? progress : {};
        ctx.onUpdate({ progress: p.progress, total: p.total, message: p.message });
      },
    };
  }

  function mcpToolCall(client, toolName) {
    return async (input, ctx) =>
      projectToolResult(await client.callTool({ name: toolName, arguments: input }, undefined, mcpRequestOptions(ctx)));
  }

  // MCP `callTool` results keep content blocks (with annotations and block _meta),
  // structuredContent and isError; top-level _meta never reaches the guest.
  function projectToolResult(result) {
    const r = result !== null && typeof result === "object" ? result : {};
    const out = { content: Array.isArray(r.content) ? r.content : [] };
    if (!Array.isArray(r.content) && r.toolResult !== undefined) out.content = [{ type: "text", text: JSON.stringify(r.toolResult) }];
    if (r.structuredContent !== undefined) out.structuredContent = r.structuredContent;
    out.isError = r.isError === true;
    return out;
  }

  function without_meta(result, fields) {
    const r = result !== null && typeof result === "object" ? result : {};
    const out = {};
    for (const field of fields) if (r[field] !== undefined) out[field] = r[field];
    return out;
  }

  async function loadServer(server) {
    const { name, client } = server;
    try {
      // An SDK Client has every method whatever the server supports; the server's declared
      // capabilities decide, when the client can tell them (duck-typed clients may not).
      // A server without tools (resources or prompts only) is listed as having none.
      const capabilities = typeof client.getServerCapabilities === "function" ? client.getServerCapabilities() : undefined;
      const supports = (family) => !isObject(capabilities) || isObject(capabilities[family]);
      const tools = !supports("tools")
        ? []
        : await withTimeout(
            allPages((params) => client.listTools(params), "tools", keyBy("name")),
            MCP_LIST_TIMEOUT_MS,
            "listTools did not answer within " + MCP_LIST_TIMEOUT_MS + " ms"
          );
      const entries = [];
      for (const tool of tools) {
        if (tool === null || typeof tool !== "object" || typeof tool.name !== "string") continue;
        const toolName = tool.name;
        const hostIndex = mcpSurface(server, "tool:" + toolName, toolName, mcpToolCall(client, toolName));
        entries.push({
          name: toolName,
          description: typeof tool.description === "string" ? tool.description : "",
          inputSchema: isObject(tool.inputSchema) ? tool.inputSchema : undefined,
          hostIndex,
        });
      }
      const ops = {};
      const op = (key, method, run) => {
        if (typeof client[method] === "function" && supports(key.split(".")[0])) ops[key] = mcpSurface(server, key, name + "." + key, run);
      };
      op("resources.list", "listResources", async (_input, ctx) => ({
        resources: await allPages((params) => client.listResources(params, { signal: ctx.signal }), "resources", keyBy("uri")),
      }));
      op("resources.templates", "listResourceTemplates", async (_input, ctx) => ({
        resourceTemplates: await allPages((params) => client.listResourceTemplates(params, { signal: ctx.signal }), "resourceTemplates", keyBy("uriTemplate")),
      }));
      op("resources.read", "readResource", async (input, ctx) =>
        without_meta(await client.readResource({ uri: String(input.uri) }, mcpRequestOptions(ctx)), ["contents"])
      );
      op("prompts.list", "listPrompts", async (_input, ctx) => ({
        prompts: await allPages((params) => client.listPrompts(params, { signal: ctx.signal }), "prompts", keyBy("name")),
      }));
      op("prompts.get", "getPrompt", async (input, ctx) => {
        const params = { name: String(input.name) };
        if (isObject(input.arguments)) params.arguments = input.arguments;
        return without_meta(await client.getPrompt(params, mcpRequestOptions(ctx)), ["description", "messages"]);
      });
      // Serialising here keeps a server with an unserialisable schema from failing the rest.
      return JSON.parse(JSON.stringify({ name, tools: entries, ops }));
    } catch (error) {
      return { name, error: errorText(error) };
    }
  }

  // Hands Rust every server's latest report once each server has one.
  function reportMcp() {
    if (closed || serverStates.some((state) => state.report === null)) return;
    try {
      mcpLoaded(JSON.stringify({ servers: serverStates.map((state) => state.report) }));
    } catch (_) {
      // The session was finalised meanwhile; waiting callers must still run.
    }
  }

  // Loads the given servers' tools (all pages) and reports; a failing or silent server is
  // reported as unavailable instead of failing the session. Of overlapping loads of one
  // server the newest wins, except that any load fills a server that has no report yet.
  // `keepTools`: a failed reload keeps the tools the server had (a list_changed refresh
  // should not take a server away over one failed listing).
  function loadServers(indices, keepTools) {
    return Promise.all(
      indices.map((i) => {
        const state = serverStates[i];
        const mine = ++state.loads;
        return loadServer(mcpServers[i]).then((report) => {
          const had = state.report !== null && state.report.error === undefined;
          if (keepTools && report.error !== undefined && had) return;
          if (mine === state.loads || state.report === null) state.report = report;
        });
      })
    ).then(reportMcp);
  }

  function loadMcp() {
    const loading = loadServers(mcpServers.map((_, i) => i), false);
    mcpReady = loading;
    return loading;
  }

  // A tools/list_changed from server i: reload that server alone. Notifications arriving
  // while it reloads (a server registering tools one by one) cost one more reload, not one each.
  function toolListChanged(i) {
    const state = serverStates[i];
    if (closed || state === undefined) return;
    if (state.refreshing) {
      state.again = true;
      return;
    }
    state.refreshing = true;
    loadServers([i], true).then(() => {
      state.refreshing = false;
      if (state.again) {
        state.again = false;
        toolListChanged(i);
      }
    });
  }

  function watchServers() {
    serverStates.forEach((state, i) => {
      state.listener = () => toolListChanged(i);
      state.unwatch = watchToolList(mcpServers[i].client, state.listener);
    });
  }

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

  function settle(token, text, runId, status) {
    const entry = results.get(token);
    if (entry === undefined) return;
    results.delete(token);
    if (entry.signal !== null) {
      // A caller's signal-like object may throw here; the result must still arrive.
      try {
        entry.signal.removeEventListener("abort", entry.listener);
      } catch (_) {}
    }
    scheduler.hold(-1);
    if (onEvent !== null && runId !== "") emit({ type: "run_status", runId, status });
    entry.resolve(JSON.parse(text));
  }

  // One letter from the mailbox (kinds: mailbox.rs, `Letter`); false once it is empty.
  function take() {
    const letter = nextLetter();
    if (letter === null || letter === undefined) return false;
    switch (letter[0]) {
      case 0:
        host.invoke(letter[1], letter[2], letter[3], letter[4], letter[5], letter[6], letter[7], letter[8], letter[9]);
        break;
      case 1:
        host.abort(letter[1]);
        break;
      case 2:
        host.emit(letter[1]);
        break;
      case 3:
        settle(letter[1], letter[2], letter[3], letter[4]);
        break;
    }
    return true;
  }

  const host = {
    // Called through the mailbox's wake-up when its first letter arrives.
    wake() {
      scheduler.wake(take);
    },
    // A pending exec/wait result, settled by `settle`.
    open(token, owner) {
      return new Promise((resolve) => {
        results.set(token, { resolve, owner, signal: null, listener: null });
        scheduler.hold(1);
      });
    },
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
      const servers = normalizeMcpServers(options.mcpServers);
      const surfaceSpecs = {
        namespaces: normalizeNamespaces(options.namespaces),
        nodes: normalizeNodes(options.nodes),
        skills: normalizeSkills(options.skills),
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
          redaction: redactionOptions(options.redaction),
          tools: tools.specs,
          surfaces: surfaceSpecs,
        },
        tools.specs
      );
      tools.commit();
      mcpServers = servers;
      return text;
    },
    // Called by Rust once the session exists, so the load report has somewhere to go.
    // `watch`: refresh a server's tools when it says its list changed.
    startMcp(watch) {
      if (mcpServers.length === 0) return;
      serverStates = mcpServers.map(() => ({ report: null, loads: 0, refreshing: false, again: false, listener: null, unwatch: null }));
      loadMcp();
      if (watch) watchServers();
    },
    // The session closed: no more refreshes, and the clients stop calling it.
    close() {
      closed = true;
      for (const state of serverStates) {
        if (typeof state.unwatch === "function") state.unwatch();
        state.listener = null;
      }
    },
    // Runs `callback` once the MCP tools are loaded (at once when there are none).
    afterMcp(callback) {
      (mcpReady === null ? Promise.resolve() : mcpReady).then(() => callback());
    },
    refreshMcp(callback) {
      (mcpServers.length > 0 ? loadMcp() : Promise.resolve()).then(() => callback());
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
    rejected(message) {
      return Promise.reject(invalid(message));
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
    // The listener belongs to one exec/wait call: `settle` removes it, so a signal reused
    // across many calls (one per model turn, say) holds none. Returns whether there is a
    // signal to listen to. The cell has already started: a throwing options getter or
    // signal-like object must not turn this exec into an exception while its run goes on
    // unseen; the call then just cannot be aborted.
    onAbort(options, token) {
      try {
        const signal = options && options.signal;
        const entry = results.get(token);
        if (!signal || typeof signal.addEventListener !== "function" || entry === undefined) return false;
        const listener = () => abortCall(token);
        signal.addEventListener("abort", listener, { once: true });
        if (typeof signal.removeEventListener === "function") {
          entry.signal = signal;
          entry.listener = listener;
        }
        return true;
      } catch (_) {
        return false;
      }
    },
    emit(eventJson) {
      if (onEvent !== null) emit(JSON.parse(eventJson));
    },
    invoke(index, surface, callableName, inputJson, callId, parentCallId, runId, sessionId, token) {
      const definition = surface ? surfaces[index] : definitions[index];
      const toolName = definition.name;
      // The call's abort state; ctx.signal makes its controller on first read (already
      // aborted if the call was cancelled before that).
      const call = { controller: null, aborted: false };
      controllers.set(callId, call);
      const listening = onEvent !== null;
      const started = listening ? Date.now() : 0;
      // Open pauseBudget() windows of this call; each resume function closes its own once,
      // and the call's end closes whatever is still open.
      let pauses = 0;
      let settled = false;
      const parent = parentCallId === "" ? undefined : parentCallId;
      const ctx = { callId, parentCallId: parent, runId, sessionId };
      Object.defineProperty(ctx, "signal", SIGNAL_PROPERTY);
      Object.defineProperty(ctx, CALL, { value: call });
      ctx.onUpdate = (partial) => {
        if (settled || onEvent === null) return;
        let value;
        try {
          value = plainJson(partial);
        } catch (_) {
          return;
        }
        emit({ type: "tool_call_update", runId, callId, partial: value });
      };
      ctx.pauseBudget = () => {
        pauseBudget(token);
        pauses++;
        let open = true;
        return () => {
          if (open && pauses > 0) {
            open = false;
            pauses--;
            resumeBudget(token);
          }
        };
      };
      if (listening) {
        emit({ type: "tool_call_start", runId, callId, parentCallId: parent, toolName, callableName, source: definition.source || "openclaw", inputPreview: preview(inputJson) });
      }
      const finish = (ok, text) => {
        if (settled) return;
        settled = true;
        controllers.delete(callId);
        for (; pauses > 0; pauses--) resumeBudget(token);
        if (onEvent !== null) {
          const end = { type: "tool_call_end", runId, callId, status: ok ? "ok" : call.aborted ? "cancelled" : "error", durationMs: listening ? Date.now() - started : 0 };
          if (ok) end.outputPreview = preview(text);
          else end.error = preview(text);
          emit(end);
        }
        done(token, ok, text);
      };
      const succeed = (value) => {
        let text;
        try {
          text = toJsonText(value === undefined ? null : value);
        } catch (e) {
          finish(false, "tool returned a value that is not JSON: " + errorText(e));
          return;
        }
        finish(true, text === undefined ? "null" : text);
      };
      const fail = (error) => finish(false, errorText(error));
      // Without a policy hook the tool starts in this tick (one hop fewer per call); a
      // synchronous throw is still a failed call, never an exception out of invoke.
      let result;
      try {
        result = beforeToolCall === null ? definition.execute(JSON.parse(inputJson), ctx) : withPolicy(definition, toolName, callableName, inputJson, callId, ctx);
        if (result !== null && typeof result === "object" && typeof result.then === "function") {
          Promise.resolve(result).then(succeed, fail);
          return;
        }
      } catch (error) {
        fail(error);
        return;
      }
      succeed(result);
    },
    abort(callId) {
      const call = controllers.get(callId);
      if (call !== undefined) {
        controllers.delete(callId);
        call.aborted = true;
        if (call.controller !== null) call.controller.abort(abortReason());
      }
    },
  };
  return host;
});
