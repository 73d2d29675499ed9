// glue/mcp.js on its own against real MCP servers (SDK servers in memory, server-memory
// over stdio), wired to the real invoke, events and mcp_watch modules: load reports,
// paging guards, capabilities, result projection, progress, abort and list_changed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { getEventListeners } from "node:events";
import vm from "node:vm";
import { limits } from "./fixtures/glue_limits.mjs";
import { cancellationsReceived } from "./fixtures/mcp_cancellations.mjs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { z } from "zod";

const load = (name) => vm.runInThisContext(readFileSync(new URL(`../src/binding/glue/${name}.js`, import.meta.url), "utf8"), { filename: `glue/${name}.js` });
const [createEvents, createInvoke, createMcp, createSignals, watchToolList] = ["events", "invoke", "mcp", "signals", "mcp_watch"].map(load);
const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

async function connect(server) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "glue-test", version: "1" });
  await client.connect(b);
  return client;
}

// The driver with its reports to Rust queued, and a way to call its surfaces as Rust does.
function setup(servers) {
  const events = createEvents({ limits });
  const seen = [];
  events.setListener((e) => seen.push(e));
  const finished = new Map();
  const calls = createInvoke({ events, signals: createSignals(), done: (token, ok, text) => finished.get(token)({ ok, text }), pauseBudget() {}, resumeBudget() {} });
  const reports = [];
  let notify = null;
  const mcp = createMcp({
    addSurface: calls.addSurface,
    errorText: calls.errorText,
    isObject: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
    listening: events.listening,
    requestSignal: calls.requestSignal,
    mcpLoaded: (text) => {
      reports.push(JSON.parse(text));
      if (notify) notify();
    },
    watchToolList,
    limits,
  });
  mcp.setServers(servers);
  let token = 0;
  const call = (index, input, callId = "c" + (token + 1)) =>
    new Promise((resolve) => {
      finished.set(++token, resolve);
      calls.invoke(index, true, "mcp", JSON.stringify(input), callId, "", "run-1", "s", token);
    });
  const nextReport = async () => {
    const count = reports.length;
    while (reports.length === count) await new Promise((resolve) => (notify = resolve));
    return reports[reports.length - 1];
  };
  return { mcp, calls, call, reports, nextReport, seen };
}

async function docs() {
  const server = new McpServer({ name: "docs", version: "1.0.0" });
  server.registerTool("echo", { description: "Echo", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text, _meta: { kept: true } }], structuredContent: { text }, _meta: { dropped: true } }));
  server.registerTool("steps", { inputSchema: {} }, async (_args, extra) => {
    await extra.sendNotification({ method: "notifications/progress", params: { progressToken: extra._meta.progressToken, progress: 1, total: 2, message: "half" } });
    return { content: [{ type: "text", text: "done" }] };
  });
  server.registerTool("hang", { inputSchema: {} }, () => new Promise(() => {}));
  server.registerResource("memo", "memo://one", { description: "A memo" }, async (uri) => ({ contents: [{ uri: uri.href, text: "remember" }], _meta: { x: 1 } }));
  server.registerPrompt("brief", { argsSchema: { topic: z.string() } }, ({ topic }) => ({ messages: [{ role: "user", content: { type: "text", text: "on " + topic } }] }));
  return { server, client: await connect(server) };
}

