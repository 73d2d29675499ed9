// MCP client driver of one session: lists each server's tools and operations (all pages,
// cursor loops cut, bounded by a timeout), turns them into surfaces whose indices survive
// reloads, projects results, and reloads a server on tools/list_changed.
(function mcp(deps) {
  "use strict";
  const { addSurface, errorText, isObject, listening, mcpLoaded, reportNames, requestSignal, watchToolList, limits } = deps;
  const MCP_LIST_TIMEOUT_MS = limits.mcpListTimeoutMs;
  const MAX_PAGES = limits.mcpMaxPages;
  // setTimeout's largest delay (a larger one fires at once): the SDK's own request timer
  // (60 s unless told) must not cut a call whose run is parked while the model thinks. The
  // run's lifetime bounds the call instead: its signal aborts it when the run ends,
  // expires, is aborted or its session closes.
  const MCP_REQUEST_TIMEOUT_MS = 0x7fffffff;
  // { name, client, surfaceIndices } per server.
  let mcpServers = [];
  let mcpReady = null;
  // Per MCP server, by index: its latest load report (null until the first ends), the
  // number of its newest load, whether a list_changed refresh runs or is due, and the
  // listener the client's list_changed handler holds weakly (kept alive here).
  let serverStates = [];
  let closed = false;

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

  // Request options of every MCP call the guest makes. When the session listens to events,
  // onprogress makes the SDK send a progressToken and each notifications/progress becomes
  // the call's tool_call_update event, as ctx.onUpdate does for host tools; when nobody
  // listens, the call asks the server for no progress (and skips the SDK's handler).
  function mcpRequestOptions(ctx) {
    const signal = requestSignal(ctx);
    if (!listening()) return { signal, timeout: MCP_REQUEST_TIMEOUT_MS };
    return {
      signal,
      timeout: MCP_REQUEST_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress: (progress) => {
        const p = progress !== null && typeof progress === "object" ? progress : {};
        ctx.onUpdate({ progress: p.progress, total: p.total, message: p.message });
      },
    };
  }

  // No async wrapper: the result is projected in one reaction (a duck-typed client may
  // answer without a promise), and a synchronous throw still fails the call in invoke.
  function mcpToolCall(client, toolName) {
    return (input, ctx) => Promise.resolve(client.callTool({ name: toolName, arguments: input }, undefined, mcpRequestOptions(ctx))).then(projectToolResult);
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

  // One server's load report: { name, tools, ops } as plain JSON, or { name, error }.
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
        resources: await allPages((params) => client.listResources(params, { signal: requestSignal(ctx) }), "resources", keyBy("uri")),
      }));
      op("resources.templates", "listResourceTemplates", async (_input, ctx) => ({
        resourceTemplates: await allPages((params) => client.listResourceTemplates(params, { signal: requestSignal(ctx) }), "resourceTemplates", keyBy("uriTemplate")),
      }));
      op("resources.read", "readResource", async (input, ctx) =>
        without_meta(await client.readResource({ uri: String(input.uri) }, mcpRequestOptions(ctx)), ["contents"])
      );
      op("prompts.list", "listPrompts", async (_input, ctx) => ({
        prompts: await allPages((params) => client.listPrompts(params, { signal: requestSignal(ctx) }), "prompts", keyBy("name")),
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
      // Rust answers with the catalog's renamed tools, reported once each through onEvent.
      const renamed = mcpLoaded(JSON.stringify({ servers: serverStates.map((state) => state.report) }));
      if (typeof reportNames === "function") reportNames(renamed);
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

  return {
    allPages,
    projectToolResult,
    // The session's servers ({ name, client }, validated), before start().
    setServers(servers) {
      mcpServers = servers.map((s) => ({ name: s.name, client: s.client, surfaceIndices: new Map() }));
    },
    // Called by Rust once the session exists, so the load report has somewhere to go.
    // `watch`: refresh a server's tools when it says its list changed.
    start(watch) {
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
    afterLoad(callback) {
      (mcpReady === null ? Promise.resolve() : mcpReady).then(() => callback());
    },
    refresh(callback) {
      (mcpServers.length > 0 ? loadMcp() : Promise.resolve()).then(() => callback());
    },
  };
})
