// Every usage the model-facing `exec` description shows runs, in a cell, as the description
// says it does: each row names the words the description must contain and a program that
// uses them that way. A sentence the model reads that is not true fails here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { CodeModeSession, connectInMemory } from "./_helpers.mjs";

async function docsClient() {
  const server = new McpServer({ name: "docs", version: "1.0.0" });
  server.registerTool("read_file", { description: "Read a file", inputSchema: { path: z.string() } }, async ({ path }) => ({
    content: [{ type: "text", text: `read ${path}` }],
  }));
  server.registerTool("fail", { description: "Always fails", inputSchema: {} }, async () => ({ content: [{ type: "text", text: "nope" }], isError: true }));
  server.registerResource("memo", "memo://one", { description: "A memo" }, async (uri) => ({ contents: [{ uri: uri.href, text: "remember" }] }));
  server.registerResource("page", new ResourceTemplate("page://{n}", { list: undefined }), { description: "Pages" }, async (uri) => ({ contents: [{ uri: uri.href, text: "a page" }] }));
  server.registerPrompt("brief", { description: "Brief", argsSchema: { topic: z.string() } }, ({ topic }) => ({ messages: [{ role: "user", content: { type: "text", text: `Brief on ${topic}` } }] }));
  return connectInMemory(server);
}

const tools = [
  {
    name: "tickets_search",
    description: "Search tickets",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    execute: async ({ query }) => [{ id: 1, title: `about ${query}` }],
  },
  {
    name: "tickets_close",
    description: "Close a ticket",
    parameters: { type: "object", properties: { id: { type: "number" } }, required: ["id"] },
    execute: async () => {
      const error = new Error("ticket is locked");
      error.code = "locked";
      throw error;
    },
  },
];

/** [words the description shows, a program using them, what the program must return]. */
const usages = [
  ["`const r = await tool_name({ ...input })`", "const r = await tickets_search({ query: 'vpn' }); return r[0].title;", "about vpn"],
  ["`Promise.all([...])`", "const [a, b] = await Promise.all([tickets_search({ query: 'a' }), tickets_search({ query: 'b' })]); return a[0].title + b[0].title;", "about aabout b"],
  ["`await catalog.search(query, { limit })` returns callable tool functions", "const [fn] = await catalog.search('search tickets', { limit: 1 }); return (await fn({ query: 'x' }))[0].id;", 1],
  ["`await fn.describe()` gives the full schema", "const [fn] = await catalog.search('close ticket', { limit: 1 }); const d = await fn.describe(); return typeof d === 'object' && d !== null && JSON.stringify(d).includes('id');", true],
  ["`text(value)` and `json(value)` add output; `console.log` works too", "text('t'); json({ j: 1 }); console.log('c'); return 'ok';", "ok"],
  ["`setTimeout`/`clearTimeout` are available", "await new Promise((r) => setTimeout(r, 1)); const h = setTimeout(() => {}, 1000); clearTimeout(h); return 'timed';", "timed"],
  ["A failed tool call throws a catchable Error (`message`, `code`, `effectStatus`)", "try { await tickets_close({ id: 1 }); return 'no'; } catch (e) { return [e instanceof Error, typeof e.message, typeof e.code, typeof e.effectStatus]; }", [true, "string", "string", "string"]],
  ["call `await MCP.<server>.<tool>({ ...input })` with one object argument; results are `{ content, structuredContent?, isError }` and `isError: true` does not throw", "const r = await MCP.docs.read_file({ path: 'a' }); const f = await MCP.docs.fail({}); return [r.content[0].text, r.isError === true, f.isError];", ["read a", false, true]],
  ["`API.list(\"mcp\").files` lists declaration files", "return API.list('mcp').files.map((f) => f.path).includes('mcp/docs.d.ts');", true],
  ["`API.read(\"mcp/<server>.d.ts\").content` is the server's tools as TypeScript-style signatures (`API.read` returns `{ path, description, bytes, content }`)", "const f = API.read('mcp/docs.d.ts'); return [Object.keys(f).sort().join(), f.content.includes('read_file'), typeof f.content.slice];", ["bytes,content,description,path", true, "function"]],
  ["`MCP.<server>.resources.list()/templates()/read({ uri })`", "const l = await MCP.docs.resources.list(); const t = await MCP.docs.resources.templates(); const r = await MCP.docs.resources.read({ uri: 'memo://one' }); return [l.resources[0].uri, t.resourceTemplates[0].uriTemplate, r.contents[0].text];", ["memo://one", "page://{n}", "remember"]],
  ["`prompts.list()/get({ name, arguments })`", "const l = await MCP.docs.prompts.list(); const p = await MCP.docs.prompts.get({ name: 'brief', arguments: { topic: 'x' } }); return [l.prompts[0].name, p.messages[0].content.text];", ["brief", "Brief on x"]],
];

test("every usage the exec description shows runs in a cell as described", async () => {
  const session = new CodeModeSession({ sessionId: "usages", tools, mcpServers: [{ name: "docs", client: await docsClient() }] });
  try {
    const description = session.modelTools().find((t) => t.name === "exec").description;
    for (const [words, code, expected] of usages) {
      assert.ok(description.includes(words), `the description no longer says: ${words}`);
      const r = await session.exec({ code });
      assert.equal(r.status, "completed", `${words}: ${JSON.stringify(r)}`);
      assert.deepEqual(r.value, expected, words);
    }
  } finally {
    session.close();
  }
});

test("a waiting result continues with wait and its top-level runId, as the description says", async () => {
  const session = new CodeModeSession({ sessionId: "usages-wait", tools });
  try {
    const description = session.modelTools().find((t) => t.name === "exec").description;
    assert.ok(description.includes('If the result has `status: "waiting"`, call `wait` with its top-level `runId` to continue'));
    const first = await session.exec({ code: "await yield_control('hold'); return (await tickets_search({ query: 'later' }))[0].title;" });
    assert.equal(first.status, "waiting", JSON.stringify(first));
    const next = await session.wait({ runId: first.runId });
    assert.equal(next.status, "completed", JSON.stringify(next));
    assert.equal(next.value, "about later");
  } finally {
    session.close();
  }
});