test("a server's tools and operations load as numbered surfaces and are called through them", async () => {
  const { client } = await docs();
  const { mcp, call, nextReport } = setup([{ name: "docs", client }]);
  const loaded = nextReport();
  mcp.start(false);
  const { servers: [report] } = await loaded;
  assert.equal(report.name, "docs");
  assert.deepEqual(report.tools.map((t) => [t.name, t.hostIndex]), [["echo", 0], ["steps", 1], ["hang", 2]]);
  assert.equal(report.tools[0].description, "Echo");
  assert.equal(report.tools[0].inputSchema.type, "object");
  assert.deepEqual(Object.keys(report.ops).sort(), ["prompts.get", "prompts.list", "resources.list", "resources.read", "resources.templates"]);
  const echoed = await call(0, { text: "hi" });
  assert.deepEqual(JSON.parse(echoed.text), { content: [{ type: "text", text: "hi", _meta: { kept: true } }], structuredContent: { text: "hi" }, isError: false });
  const read = JSON.parse((await call(report.ops["resources.read"], { uri: "memo://one" })).text);
  assert.deepEqual(read, { contents: [{ uri: "memo://one", text: "remember" }] });
  const listed = JSON.parse((await call(report.ops["resources.list"], null)).text);
  assert.deepEqual(listed.resources.map((r) => r.uri), ["memo://one"]);
  const prompt = JSON.parse((await call(report.ops["prompts.get"], { name: "brief", arguments: { topic: "glue" } })).text);
  assert.deepEqual(prompt.messages[0].content, { type: "text", text: "on glue" });
  let after = false;
  await new Promise((resolve) => mcp.afterLoad(() => resolve((after = true))));
  assert.ok(after);
});

test("progress notifications become tool_call_update events; an aborted call fails", async () => {
  const { client } = await docs();
  const { mcp, calls, call, nextReport, seen } = setup([{ name: "docs", client }]);
  const loaded = nextReport();
  mcp.start(false);
  await loaded;
  assert.equal((await call(1, {}, "p1")).text, '{"content":[{"type":"text","text":"done"}],"isError":false}');
  assert.deepEqual(seen.find((e) => e.type === "tool_call_update"), { type: "tool_call_update", runId: "run-1", callId: "p1", partial: { progress: 1, total: 2, message: "half" } });
  const hanging = call(2, {}, "h1");
  await tick();
  calls.abort("h1");
  const aborted = await hanging;
  assert.equal(aborted.ok, false);
  assert.match(aborted.text, /code mode execution aborted/);
  assert.equal(seen.at(-1).status, "cancelled");
});

test("requests share a lent abort signal that keeps no listener between calls; an aborted one is never lent again", async () => {
  const { server, client } = await docs();
  const cancelled = cancellationsReceived(server);
  const signals = [];
  const callTool = client.callTool.bind(client);
  client.callTool = (params, schema, options) => {
    signals.push(options.signal);
    return callTool(params, schema, options);
  };
  const { mcp, calls, call, nextReport } = setup([{ name: "docs", client }]);
  const loaded = nextReport();
  mcp.start(false);
  await loaded;
  for (let i = 0; i < 3; i++) {
    assert.equal((await call(0, { text: "x" + i })).ok, true);
    assert.equal(getEventListeners(signals[i], "abort").length, 0, "the request's listener left with the call");
  }
  assert.ok(signals[0] instanceof AbortSignal);
  assert.equal(signals[1], signals[0], "one signal serves sequential calls");
  assert.equal(signals[2], signals[0]);
  // Two calls at once get two signals.
  const both = await Promise.all([call(0, { text: "a" }), call(0, { text: "b" })]);
  assert.deepEqual(both.map((r) => r.ok), [true, true]);
  assert.notEqual(signals[3], signals[4]);
  const hanging = call(2, {}, "h2");
  await tick();
  const hangSignal = signals.at(-1);
  calls.abort("h2");
  assert.equal((await hanging).ok, false);
  assert.equal(hangSignal.aborted, true);
  assert.equal(cancelled.length, 1, "only the pending request is cancelled, not the earlier ones: " + JSON.stringify(cancelled));
  assert.equal((await call(0, { text: "after" })).ok, true, "the next call is not born aborted");
  assert.notEqual(signals.at(-1), hangSignal);
  assert.equal(signals.at(-1).aborted, false);
});

