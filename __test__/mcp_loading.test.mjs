// Loading, listing and naming of MCP tools: scripts wait for them, paging survives clients
// that ignore cursors, resource templates are reachable, a server's own tool names resolve,
// and a server's tools/list_changed refreshes the session. Real SDK servers throughout
// (in memory and over stdio), plus duck-typed clients where a broken client is the point.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { createRequire } from "node:module";
import { native, eventually } from "./_helpers.mjs";

const { CodeModeSession, runCodeModeScript } = native;
const BIN = new URL("../node_modules/.bin/", import.meta.url).pathname;

async function connect(server, clientOptions) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "test", version: "1" }, clientOptions);
  await client.connect(b);
  return client;
}

function echoServer() {
  const server = new McpServer({ name: "srv", version: "1.0.0" });
  server.registerTool("echo", { inputSchema: { message: z.string() } }, async ({ message }) => ({ content: [{ type: "text", text: message }] }));
  return server;
}

async function value(s, code) {
  const r = await s.exec({ code });
  assert.equal(r.status, "completed", JSON.stringify(r).slice(0, 400));
  return r.value;
}

test("runCodeModeScript waits for MCP tools to load and lists them once", async () => {
  // listTools answers only after the script was started, so without the wait the script
  // would run before `MCP.srv` exists.
  const client = await connect(echoServer());
  let lists = 0;
  const answers = [];
  const gated = {
    listTools: (params) => {
      lists++;
      return new Promise((resolve) => answers.push(() => resolve(client.listTools(params))));
    },
    callTool: (...args) => client.callTool(...args),
  };
  const pending = runCodeModeScript('return (await MCP.srv.echo({ message: "x" })).content[0].text', { sessionId: "script-gated", mcpServers: [{ name: "srv", client: gated }] });
  await eventually(() => answers.length > 0, "the script to list the server's tools");
  for (const answer of answers.splice(0)) answer();
  const r = await pending;
  assert.equal(r.status, "completed", JSON.stringify(r));
  assert.equal(r.value, "x");
  assert.equal(lists, 1);
  await client.close();
});

test("runCodeModeScript reaches a real stdio server on every run", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "codemode-fs-"));
  writeFileSync(path.join(dir, "note.txt"), "hello from disk");
  const client = new Client({ name: "script-stdio", version: "1" });
  await client.connect(new StdioClientTransport({ command: BIN + "mcp-server-filesystem", args: [dir], stderr: "ignore" }));
  try {
    const code = `return (await MCP.files.readTextFile({ path: ${JSON.stringify(path.join(dir, "note.txt"))} })).content[0].text;`;
    for (let i = 0; i < 10; i++) {
      const r = await runCodeModeScript(code, { sessionId: "script-stdio-" + i, mcpServers: [{ name: "files", client }] });
      assert.equal(r.status, "completed", `run ${i}: ${JSON.stringify(r).slice(0, 300)}`);
      assert.equal(r.value, "hello from disk");
    }
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a client that ignores cursors is listed until its pages repeat, one tool per name", async () => {
  // Like the @ai-sdk/mcp client: the first page and the same nextCursor, forever.
  let sameCursorCalls = 0;
  const sameCursor = {
    listTools: async () => {
      sameCursorCalls++;
      return { tools: [{ name: "tool", inputSchema: { type: "object" } }], nextCursor: "next" };
    },
    callTool: async () => ({ content: [{ type: "text", text: "called" }] }),
  };
  // Fresh cursors, but every page repeats the first one's tools.
  let freshCursorCalls = 0;
  const freshCursor = {
    listTools: async () => ({ tools: [{ name: "a_tool" }, { name: "a_tool" }], nextCursor: "page" + ++freshCursorCalls }),
    callTool: async () => ({ content: [] }),
  };
  const s = new CodeModeSession({ sessionId: "cursors", mcpServers: [{ name: "loop", client: sameCursor }, { name: "fresh", client: freshCursor }] });
  const v = await value(s, `return { loop: Object.keys(MCP.loop), fresh: Object.keys(MCP.fresh), text: (await MCP.loop.tool()).content[0].text };`);
  assert.deepEqual(v, { loop: ["$api", "tool"], fresh: ["$api", "aTool"], text: "called" });
  assert.equal(sameCursorCalls, 2);
  assert.equal(freshCursorCalls, 2);
  await s.close();
});

