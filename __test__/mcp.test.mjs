// The MCP namespace and host surfaces against a real MCP server from the SDK (in memory),
// plugin namespaces, nodes, skills and Swarm hosts, all driven from guest code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema, CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { z } from "zod";
import { createRequire } from "node:module";

const { CodeModeSession } = createRequire(import.meta.url)("../index.js");

async function docsServer() {
  const server = new McpServer({ name: "docs", version: "1.0.0" });
  server.registerTool("read_file", { description: "Read a file */ safely", inputSchema: { path: z.string().describe("File path"), encoding: z.enum(["utf8", "base64"]).default("utf8") } },
    async ({ path, encoding }) => ({ content: [{ type: "text", text: `${path}:${encoding}`, annotations: { audience: ["user"] }, _meta: { block: 1 } }], _meta: { secret: "top" } }));
  for (const name of ["delete", "enum", "prototype"]) {
    server.registerTool(name, { description: name, inputSchema: {} }, async () => ({ content: [{ type: "text", text: name }] }));
  }
  server.registerTool("fail", { description: "Always fails", inputSchema: {} }, async () => ({ content: [{ type: "text", text: "nope" }], isError: true }));
  server.registerTool("stats", { description: "Structured", inputSchema: { n: z.number().int() }, outputSchema: { doubled: z.number() } },
    async ({ n }) => ({ content: [{ type: "text", text: String(n * 2) }], structuredContent: { doubled: n * 2 } }));
  server.registerResource("memo", "memo://one", { description: "A memo" }, async (uri) => ({ contents: [{ uri: uri.href, text: "remember" }] }));
  server.registerPrompt("brief", { description: "Brief", argsSchema: { topic: z.string() } }, ({ topic }) => ({ messages: [{ role: "user", content: { type: "text", text: `Brief on ${topic}` } }] }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(b);
  return client;
}

async function session(extra = {}) {
  return new CodeModeSession({ sessionId: "mcp-" + Math.random(), mcpServers: [{ name: "docs", client: await docsServer() }], ...extra });
}

async function run(s, code) {
  const r = await s.exec({ code });
  assert.equal(r.status, "completed", JSON.stringify(r));
  return r.value;
}

test("an MCP result is never judged by a host tool's outputSchema", async () => {
  // Surface calls and host tools are numbered in separate tables: an MCP call must not be
  // checked against the host tool that happens to share its number.
  const strict = {
    name: "strict_first",
    parameters: { type: "object" },
    outputSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false },
    execute: async () => ({ ok: true }),
  };
  const s = await session({ tools: [strict] });
  const v = await run(s, `await strict_first({}); const r = await MCP.docs.readFile({ path: "b" }); return r.content[0].text;`);
  assert.equal(v, "b:utf8");
  await s.close();
});

test("MCP tools are called with defaults and project content, annotations and block _meta", async () => {
  const s = await session();
  const v = await run(s, `return await MCP.docs.readFile({ path: "a.txt" });`);
  assert.deepEqual(v, { content: [{ type: "text", text: "a.txt:utf8", annotations: { audience: ["user"] }, _meta: { block: 1 } }], isError: false });
  await s.close();
});

test("names that need normalization get safe identifiers", async () => {
  const s = await session();
  const v = await run(s, `return [await MCP.docs.delete2(), await MCP.docs.enum2(), await MCP.docs.prototype2()].map((r) => r.content[0].text);`);
  assert.deepEqual(v, ["delete", "enum", "prototype"]);
  await s.close();
});

test("missing required arguments and non-object arguments are catchable errors", async () => {
  const s = await session();
  const v = await run(s, `const out = [];
    try { await MCP.docs.readFile({}); } catch (e) { out.push(e.message); }
    try { await MCP.docs.readFile("a"); } catch (e) { out.push(e.message); }
    return out;`);
  assert.deepEqual(v, ["Missing required MCP namespace argument(s): path", "MCP namespace tools accept one object argument."]);
  await s.close();
});

test("a refused MCP call, left uncaught, names the line that made it (both isolation modes)", async () => {
  const s = await session();
  const r = await s.exec({ code: `const a = 1;\nawait MCP.docs.readFile({});` });
  assert.equal(r.status, "failed");
  assert.equal(r.code, "guest_error");
  assert.match(r.error, /^Error: Missing required MCP namespace argument\(s\): path\n\s+at .*user\.js:2:/);
  await s.close();
});

test("the guest refuses a missing argument only where the host would too", async () => {
  // The guest checks required arguments itself so the error is thrown at the call; it
  // must never refuse what the host accepts (accessors, toJSON), and the host's own check
  // still answers for what the guest leaves to it.
  const s = await session();
  const v = await run(s, `const out = [];
    out.push((await MCP.docs.readFile({ get path() { return "g.txt"; } })).content[0].text);
    out.push((await MCP.docs.readFile({ toJSON() { return { path: "j.txt" }; } })).content[0].text);
    for (const input of [{ path: undefined }, { toJSON() { return {}; } }]) {
      try { await MCP.docs.readFile(input); } catch (e) { out.push(e.message); }
    }
    try { await MCP.docs.stats(); } catch (e) { out.push(e.message); }
    return out;`);
  assert.deepEqual(v, [
    "g.txt:utf8",
    "j.txt:utf8",
    "Missing required MCP namespace argument(s): path",
    "Missing required MCP namespace argument(s): path",
    "Missing required MCP namespace argument(s): n",
  ]);
  await s.close();
});

test("isError resolves and structuredContent is kept", async () => {
  const s = await session();
  const v = await run(s, `return [await MCP.docs.fail(), await MCP.docs.stats({ n: 4 })];`);
  assert.equal(v[0].isError, true);
  assert.deepEqual(v[1].structuredContent, { doubled: 8 });
  await s.close();
});

test("resources and prompts return the native MCP shapes", async () => {
  const s = await session();
  const v = await run(s, `const list = await MCP.docs.resources.list();
    const read = await MCP.docs.resources.read({ uri: "memo://one" });
    const prompt = await MCP.docs.prompts.get({ name: "brief", arguments: { topic: "release" } });
    return { uris: list.resources.map((r) => r.uri), text: read.contents[0].text, msg: prompt.messages[0].content.text };`);
  assert.deepEqual(v, { uris: ["memo://one"], text: "remember", msg: "Brief on release" });
  await s.close();
});

test("MCP tools stay out of globals, the catalog and the quick index, and count in telemetry", async () => {
  const s = await session({ tools: [{ name: "echo", execute: async (x) => x }] });
  const v = await run(s, `return { global: typeof readFile, all: catalog.all().map((h) => h.callableName), found: (await catalog.search("read file")).length };`);
  assert.deepEqual(v, { global: "undefined", all: ["echo"], found: 0 });
  assert.equal(s.telemetry().sources.mcp, 6);
  const description = s.modelTools()[0].description;
  assert.match(description, /API\.list/);
  assert.match(description, /MCP\.docs/);
  assert.doesNotMatch(description, /readFile/);
  await s.close();
});

test("declaration files render schemas, escape comment ends and report exact bytes", async () => {
  const s = await session();
  const v = await run(s, `const files = (await API.list("mcp")).files; const d = await API.read("mcp/docs.d.ts"); return { files, d };`);
  assert.deepEqual(v.files.map((f) => f.path), ["mcp/index.d.ts", "mcp/docs.d.ts"]);
  assert.equal(v.d.bytes, Buffer.byteLength(v.d.content));
  assert.match(v.d.content, /declare namespace MCP\.docs \{/);
  assert.match(v.d.content, /Read a file \*\\\/ safely/);
  assert.match(v.d.content, /@param input\.path File path/);
  assert.match(v.d.content, /function readFile\(input: \{ path: string; encoding\?: "utf8" \| "base64"/);
  assert.match(v.d.content, /function delete2\(input\?: /);
  await s.close();
});

// The low-level SDK `Server` hands out raw JSON Schemas, so the declaration tests control
// every construct exactly (registerTool would go through zod's own JSON Schema output).
const LAB_TOOLS = [
  {
    name: "find_items",
    // Non-ASCII text makes `bytes` (UTF-8) differ from the string length.
    description: "Finds items — fast.\nSecond line ends */ here ✓",
    inputSchema: {
      type: "object",
      required: ["query"],
      additionalProperties: false,
      properties: {
        query: { type: "string", description: "Suchtext, z. B. „café“" },
        target: { description: "An id */ or a path", anyOf: [{ type: "string" }, { type: "object", required: ["id"], additionalProperties: false, properties: { id: { type: "integer", minimum: 1 } } }] },
        limit: { oneOf: [{ type: "integer", maximum: 100 }, { type: "null" }] },
        mode: { enum: ["fast", "deep", 3, null] },
        grid: { type: "array", items: { type: "array", items: { type: "number" } } },
        meta: { type: "object", properties: { tag: { type: "string" } } },
        point: { type: "object", required: ["x", "y"], additionalProperties: false, properties: { x: { type: "number" }, y: { type: "number" } } },
      },
    },
  },
  { name: "ping", inputSchema: { type: "object", required: [] } },
  { name: "closed_empty", description: "Takes nothing.", inputSchema: { type: "object", properties: {}, additionalProperties: false } },
];

async function labClient(tools = LAB_TOOLS) {
  const server = new Server({ name: "lab", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => ({ content: [{ type: "text", text: `${params.name} ${JSON.stringify(params.arguments ?? {})}` }] }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(b);
  return client;
}

async function labSession(extraServers = []) {
  return new CodeModeSession({ sessionId: "lab-" + Math.random(), mcpServers: [{ name: "schema-lab", client: await labClient() }, ...extraServers] });
}

async function readLab(s) {
  return (await run(s, `return API.read("mcp/schemaLab.d.ts");`)).content;
}

test("a declaration file types anyOf, oneOf, enum, nested arrays and closed and open objects", async () => {
  const s = await labSession();
  const text = await readLab(s);
  // Required first, then optional by name; anyOf/oneOf become unions, enum a literal
  // union, integers keep their bounds as comments, a closed object has no index
  // signature and an open one gets `[key: string]: unknown` (a .d.ts must stay valid
  // TypeScript, so not the hint's `; ...`).
  const expected =
    "  function findItems(input: { query: string; grid?: Array<Array<number>>; " +
    "limit?: number /* integer, <= 100 */ | null; meta?: { tag?: string; [key: string]: unknown }; " +
    'mode?: "fast" | "deep" | 3 | null; point?: { x: number; y: number }; ' +
    "target?: string | { id: number /* integer, >= 1 */ } }): Promise<McpToolResult>;\n";
  assert.ok(text.includes(expected), text);
  assert.ok(text.startsWith("interface McpToolResult { content: Array<{ type: string; [key: string]: unknown }>; structuredContent?: unknown; isError: boolean }\n"), text);
  assert.match(text, /^declare namespace MCP\.schemaLab \{$/m);
  assert.equal(text.match(/: Promise<McpToolResult>;$/gm).length, LAB_TOOLS.length);
  await s.close();
});

test("the input argument is optional exactly when the schema requires nothing", async () => {
  const s = await labSession();
  const text = await readLab(s);
  assert.match(text, /^ {2}function findItems\(input: \{/m);
  // `required: []` and no `required` at all both leave the argument optional.
  assert.ok(text.includes("  function ping(input?: { [key: string]: unknown }): Promise<McpToolResult>;\n"), text);
  assert.ok(text.includes("  function closedEmpty(input?: {}): Promise<McpToolResult>;\n"), text);
  await s.close();
});

test("doc comments keep each description line, escape comment ends and list @param lines", async () => {
  const s = await labSession();
  const text = await readLab(s);
  const doc = text.slice(text.lastIndexOf("  /**\n", text.indexOf("function findItems")), text.indexOf("  function findItems"));
  const lines = doc.split("\n").filter(Boolean);
  assert.equal(lines[0], "  /**");
  assert.equal(lines.at(-1), "   */");
  assert.deepEqual(
    lines.slice(1, 7),
    ["   * Finds items — fast.", "   * Second line ends *\\/ here ✓", '   * MCP tool "find_items".', "   *", "   * @param input.query Suchtext, z. B. „café“", "   * @param input.target An id *\\/ or a path"],
  );
  // Only `target` and `query` have descriptions; other properties get no @param line.
  assert.equal(text.match(/@param /g).length, 2);
  // Every comment opened is closed exactly once: no description ended one early.
  assert.equal(text.match(/\*\//g).length, text.match(/\/\*/g).length);
  assert.ok(text.includes('  /**\n   * MCP tool "ping".\n   */\n  function ping('), text);
  assert.ok(text.includes('  /**\n   * Takes nothing.\n   * MCP tool "closed_empty".\n   */\n  function closedEmpty('), text);
  await s.close();
});

test("API.list and API.read give bytes equal to the UTF-8 length of non-ASCII declarations", async () => {
  const s = await labSession();
  const v = await run(s, `const listed = API.list("mcp/"); const file = API.read("/mcp/schemaLab.d.ts"); return { listed, file };`);
  const { listed, file } = v;
  assert.equal(file.path, "mcp/schemaLab.d.ts");
  assert.equal(file.description, 'Declarations of MCP.schemaLab (MCP server "schema-lab", 3 tools)');
  assert.equal(file.bytes, Buffer.byteLength(file.content, "utf8"));
  // The multi-byte characters make the difference observable.
  assert.ok(file.bytes > file.content.length, `${file.bytes} vs ${file.content.length}`);
  const entry = listed.files.find((f) => f.path === "mcp/schemaLab.d.ts");
  assert.deepEqual(entry, { path: file.path, description: file.description, bytes: file.bytes });
  await s.close();
});

test("mcp/index.d.ts references every server file and declares every server namespace", async () => {
  const s = await labSession([{ name: "docs", client: await docsServer() }]);
  const v = await run(s, `return { paths: API.list().files.map((f) => f.path), index: API.read("mcp/index.d.ts") };`);
  assert.deepEqual(v.paths, ["mcp/index.d.ts", "mcp/schemaLab.d.ts", "mcp/docs.d.ts"]);
  const text = v.index.content;
  assert.equal(v.index.bytes, Buffer.byteLength(text, "utf8"));
  assert.deepEqual(text.match(/^\/\/\/ <reference path="[^"]+" \/>$/gm), ['/// <reference path="./schemaLab.d.ts" />', '/// <reference path="./docs.d.ts" />']);
  assert.ok(text.includes('  /** MCP server "schema-lab": 3 tools. */\n  namespace schemaLab {}\n'), text);
  assert.ok(text.includes('  /** MCP server "docs": 6 tools. */\n  namespace docs {}\n'), text);
  await s.close();
});

test("the MCP.<server>.$api(tool) header carries the same declaration as the file", async () => {
  const s = await labSession();
  const v = await run(s, `return { file: API.read("mcp/schemaLab.d.ts").content, api: (await MCP.schemaLab.$api("findItems")).header };`);
  const declaration = (text) => text.slice(text.indexOf("  /**\n   * Finds items"), text.indexOf("): Promise<McpToolResult>;", text.indexOf("function findItems")));
  assert.ok(declaration(v.file).includes("function findItems(input: { query: string; "), v.file);
  assert.equal(declaration(v.api), declaration(v.file));
  assert.doesNotMatch(v.api, /function ping\(/);
  await s.close();
});

// TypeScript itself (a devDependency) checks the declaration files the way an editor that
// loads `mcp/index.d.ts` would see them; string assertions alone cannot show that.
const ts = createRequire(import.meta.url)("typescript");

function typeErrors(files) {
  const options = { noEmit: true, strict: true, lib: ["lib.es2022.d.ts"], types: [] };
  const host = ts.createCompilerHost(options);
  const virtual = new Map(Object.entries(files).map(([path, text]) => [`/api/${path}`, text]));
  const fromDisk = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => (virtual.has(name) ? ts.createSourceFile(name, virtual.get(name), language) : fromDisk(name, language, ...rest));
  host.fileExists = (name) => virtual.has(name) || ts.sys.fileExists(name);
  host.readFile = (name) => virtual.get(name) ?? ts.sys.readFile(name);
  const program = ts.createProgram(["/api/mcp/index.d.ts"], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
}

async function apiFiles(s) {
  return run(s, `return Object.fromEntries(API.list("mcp/").files.map((f) => [f.path, API.read(f.path).content]));`);
}

test("the index and one server's declaration file are valid TypeScript", async () => {
  const s = await labSession();
  const files = await apiFiles(s);
  assert.deepEqual(Object.keys(files), ["mcp/index.d.ts", "mcp/schemaLab.d.ts"]);
  assert.deepEqual(typeErrors(files), []);
  await s.close();
});

// Every server file declares the result interfaces so it reads on its own; together they merge.
test("the index and two servers' declaration files type-check together", async () => {
  const s = await labSession([{ name: "docs", client: await docsServer() }]);
  const files = await apiFiles(s);
  assert.deepEqual(Object.keys(files), ["mcp/index.d.ts", "mcp/schemaLab.d.ts", "mcp/docs.d.ts"]);
  assert.deepEqual(typeErrors(files), []);
  await s.close();
});

// JSDoc gives a tag every line up to the next tag: nothing may follow the @param lines.
test("JSDoc gives each @param only its own description", async () => {
  const s = await labSession();
  const source = ts.createSourceFile("lab.d.ts", await readLab(s), ts.ScriptTarget.ES2022, true);
  let tags;
  const visit = (node) => {
    if (ts.isFunctionDeclaration(node) && node.name?.text === "findItems") tags = ts.getJSDocTags(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  assert.deepEqual(
    tags.map((t) => [t.tagName.text, t.name?.getText(), ts.getTextOfJSDocComment(t.comment)]),
    [["param", "input.query", "Suchtext, z. B. „café“"], ["param", "input.target", "An id *\\/ or a path"]],
  );
  await s.close();
});

test("$api gives headers and schemas without calling a tool, and refuses prototype segments", async () => {
  let calls = 0;
  const s = await session({ beforeToolCall: () => { calls++; } });
  const v = await run(s, `const root = await MCP.$api(); const one = await MCP.docs.$api("readFile", { schema: true });
    let bad; try { await MCP.docs.$api("__proto__"); } catch (e) { bad = e.message; }
    return { servers: root.servers, tools: one.tools, schema: Object.keys(one.schemas), bad };`);
  assert.deepEqual(v.servers, [{ identifier: "docs", serverName: "docs", toolCount: 6 }]);
  assert.deepEqual(v.tools.map((t) => t.toolName), ["read_file"]);
  assert.deepEqual(v.schema, ["readFile"]);
  assert.equal(v.bad, "Invalid code mode namespace path segment: __proto__");
  assert.equal(calls, 0);
  await s.close();
});

test("a server whose listTools fails is left out and named unavailable", async () => {
  const broken = { listTools: async () => { throw new Error("connection refused"); }, callTool: async () => ({}) };
  const s = new CodeModeSession({ sessionId: "broken", mcpServers: [{ name: "down", client: broken }, { name: "docs", client: await docsServer() }] });
  await s.ready();
  assert.match(s.modelTools()[0].description, /Unavailable now \(their tools failed to load\): down\./);
  const v = await run(s, `return Object.keys(MCP);`);
  assert.deepEqual(v, ["$api", "docs"]);
  // A call on the server that is down fails where it is made, catchably, naming the server.
  const caught = await run(s, `const errors = [];
    for (const call of [() => MCP.down.anyTool({}), () => MCP.down.search()]) {
      try { await call(); } catch (e) { errors.push(e instanceof Error ? e.message : "not an Error"); }
    }
    const awaited = await MCP.down;
    return { errors, awaited: typeof awaited, then: typeof MCP.down.then, docs: typeof MCP.docs.readFile };`);
  assert.deepEqual(caught, {
    errors: ['MCP server "down" is unavailable: connection refused', 'MCP server "down" is unavailable: connection refused'],
    awaited: "object",
    then: "undefined",
    docs: "function",
  });
  const uncaught = await s.exec({ code: `return await MCP.down.readFile({ path: "a" });` });
  assert.equal(uncaught.status, "failed");
  assert.equal(uncaught.code, "guest_error");
  assert.match(uncaught.error, /^Error: MCP server "down" is unavailable: connection refused\n    at <anonymous> \(user\.js:1:/);
  await s.close();
});

test("namespace definitions are validated in Rust with messages naming the path", () => {
  const refuses = (namespaces, message) =>
    assert.throws(() => new CodeModeSession({ sessionId: "ns", namespaces }), (e) => e instanceof TypeError && e.code === "invalid_input" && e.message === message);
  let deep = { f() {} };
  for (let i = 0; i < 8; i++) deep = { inner: deep };
  refuses([{ globalName: "D", scope: deep }], "namespaces[0].scope" + ".inner".repeat(8) + " is nested more than 8 levels deep.");
  const wide = Object.fromEntries(Array.from({ length: 2001 }, (_, i) => ["f" + i, () => i]));
  refuses([{ globalName: "W", scope: wide }], "namespaces[0].scope has more than 2000 functions.");
  refuses({}, "namespaces must be an array of namespace definitions.");
  refuses([null], "namespaces[0] must be an object.");
  refuses([{ globalName: 1, scope: {} }], "namespaces[0].globalName must be a string.");
  refuses([{ globalName: "N", scope: [] }], "namespaces[0].scope must be an object whose leaves are functions.");
  refuses([{ globalName: "N", scope: {}, description: 1 }], "namespaces[0].description must be a string.");
  refuses([{ globalName: "N", scope: {}, prompt: {} }], "namespaces[0].prompt must be a string.");
});

test("namespaces are validated and callable by path and through namespaces", async () => {
  for (const [globalName, message] of [["my-repo", /must be a JavaScript identifier/], ["class", /reserved word/], ["MCP", /runtime global/], ["Math", /built-in/]]) {
    assert.throws(() => new CodeModeSession({ sessionId: "ns", namespaces: [{ globalName, scope: { f: async () => 1 } }] }), (e) => e.code === "invalid_input" && message.test(e.message));
  }
  assert.throws(() => new CodeModeSession({ sessionId: "ns", namespaces: [{ globalName: "A", scope: {} }, { globalName: "A", scope: {} }] }), /used by more than one namespace/);
  const seen = [];
  const s = new CodeModeSession({ sessionId: "ns", namespaces: [{ globalName: "Repo", prompt: "Use Repo for issues.", scope: { issues: { list: async (args, ctx) => { seen.push(typeof ctx.signal); return { args }; } } } }] });
  const v = await run(s, `return [await Repo.issues.list({ q: 1 }), await namespaces.Repo.issues.list({ q: 2 })];`);
  assert.deepEqual(v, [{ args: { q: 1 } }, { args: { q: 2 } }]);
  assert.deepEqual(seen, ["object", "object"]);
  assert.match(s.modelTools()[0].description, /Use Repo for issues\./);
  const restart = await s.exec({ code: `return await Repo.issues.list({});`, restartSafe: true });
  assert.equal(restart.status, "failed");
  assert.match(restart.error, /restart-safe code mode cannot call namespace tools\./);
  await s.close();
});

test("nodes resolve ids before names, say every documented message, and never run shell commands", async () => {
  const invoked = [];
  const nodes = {
    list: () => [{ id: "n1", name: "laptop", connected: true, commands: ["device.status", "fs.listDir"] }, { id: "laptop", name: "other", connected: true, commands: [] }],
    invoke: (id, command, params) => { invoked.push([id, command, params]); return { ok: true }; },
  };
  const s = new CodeModeSession({ sessionId: "nodes", nodes });
  const v = await run(s, `const out = {};
    out.byId = (await nodes.get("laptop")).name;
    const n1 = await nodes.get("n1");
    out.keys = Object.keys(n1).sort();
    out.status = await n1.invoke("device.status", { v: 1 });
    out.dir = await n1.listDir("/tmp");
    out.exec = "exec" in n1;
    try { await nodes.get(""); } catch (e) { out.empty = e.message; }
    try { await nodes.get("ghost"); } catch (e) { out.ghost = e.message; }
    try { await n1.invoke("system.run", {}); } catch (e) { out.shell = e.message; }
    return out;`);
  assert.equal(v.byId, "other");
  assert.deepEqual(v.keys, ["id", "invoke", "listDir", "name"]);
  assert.deepEqual(v.status, { ok: true });
  assert.equal(v.exec, false);
  assert.equal(v.empty, "nodes.get id or name must be a non-empty string.");
  assert.equal(v.ghost, 'node "ghost" is not paired (paired node ids: n1, laptop)');
  assert.match(v.shell, /reserved for the exec tool/);
  assert.deepEqual(invoked, [["n1", "device.status", { v: 1 }], ["n1", "fs.listDir", { path: "/tmp" }]]);
  await s.close();
  const none = new CodeModeSession({ sessionId: "nodes0", nodes: { list: () => [], invoke: () => null } });
  const r = await none.exec({ code: `try { await nodes.get("x"); } catch (e) { return e.message; }` });
  assert.equal(r.value, "no paired nodes");
  await none.close();
});

test("skills and Swarm reach their hosts, and agents.d.ts appears only with Swarm", async () => {
  const logs = [];
  const s = new CodeModeSession({
    sessionId: "swarm",
    skills: { list: () => [{ name: "deploy" }], read: (name, rel) => `${name}:${rel ?? "SKILL.md"}` },
    swarm: { run: (spec) => ({ done: spec.task }), phase: (t) => { logs.push("phase " + t); }, log: (m) => { logs.push("log " + m); } },
  });
  const v = await run(s, `await phase("one"); await log("hi");
    let escape; try { await skills.read("deploy", "../x"); } catch (e) { escape = e.message; }
    return { list: await skills.list(), read: await skills.read("deploy"), run: await agents.run({ task: "t" }), file: (await API.read("agents.d.ts")).path, escape };`);
  assert.deepEqual(v.list, [{ name: "deploy" }]);
  assert.equal(v.read, "deploy:SKILL.md");
  assert.deepEqual(v.run, { done: "t" });
  assert.equal(v.file, "agents.d.ts");
  assert.match(v.escape, /must stay inside the skill/);
  assert.deepEqual(logs, ["phase one", "log hi"]);
  await s.close();
  const plain = new CodeModeSession({ sessionId: "plain" });
  const r = await plain.exec({ code: `return [typeof agents, typeof MCP, typeof nodes];` });
  assert.deepEqual(r.value, ["undefined", "undefined", "undefined"]);
  await plain.close();
});

test("an MCP server in a child process over stdio is reachable from guest code", async () => {
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const transport = new StdioClientTransport({ command: process.execPath, args: [new URL("./fixtures/mcp-stdio-server.mjs", import.meta.url).pathname] });
  const client = new Client({ name: "stdio-test", version: "1" });
  await client.connect(transport);
  try {
    const s = new CodeModeSession({ sessionId: "stdio", mcpServers: [{ name: "stdio-files", client }] });
    const v = await run(s, `return (await MCP.stdioFiles.readFile({ path: "x" })).content[0].text;`);
    const [path, limit, pid] = v.split(":");
    assert.equal(path, "x");
    assert.equal(limit, "10");
    assert.notEqual(Number(pid), process.pid);
    await s.close();
  } finally {
    await client.close();
  }
});

test("resources and prompts are offered only by servers that declare those capabilities", async () => {
  const s = await labSession([{ name: "docs", client: await docsServer() }]);
  const v = await run(s, `return {
    lab: API.read("mcp/schemaLab.d.ts").content, docs: API.read("mcp/docs.d.ts").content,
    labResources: typeof MCP.schemaLab.resources, docsResources: typeof MCP.docs.resources.list };`);
  assert.ok(!v.lab.includes("namespace resources") && !v.lab.includes("namespace prompts"), v.lab);
  assert.ok(v.docs.includes("namespace resources") && v.docs.includes("namespace prompts"), v.docs);
  assert.equal(v.labResources, "undefined");
  assert.equal(v.docsResources, "function");
  await s.close();
});

test("an exec started while MCP tools load keeps its call options: resultBudgetChars fits and a bad one is refused", async () => {
  // No ready(): both calls are issued while the session is still listing the server's tools.
  const s = await session();
  const [fitted, refused] = await Promise.all([
    s.exec({ code: 'return (await MCP.docs.readFile({ path: "x".repeat(20000) })).content[0].text' }, { resultBudgetChars: 2000 }),
    s.exec({ code: "return 1" }, { resultBudgetChars: 0 }),
  ]);
  assert.equal(fitted.status, "completed", JSON.stringify(fitted).slice(0, 300));
  assert.ok(JSON.stringify(fitted).length <= 2000, String(JSON.stringify(fitted).length));
  assert.equal(fitted.value.truncated, true);
  assert.equal(refused.status, "failed");
  assert.equal(refused.code, "invalid_input");
  assert.equal(refused.error, "resultBudgetChars must be a positive integer.");
  await s.close();
});