test("a lent signal that gets a listener while idle is not lent again", () => {
  const pool = createSignals();
  const loan = pool.lend();
  const signal = loan.controller.signal;
  signal.addEventListener("abort", () => {});
  pool.giveBack(loan);
  assert.equal(getEventListeners(signal, "abort").length, 0);
  assert.equal(pool.lend().controller.signal, signal, "a clean loan is reused");
  pool.giveBack(loan);
  signal.addEventListener("abort", () => {});
  assert.notEqual(pool.lend().controller.signal, signal, "a listener added after giving back spoils it");
});

test("capabilities decide: a prompts-only server lists no tools and no resource operations", async () => {
  const server = new McpServer({ name: "prompts", version: "1" });
  server.registerPrompt("p", { description: "P" }, () => ({ messages: [] }));
  const client = await connect(server);
  const { mcp, nextReport } = setup([{ name: "prompts", client }]);
  const loaded = nextReport();
  mcp.start(false);
  const { servers: [report] } = await loaded;
  assert.deepEqual(report.tools, []);
  assert.deepEqual(Object.keys(report.ops).sort(), ["prompts.get", "prompts.list"]);
});

// A low-level server whose tools/list answers with `pages` (by cursor, or the first page
// when a client-supplied cursor is unknown), counting its calls.
async function paged(pages, { fail = () => false } = {}) {
  const server = new Server({ name: "paged", version: "1" }, { capabilities: { tools: { listChanged: true } } });
  const state = { calls: 0 };
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    state.calls++;
    if (fail(state.calls)) throw new Error("listing broke");
    return pages[request.params?.cursor] ?? pages.first;
  });
  return { server, state, client: await connect(server) };
}
const tool = (name) => ({ name, inputSchema: { type: "object" } });

test("paging follows cursors, drops repeated names and stops when a server ignores the cursor", async () => {
  const good = await paged({ first: { tools: [tool("a"), tool("b")], nextCursor: "2" }, 2: { tools: [tool("b"), tool("c")], nextCursor: "3" }, 3: { tools: [tool("d")] } });
  const stuck = await paged({ first: { tools: [tool("x")], nextCursor: "again" } });
  const { mcp, nextReport } = setup([{ name: "good", client: good.client }, { name: "stuck", client: stuck.client }]);
  const loaded = nextReport();
  mcp.start(false);
  const { servers } = await loaded;
  assert.deepEqual(servers[0].tools.map((t) => t.name), ["a", "b", "c", "d"]);
  assert.deepEqual(servers[1].tools.map((t) => t.name), ["x"]);
  assert.equal(good.state.calls, 3);
  assert.equal(stuck.state.calls, 2, "the repeated page brings nothing new: paging stops");
});

test("allPages stops at a repeated cursor, an empty cursor and after 100 pages", async () => {
  const { mcp } = setup([]);
  const byName = (item) => item.name;
  let n = 0;
  const endless = await mcp.allPages(async () => ({ items: [{ name: "i" + n }], nextCursor: "c" + n++ }), "items", byName);
  assert.equal(endless.length, 100);
  const loop = await mcp.allPages(async (params) => ({ items: [{ name: params?.cursor ?? "start" }], nextCursor: params?.cursor === "b" ? "a" : params?.cursor === "a" ? "b" : "a" }), "items", byName);
  assert.deepEqual(loop.map((i) => i.name), ["start", "a", "b"]);
  const unnamed = await mcp.allPages(async () => ({ items: [{}, {}, null], nextCursor: "" }), "items", (item) => item?.name);
  assert.equal(unnamed.length, 3);
});

test("projectToolResult keeps content, structuredContent and isError, and wraps legacy toolResult", () => {
  const { mcp } = setup([]);
  assert.deepEqual(mcp.projectToolResult({ content: [{ type: "text", text: "t" }], isError: true, _meta: { a: 1 } }), { content: [{ type: "text", text: "t" }], isError: true });
  assert.deepEqual(mcp.projectToolResult({ toolResult: { v: 1 } }), { content: [{ type: "text", text: '{"v":1}' }], isError: false });
  assert.deepEqual(mcp.projectToolResult(null), { content: [], isError: false });
});