test("resource templates are listed through MCP.<server>.resources.templates() and declared", async () => {
  const server = new McpServer({ name: "notes", version: "1.0.0" });
  server.registerResource("note", new ResourceTemplate("note://{id}", { list: undefined }), { description: "A note by id" }, async (uri, { id }) => ({ contents: [{ uri: uri.href, text: "note " + id }] }));
  const bare = echoServer();
  const s = new CodeModeSession({ sessionId: "templates", mcpServers: [{ name: "notes", client: await connect(server) }, { name: "srv", client: await connect(bare) }] });
  const v = await value(s, `const t = await MCP.notes.resources.templates();
    const uri = t.resourceTemplates[0].uriTemplate.replace("{id}", "7");
    return { t, read: (await MCP.notes.resources.read({ uri })).contents[0].text,
      decl: API.read("mcp/notes.d.ts").content, bare: typeof MCP.srv.resources };`);
  assert.deepEqual(v.t.resourceTemplates.map((t) => [t.uriTemplate, t.name]), [["note://{id}", "note"]]);
  assert.equal(v.read, "note 7");
  assert.match(v.decl, /function templates\(\): Promise<McpResourceTemplatesResult>;/);
  assert.equal(v.bare, "undefined");
  assert.match(s.modelTools()[0].description, /resources\.list\(\)\/templates\(\)\/read/);
  await s.close();
});

test("a real stdio server's resource templates are reachable", async () => {
  const client = new Client({ name: "templates-stdio", version: "1" });
  await client.connect(new StdioClientTransport({ command: BIN + "mcp-server-everything", args: ["stdio"], stderr: "ignore" }));
  try {
    const s = new CodeModeSession({ sessionId: "templates-stdio", mcpServers: [{ name: "everything", client }] });
    const v = await value(s, `return (await MCP.everything.resources.templates()).resourceTemplates.map((t) => t.uriTemplate);`);
    assert.ok(v.includes("demo://resource/dynamic/text/{resourceId}"), JSON.stringify(v));
    await s.close();
  } finally {
    await client.close();
  }
});

test("a tool answers to the server's own name too, and listings show each tool once", async () => {
  const server = new McpServer({ name: "crm", version: "1.0.0" });
  for (const name of ["get_user", "delete", "list-orders"]) {
    server.registerTool(name, { inputSchema: {} }, async () => ({ content: [{ type: "text", text: name }] }));
  }
  const s = new CodeModeSession({ sessionId: "aliases", mcpServers: [{ name: "my-crm", client: await connect(server) }] });
  const v = await value(s, `const texts = [await MCP.myCrm.get_user(), await MCP.myCrm.getUser(), await MCP.myCrm.delete(),
      await MCP.myCrm["list-orders"](), await MCP["my-crm"].listOrders()].map((r) => r.content[0].text);
    return { texts, keys: Object.keys(MCP.myCrm), root: Object.keys(MCP), same: MCP.myCrm.get_user === MCP.myCrm.getUser,
      api: (await MCP.myCrm.$api("get_user")).tools };`);
  assert.deepEqual(v.texts, ["get_user", "get_user", "delete", "list-orders", "list-orders"]);
  assert.deepEqual(v.keys, ["$api", "getUser", "delete2", "listOrders"]);
  assert.deepEqual(v.root, ["$api", "myCrm"]);
  assert.equal(v.same, true);
  assert.deepEqual(v.api, [{ name: "getUser", toolName: "get_user", description: "" }]);
  await s.close();
});

