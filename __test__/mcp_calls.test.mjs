// What happens when guest code calls an MCP tool and its result comes back: error text,
// ids and names of each call, progress, the request timeout, and results too large for
// maxOutputBytes. Real SDK servers, in memory or in a child process over stdio.
import { test, after, mock } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema, CallToolRequestSchema, McpError, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { z } from "zod";
import { makeSession, closeAll, drain, show, eventually } from "./_helpers.mjs";
import { cancellationsReceived } from "./fixtures/mcp_cancellations.mjs";

const clients = [];
after(async () => {
  await closeAll();
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
});

async function connect(server) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(b);
  clients.push(client);
  return client;
}

async function stdioClient(bin, args) {
  const command = new URL(`../node_modules/.bin/${bin}`, import.meta.url).pathname;
  const transport = new StdioClientTransport({ command, args, stderr: "ignore" });
  const client = new Client({ name: "test", version: "1" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

// Event-loop turns (not time) until check() holds; a bound keeps a broken build from hanging.
async function turnsUntil(check, what) {
  for (let turn = 0; turn < 100_000; turn++) {
    if (check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`${what} did not happen`);
}

async function completed(s, code) {
  const r = await drain(s, await s.exec({ code }));
  assert.equal(r.status, "completed", show(r));
  return r;
}

// ---------- error text ----------

// A server whose tool `get-sum` fails the request with a message that contains its name.
async function oddServer() {
  const server = new Server({ name: "odd", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "get-sum", inputSchema: { type: "object" } }] }));
  server.setRequestHandler(CallToolRequestSchema, async () => {
    throw new McpError(ErrorCode.InvalidParams, "file /srv/get-sum.txt not found");
  });
  return connect(server);
}

test("an MCP server's error text reaches the guest unchanged, even where it holds the tool's raw name", async () => {
  const s = makeSession({ mcpServers: [{ name: "odd", client: await oddServer() }] });
  const r = await completed(s, `try { await MCP.odd.getSum({}); } catch (e) { return [e.code, e.message]; }`);
  assert.equal(r.value[0], "tool_error");
  assert.match(r.value[1], /file \/srv\/get-sum\.txt not found$/);
  assert.doesNotMatch(r.value[1], /MCP\.odd/);
});

test("a blocked MCP call names its callable, and the policy's reason is kept as written", async () => {
  const s = makeSession({
    mcpServers: [{ name: "odd", client: await oddServer() }],
    beforeToolCall: ({ toolName, callableName }) => ({ block: `no ${toolName} today (${callableName})` }),
  });
  const r = await completed(s, `try { await MCP.odd.getSum({}); } catch (e) { return e.message; }`);
  assert.equal(r.value, 'Tool "MCP.odd.getSum" was blocked before execution: no get-sum today (MCP.odd.getSum)');
});

// ---------- one id per call, and its callable name ----------

function echoServer(name, gate) {
  const server = new McpServer({ name, version: "1" });
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => {
    if (gate) await gate;
    return { content: [{ type: "text", text: `${name}:${text}` }] };
  });
  return connect(server);
}

test("each MCP call has one id in pendingToolCalls, nestedCalls and events, and records its callable name", async () => {
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  const events = [];
  const s = makeSession({
    mcpServers: [{ name: "alpha", client: await echoServer("alpha") }, { name: "beta", client: await echoServer("beta", gate) }],
    onEvent: (e) => events.push(e),
  });
  const first = await s.exec({ code: `const a = await MCP.alpha.echo({ text: "a" }); const b = MCP.beta.echo({ text: "b" });
    await yield_control(); return [a.content[0].text, (await b).content[0].text];` });
  assert.equal(first.status, "waiting", show(first));
  const [alpha, beta] = first.nestedCalls;
  assert.equal(alpha.callableName, "MCP.alpha.echo", JSON.stringify(first.nestedCalls));
  assert.equal(beta.callableName, "MCP.beta.echo");
  assert.equal(alpha.toolName, "echo");
  assert.notEqual(alpha.callId, beta.callId);
  assert.deepEqual(first.pendingToolCalls, [{ id: beta.callId, method: "tool", toolName: "echo" }]);
  const start = events.find((e) => e.type === "tool_call_start" && e.callId === beta.callId);
  assert.equal(start?.callableName, "MCP.beta.echo", JSON.stringify(events));
  release();
  await eventually(() => events.some((e) => e.type === "tool_call_end" && e.callId === beta.callId), "the beta call's end event");
  const last = await drain(s, first);
  assert.equal(last.status, "completed", show(last));
  assert.deepEqual(last.value, ["alpha:a", "beta:b"]);
  assert.deepEqual(last.nestedCalls.map((c) => [c.callId, c.callableName, c.status]), [
    [alpha.callId, "MCP.alpha.echo", "ok"],
    [beta.callId, "MCP.beta.echo", "ok"],
  ]);
});

// ---------- progress and the request timeout ----------

test("progress notifications of a long MCP operation arrive as the call's update events while its run is parked", async () => {
  const client = await stdioClient("mcp-server-everything", ["stdio"]);
  const events = [];
  const s = makeSession({ mcpServers: [{ name: "everything", client }], onEvent: (e) => events.push(e) });
  // A step every 50 ms for 30 s: the updates are watched while the call is still running,
  // then the run is cancelled (the SDK drops a notification that arrives with the result).
  const first = await s.exec({ code: `const p = MCP.everything.triggerLongRunningOperation({ duration: 30, steps: 600 });
    await yield_control(); return (await p).content[0].text;` });
  assert.equal(first.status, "waiting", show(first));
  const [call] = first.nestedCalls;
  assert.equal(call.callableName, "MCP.everything.triggerLongRunningOperation");
  const updates = () => events.filter((e) => e.type === "tool_call_update");
  await eventually(() => updates().length >= 2, "two progress updates");
  assert.deepEqual(updates().slice(0, 2), [1, 2].map((progress) => ({ type: "tool_call_update", runId: first.runId, callId: call.callId, partial: { progress, total: 600 } })));
  assert.equal(s.cancelRun(first.runId), true);
});