test("a server that fails to list is reported as unavailable without failing the others", async () => {
  const broken = await paged({ first: { tools: [] } }, { fail: () => true });
  const { client } = await docs();
  const { mcp, nextReport } = setup([{ name: "broken", client: broken.client }, { name: "docs", client }]);
  const loaded = nextReport();
  mcp.start(false);
  const { servers } = await loaded;
  assert.equal(servers[0].name, "broken");
  assert.match(servers[0].error, /listing broke/);
  assert.equal(servers[1].tools.length, 3);
});

test("list_changed reloads a server with stable indices; a failed reload keeps its tools; close() stops it", async () => {
  const { server, client } = await docs();
  const { mcp, reports, nextReport } = setup([{ name: "docs", client }]);
  let loaded = nextReport();
  mcp.start(true);
  const first = (await loaded).servers[0];
  loaded = nextReport();
  server.registerTool("late", { inputSchema: {} }, async () => ({ content: [] }));
  const second = (await loaded).servers[0];
  assert.deepEqual(second.tools.map((t) => [t.name, t.hostIndex]), [...first.tools.map((t) => [t.name, t.hostIndex]), ["late", first.tools.length + Object.keys(first.ops).length]]);
  assert.deepEqual(second.ops, first.ops);

  const flaky = await paged({ first: { tools: [tool("a")] } }, { fail: (n) => n > 1 });
  const other = setup([{ name: "flaky", client: flaky.client }]);
  loaded = other.nextReport();
  other.mcp.start(true);
  const before = (await loaded).servers[0];
  loaded = other.nextReport();
  await flaky.server.sendToolListChanged();
  assert.deepEqual((await loaded).servers[0], before);
  assert.equal(flaky.state.calls, 2);
  other.mcp.close();

  // Closed: neither a list change nor a refresh reports again, and the callback still runs.
  mcp.close();
  const count = reports.length;
  server.registerTool("after_close", { inputSchema: {} }, async () => ({ content: [] }));
  await tick(50);
  await new Promise((resolve) => mcp.refresh(resolve));
  assert.equal(reports.length, count);
});

test("two drivers sharing a client are both told of list changes", async () => {
  const { server, client } = await docs();
  const a = setup([{ name: "docs", client }]);
  const b = setup([{ name: "docs", client }]);
  const loads = [a.nextReport(), b.nextReport()];
  a.mcp.start(true);
  b.mcp.start(true);
  await Promise.all(loads);
  const again = [a.nextReport(), b.nextReport()];
  server.registerTool("shared", { inputSchema: {} }, async () => ({ content: [] }));
  for (const { servers } of await Promise.all(again)) assert.ok(servers[0].tools.some((t) => t.name === "shared"));
  a.mcp.close();
  b.mcp.close();
});

test("server-memory over stdio loads its knowledge-graph tools and answers a call", async () => {
  const bin = new URL("../node_modules/.bin/mcp-server-memory", import.meta.url).pathname;
  const client = new Client({ name: "glue-test", version: "1" });
  await client.connect(new StdioClientTransport({ command: bin, args: [], stderr: "ignore", env: { ...process.env, MEMORY_FILE_PATH: "/tmp/glue-mcp-memory-" + process.pid + ".json" } }));
  try {
    const { mcp, call, nextReport } = setup([{ name: "memory", client }]);
    const loaded = nextReport();
    mcp.start(false);
    const { servers: [report] } = await loaded;
    const names = report.tools.map((t) => t.name);
    for (const name of ["create_entities", "read_graph", "search_nodes"]) assert.ok(names.includes(name), names.join());
    const index = report.tools.find((t) => t.name === "read_graph").hostIndex;
    const result = JSON.parse((await call(index, {})).text);
    assert.equal(result.isError, false);
    assert.equal(result.content[0].type, "text");
  } finally {
    await client.close();
  }
});