test("collision suffixes do not depend on the order a server lists its tools in", async () => {
  const names = ["read-file", "read_file", "readFile", "Read File"];
  const client = (order) => ({
    listTools: async () => ({ tools: order.map((name) => ({ name })) }),
    callTool: async ({ name }) => ({ content: [{ type: "text", text: name }] }),
  });
  const mapping = async (order) => {
    const s = new CodeModeSession({ sessionId: "order", mcpServers: [{ name: "fs", client: client(order) }] });
    const v = await value(s, `return Object.fromEntries((await MCP.fs.$api()).tools.map((t) => [t.toolName, t.name]));`);
    const called = await value(s, `return (await MCP.fs.readFile()).content[0].text;`);
    await s.close();
    return { v, called };
  };
  const forward = await mapping(names);
  const backward = await mapping([...names].reverse());
  assert.deepEqual(forward, backward);
  // The tool whose name already is an identifier keeps it.
  assert.equal(forward.called, "readFile");
});

test("a server's tools/list_changed refreshes the session's tools, and the gateway's handler still runs", async () => {
  const server = echoServer();
  const client = await connect(server);
  let gatewaySaw = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    gatewaySaw++;
  });
  const s = new CodeModeSession({ sessionId: "list-changed", mcpServers: [{ name: "srv", client }] });
  const other = new CodeModeSession({ sessionId: "list-changed-2", mcpServers: [{ name: "srv", client }] });
  await s.ready();
  await other.ready();
  assert.equal(await value(s, `return typeof MCP.srv.late;`), "undefined");
  server.registerTool("late", { inputSchema: {} }, async () => ({ content: [{ type: "text", text: "late tool" }] }));
  for (const session of [s, other]) {
    await eventually(async () => (await value(session, `return typeof MCP.srv.late;`)) === "function", "the new tool to appear");
  }
  assert.equal(await value(s, `return (await MCP.srv.late()).content[0].text;`), "late tool");
  await eventually(() => gatewaySaw > 0, "the gateway's own handler to run");
  await s.close();
  await other.close();
  await client.close();
});

test("a session created after the gateway replaced the list_changed handler chains to the new one", async () => {
  const server = echoServer();
  const client = await connect(server);
  const first = new CodeModeSession({ sessionId: "rechain-1", mcpServers: [{ name: "srv", client }] });
  let gatewaySaw = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    gatewaySaw++;
  });
  const second = new CodeModeSession({ sessionId: "rechain-2", mcpServers: [{ name: "srv", client }] });
  await first.ready();
  await second.ready();
  server.registerTool("late", { inputSchema: {} }, async () => ({ content: [] }));
  for (const session of [first, second]) {
    await eventually(async () => (await value(session, `return typeof MCP.srv.late;`)) === "function", "the new tool to appear");
  }
  await eventually(() => gatewaySaw > 0, "the gateway's handler to run");
  await first.close();
  await second.close();
  await client.close();
});

test("a list_changed refresh that fails keeps the server's tools", async () => {
  const server = echoServer();
  const client = await connect(server);
  const s = new CodeModeSession({ sessionId: "list-changed-fails", mcpServers: [{ name: "srv", client }] });
  await s.ready();
  let failed = 0;
  client.listTools = async () => {
    failed++;
    throw new Error("server went away for a moment");
  };
  server.registerTool("late", { inputSchema: {} }, async () => ({ content: [] }));
  await eventually(() => failed > 0, "the refresh to list the tools");
  // The failed listing settles in microtasks; this exec starts after them.
  assert.equal(await value(s, `return (await MCP.srv.echo({ message: "still here" })).content[0].text;`), "still here");
  assert.doesNotMatch(s.modelTools()[0].description, /Unavailable/);
  await s.close();
  await client.close();
});

test("tools a real stdio server registers after connecting appear without refreshMcp()", async () => {
  // server-everything registers get-roots-list once it knows the client supports roots,
  // after the handshake, and announces it with tools/list_changed.
  const client = new Client({ name: "roots-client", version: "1" }, { capabilities: { roots: {} } });
  await client.connect(new StdioClientTransport({ command: BIN + "mcp-server-everything", args: ["stdio"], stderr: "ignore" }));
  try {
    const s = new CodeModeSession({ sessionId: "everything-late", mcpServers: [{ name: "everything", client }] });
    await eventually(async () => (await value(s, `return typeof MCP.everything.getRootsList;`)) === "function", "get-roots-list to appear");
    assert.equal(await value(s, `return typeof MCP.everything["get-roots-list"];`), "function");
    await s.close();
  } finally {
    await client.close();
  }
});