test("an MCP call outlives the SDK's default request timeout while its run is parked", async () => {
  let release;
  let request = null;
  const server = new McpServer({ name: "slow", version: "1" });
  server.registerTool("work", { inputSchema: {} }, async (_args, extra) => {
    request = extra;
    await new Promise((resolve) => (release = resolve));
    return { content: [{ type: "text", text: "done" }] };
  });
  const s = makeSession({ mcpServers: [{ name: "slow", client: await connect(server) }] });
  await s.ready();
  // Only setTimeout is faked, from before the call starts, so the SDK's request timer is a
  // fake one: a week passes for it, far beyond the SDK's 60 s default, while the tool has
  // not answered. Nothing else on this path waits on setTimeout.
  mock.timers.enable({ apis: ["setTimeout"] });
  let first;
  try {
    first = await s.exec({ code: `const p = MCP.slow.work({}); await yield_control(); return (await p).content[0].text;` });
    assert.equal(first.status, "waiting", show(first));
    await turnsUntil(() => request !== null, "the server seeing the call");
    assert.equal(request._meta?.progressToken, undefined, "nobody listens to events, so the call asks for no progress");
    mock.timers.tick(7 * 24 * 3600 * 1000);
    // A cancellation would reach the server within a few turns (in-memory transport).
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(request.signal.aborted, false, "the SDK timer did not cancel the request");
  } finally {
    mock.timers.reset();
  }
  release();
  const last = await drain(s, first);
  assert.equal(last.status, "completed", show(last));
  assert.equal(last.value, "done");
});

test("cancelling a parked run cancels its MCP request on the server", async () => {
  let request = null;
  const server = new McpServer({ name: "slow", version: "1" });
  server.registerTool("hang", { inputSchema: {} }, async (_args, extra) => {
    request = extra;
    return new Promise(() => {});
  });
  const s = makeSession({ mcpServers: [{ name: "slow", client: await connect(server) }] });
  const first = await s.exec({ code: `const p = MCP.slow.hang({}); await yield_control(); return await p;` });
  assert.equal(first.status, "waiting", show(first));
  await eventually(() => request !== null, "the server seeing the call");
  assert.equal(s.cancelRun(first.runId), true);
  await eventually(() => request.signal.aborted, "the server's request being cancelled");
});

test("after many calls, cancelling a run cancels only its pending request, and the next run still reaches the server", async () => {
  let request = null;
  const server = new McpServer({ name: "slow", version: "1" });
  server.registerTool("quick", { inputSchema: {} }, async () => ({ content: [{ type: "text", text: "ok" }] }));
  server.registerTool("hang", { inputSchema: {} }, async (_args, extra) => {
    request = extra;
    return new Promise(() => {});
  });
  const client = await connect(server);
  const cancelled = cancellationsReceived(server);
  const s = makeSession({ mcpServers: [{ name: "slow", client }] });
  const first = await s.exec({ code: `for (let i = 0; i < 20; i++) await MCP.slow.quick({}); const p = MCP.slow.hang({}); await yield_control(); return await p;` });
  assert.equal(first.status, "waiting", show(first));
  await eventually(() => request !== null, "the server seeing the call");
  assert.equal(s.cancelRun(first.runId), true);
  await eventually(() => request.signal.aborted, "the server's request being cancelled");
  assert.deepEqual(cancelled, [request.requestId], "one cancellation, for the pending request");
  const next = await completed(s, `let n = 0; for (let i = 0; i < 3; i++) n += (await MCP.slow.quick({})).content[0].text === "ok" ? 1 : 0; return n;`);
  assert.equal(next.value, 3);
  assert.deepEqual(cancelled, [request.requestId]);
});

// ---------- large results ----------

test("a large file read through server-filesystem is cut inside and keeps its shape", async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "cm-fs-")));
  try {
    const line = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\n";
    const text = line.repeat(Math.ceil(40960 / line.length)).slice(0, 40960);
    writeFileSync(path.join(dir, "big.txt"), text);
    const client = await stdioClient("mcp-server-filesystem", [dir]);
    const s = makeSession({ limits: { maxOutputBytes: 4096 }, mcpServers: [{ name: "fs", client }] });
    const r = await completed(s, `const r = await MCP.fs.readTextFile({ path: ${JSON.stringify(path.join(dir, "big.txt"))} });
      const t = r.content[0].text;
      return { type: r.content[0].type, isError: r.isError, length: t.length, head: t.slice(0, 64), tail: t.slice(t.lastIndexOf("…")), dup: r.structuredContent.content };`);
    const v = r.value;
    assert.equal(v.type, "text");
    assert.equal(v.isError, false);
    assert.equal(v.head, text.slice(0, 64));
    const [, omitted] = /^…\[truncated (\d+) chars\]$/.exec(v.tail) ?? [];
    assert.ok(omitted, v.tail);
    assert.equal(v.length - v.tail.length + Number(omitted), text.length, "the marker counts what was cut");
    // The duplicate in structuredContent is counted once: the text keeps most of the budget.
    assert.ok(v.length > 3000, `kept ${v.length} chars`);
    assert.equal(v.dup, `…[truncated ${text.length} chars: duplicate of content[0].text]`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