test("an SDK Client type-checks as an mcpServers client", () => {
  // The README tells gateways to pass a connected SDK Client; index.d.ts must accept one.
  const ts = createRequire(import.meta.url)("typescript");
  const file = path.join(new URL("..", import.meta.url).pathname, "__sdk_client_check.ts");
  const text = `import type { McpServerDefinition } from "./index";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
export const server: McpServerDefinition = { name: "crm", client: new Client({ name: "gateway", version: "1" }) };
`;
  const options = { strict: true, noEmit: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022 };
  const host = ts.createCompilerHost(options);
  const fromDisk = host.getSourceFile;
  host.getSourceFile = (name, language, ...rest) => (name === file ? ts.createSourceFile(name, text, language) : fromDisk(name, language, ...rest));
  host.fileExists = (name) => name === file || ts.sys.fileExists(name);
  host.readFile = (name) => (name === file ? text : ts.sys.readFile(name));
  const diagnostics = ts.getPreEmitDiagnostics(ts.createProgram([file], options, host));
  assert.deepEqual(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, " ").slice(0, 300)), []);
});

test("execs made while MCP tools load start once they are; one aborted meanwhile is answered aborted", async () => {
  const client = await connect(echoServer());
  const answers = [];
  const gated = {
    listTools: (params) => new Promise((resolve) => answers.push(() => resolve(client.listTools(params)))),
    callTool: (...args) => client.callTool(...args),
  };
  const events = [];
  const s = new CodeModeSession({ sessionId: "exec-gated", mcpServers: [{ name: "srv", client: gated }], onEvent: (e) => events.push(e) });
  const controller = new AbortController();
  const aborted = s.exec({ code: "return 1" }, { signal: controller.signal });
  const kept = s.exec({ code: 'return (await MCP.srv.echo({ message: "y" })).content[0].text' });
  await eventually(() => answers.length > 0, "the session to list the server's tools");
  controller.abort();
  for (const answer of answers.splice(0)) answer();
  const [a, k] = await Promise.all([aborted, kept]);
  assert.equal(a.status, "failed");
  assert.equal(a.code, "aborted");
  assert.equal(k.status, "completed", JSON.stringify(k));
  assert.equal(k.value, "y");
  const statuses = events.filter((e) => e.type === "run_status").map((e) => e.status);
  assert.deepEqual(statuses, ["running", "completed"]);
  await s.close();
  await client.close();
});

test("calling a tool an MCP server lacks names the server, the tool and the nearest tools", async () => {
  const server = echoServer();
  server.registerTool("echo_twice", { inputSchema: { message: z.string() } }, async ({ message }) => ({ content: [{ type: "text", text: message + message }] }));
  const s = new CodeModeSession({ sessionId: "missing-tool", mcpServers: [{ name: "srv", client: await connect(server) }] });
  const r = await s.exec({ code: "const a = 1;\nreturn await MCP.srv.ecko({});" });
  assert.equal(r.status, "failed");
  assert.equal(r.code, "guest_error");
  assert.equal(r.error.split("\n")[0],
    'TypeError: MCP.srv.ecko is not a function: MCP server "srv" has no tool "ecko"; did you mean one of MCP.srv.echo, MCP.srv.echoTwice? (API.list("mcp/srv") lists its tools)');
  assert.match(r.error, /user\.js:2:/);
  // typeof still answers for a tool the server lacks.
  assert.equal(await value(s, "return typeof MCP.srv.ecko;"), "undefined");
  // Another "not a function" on the same line is left as QuickJS says it.
  const other = await s.exec({ code: "const f = 1; await MCP.srv.echo({ message: 'x' }); f();" });
  assert.equal(other.error.split("\n")[0], "TypeError: not a function");
  await s.close();
});
