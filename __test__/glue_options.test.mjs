// glue/options.js on its own, wired to the real invoke and events modules: the JSON text
// Rust receives for session options, exec/wait inputs and call options, and the
// invalid_input errors that name the offending path.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";
import { limits } from "./fixtures/glue_limits.mjs";

const load = (name) => vm.runInThisContext(readFileSync(new URL(`../src/binding/glue/${name}.js`, import.meta.url), "utf8"), { filename: `glue/${name}.js` });
const [createEvents, createInvoke, createOptions, redactionAsText, durable] = ["events", "invoke", "options", "redaction", "durable"].map(load);

function setup() {
  const reports = [];
  const invoke = createInvoke({ events: createEvents({ limits }), done: (token, ok, text) => reports.push({ token, ok, text }), pauseBudget() {}, resumeBudget() {} });
  return { invoke, options: createOptions({ invoke, limits, redactionAsText, durable }), reports };
}

const execute = () => null;

function rejects(fn, message) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof TypeError, String(error));
    assert.equal(error.code, "invalid_input");
    assert.equal(error.message, message);
    return true;
  });
}

test("the smallest options become Rust's JSON with no hooks, servers or surfaces", () => {
  const { options } = setup();
  const n = options.normalizeOptions({ sessionId: "s1" });
  assert.deepEqual(JSON.parse(n.text), { events: false, sessionId: "s1", tools: [], surfaces: { namespaces: [], nodes: null, skills: null, swarm: null, mcpServers: [] } });
  assert.equal(n.beforeToolCall, null);
  assert.equal(n.onEvent, null);
  assert.deepEqual(n.servers, []);
});

test("session-level options are checked with their names", () => {
  const { options } = setup();
  rejects(() => options.normalizeOptions(null), "CodeModeSession options must be an object.");
  rejects(() => options.normalizeOptions({ sessionId: "  " }), "sessionId must be a non-empty string.");
  rejects(() => options.normalizeOptions({ sessionId: "s", limits: [] }), "limits must be an object.");
  rejects(() => options.normalizeOptions({ sessionId: "s", onEvent: 1 }), "onEvent must be a function.");
  rejects(() => options.normalizeOptions({ sessionId: "s", beforeToolCall: "x" }), "beforeToolCall must be a function.");
  rejects(() => options.normalizeOptions({ sessionId: "s", agentId: 3 }), "agentId must be a string.");
});

test("hooks, ids and limits pass through", () => {
  const { options } = setup();
  const onEvent = () => {};
  const beforeToolCall = () => {};
  const n = options.normalizeOptions({ sessionId: "s", sessionKey: "k", agentId: "a", agentRunId: "r", limits: { timeoutMs: 5 }, onEvent, beforeToolCall });
  assert.equal(n.onEvent, onEvent);
  assert.equal(n.beforeToolCall, beforeToolCall);
  const json = JSON.parse(n.text);
  assert.equal(json.events, true);
  assert.deepEqual([json.sessionKey, json.agentId, json.agentRunId, json.limits], ["k", "a", "r", { timeoutMs: 5 }]);
});

test("tools become specs whose host indices continue after the tools already registered", async () => {
  const { invoke, options, reports } = setup();
  const first = options.normalizeOptions({ sessionId: "s", tools: [{ name: "a", execute, description: "A", label: "L", parameters: { type: "object" }, source: "client", directOnly: true }] });
  assert.deepEqual(JSON.parse(first.text).tools, [
    { hostIndex: 0, name: "a", description: "A", label: "L", parameters: { type: "object" }, source: "client", directOnly: true, replaySafe: false },
  ]);
  assert.equal(invoke.definitionCount(), 0, "registered only on commit");
  first.commit();
  assert.equal(invoke.definitionCount(), 1);
  const batch = options.addTools([{ name: "b", execute: () => "b ran", outputSchema: true, replaySafe: true }]);
  assert.equal(invoke.definitionCount(), 1, "added tools are registered only on commit");
  batch.commit();
  const added = JSON.parse(batch.text);
  assert.deepEqual(added, [{ hostIndex: 1, name: "b", description: "", outputSchema: true, source: "core", directOnly: false, replaySafe: true }]);
  invoke.invoke(1, false, "b", "{}", "c", "", "r", "s", 3);
  assert.deepEqual(reports, [{ token: 3, ok: true, text: '"b ran"' }]);
  assert.equal(options.addTools(undefined).text, "[]");
});

test("each wrong tool field is named by its path", () => {
  const { options } = setup();
  const tools = (t) => () => options.addTools([{ name: "ok", execute }, t]);
  rejects(() => options.addTools({}), "tools must be an array of tool definitions.");
  rejects(tools(null), "tools[1] must be an object.");
  rejects(tools({ name: " ", execute }), "tools[1].name must be a non-empty string.");
  rejects(tools({ name: "x" }), "tools[1].execute must be a function.");
  rejects(tools({ name: "x", execute, source: "mcp" }), 'tools[1].source must be "core" or "client".');
  rejects(tools({ name: "x", execute, directOnly: "yes" }), "tools[1].directOnly must be a boolean.");
  rejects(tools({ name: "x", execute, replaySafe: 1 }), "tools[1].replaySafe must be a boolean.");
  rejects(tools({ name: "x", execute, description: 5 }), "tools[1].description must be a string.");
  rejects(tools({ name: "x", execute, parameters: "object" }), "tools[1].parameters must be a JSON Schema object or boolean.");
});

test("a schema that is not plain JSON is named; other unserialisable options fail as a whole", () => {
  const { invoke, options } = setup();
  const cyclic = { type: "object" };
  cyclic.self = cyclic;
  assert.throws(() => options.addTools([{ name: "x", execute, outputSchema: { max: 1n } }]), (e) => e.code === "invalid_input" && /^tools\[0\]\.outputSchema must be plain JSON: .*BigInt/.test(e.message));
  assert.throws(() => options.normalizeOptions({ sessionId: "s", tools: [{ name: "x", execute, parameters: cyclic }] }), /^TypeError: tools\[0\]\.parameters must be plain JSON: /);
  assert.throws(() => options.normalizeOptions({ sessionId: "s", limits: { timeoutMs: 1n } }), /^TypeError: options must be plain JSON: /);
  assert.equal(invoke.definitionCount(), 0);
});

test("namespace leaves become surfaces called with their holder as this", async () => {
  const { invoke, options, reports } = setup();
  const scope = { version: 2, math: { factor: 10, times(input) { return input.n * this.factor; } }, hello: () => "hi", list: [() => 0] };
  const n = options.normalizeOptions({ sessionId: "s", namespaces: [{ globalName: "Plugin", description: "P", scope }] });
  const [ns] = JSON.parse(n.text).surfaces.namespaces;
  assert.deepEqual(ns, { globalName: "Plugin", description: "P", prompt: "", leaves: [{ path: ["math", "times"], hostIndex: 0 }, { path: ["hello"], hostIndex: 1 }] });
  invoke.invoke(0, true, "Plugin.math.times", '{"n":4}', "c", "", "r", "s", 1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(reports, [{ token: 1, ok: true, text: "40" }]);
});

test("namespaces cross to Rust as read, with the walk stopped at the depth and count limits", () => {
  const { options } = setup();
  const read = (namespaces) => JSON.parse(options.normalizeOptions({ sessionId: "s", namespaces }).text).surfaces.namespaces;
  let deep = { f() {} };
  for (let i = 0; i < 8; i++) deep = { inner: deep };
  assert.equal(read([{ globalName: "D", scope: deep }])[0].tooDeep, "namespaces[0].scope" + ".inner".repeat(8));
  const cyclic = { f() {} };
  cyclic.self = cyclic;
  assert.equal(read([{ globalName: "C", scope: cyclic }])[0].tooDeep, "namespaces[0].scope" + ".self".repeat(8));
  const wide = Object.fromEntries(Array.from({ length: 2005 }, (_, i) => ["f" + i, () => i]));
  assert.equal(read([{ globalName: "W", scope: wide }])[0].leaves.length, 2001);
  assert.equal(read({}), null);
  assert.deepEqual(read([1, { globalName: 1, description: 2, prompt: null, scope: [] }]), [null, { globalName: null, description: null, prompt: "", leaves: null }]);
});

test("nodes, skills and swarm hosts need their methods and become numbered surfaces", () => {
  const { options } = setup();
  rejects(() => options.normalizeOptions({ sessionId: "s", nodes: 1 }), "nodes must be an object.");
  rejects(() => options.normalizeOptions({ sessionId: "s", nodes: { list() {} } }), "nodes.invoke must be a function.");
  rejects(() => options.normalizeOptions({ sessionId: "s", skills: { read() {} } }), "skills.list must be a function.");
  rejects(() => options.normalizeOptions({ sessionId: "s", swarm: {} }), "swarm.run must be a function.");
  rejects(() => options.normalizeOptions({ sessionId: "s", swarm: { run() {}, log: "no" } }), "swarm.log must be a function.");
  const n = options.normalizeOptions({ sessionId: "s2", nodes: { list() {}, invoke() {} }, skills: { list() {}, read() {} }, swarm: { run() {}, log() {}, phase: null } });
  assert.deepEqual(JSON.parse(n.text).surfaces, { namespaces: [], nodes: { list: 0, invoke: 1 }, skills: { list: 2, read: 3 }, swarm: { run: 4, log: 5 }, mcpServers: [] });
});

test("MCP servers need a unique name and a client with listTools and callTool", () => {
  const { options } = setup();
  const client = { listTools() {}, callTool() {} };
  const servers = (list) => () => options.normalizeOptions({ sessionId: "s", mcpServers: list });
  rejects(servers({}), "mcpServers must be an array of { name, client }.");
  rejects(servers([null]), "mcpServers[0] must be an object.");
  rejects(servers([{ name: "", client }]), "mcpServers[0].name must be a non-empty string.");
  rejects(servers([{ name: "a", client }, { name: "a", client }]), 'mcpServers[1].name "a" is used by more than one server.');
  rejects(servers([{ name: "a", client: null }]), "mcpServers[0].client must be an MCP client.");
  rejects(servers([{ name: "a", client: { listTools() {} } }]), "mcpServers[0].client.callTool must be a function.");
  const n = options.normalizeOptions({ sessionId: "s", mcpServers: [{ name: "a", client }, { name: "b", client }] });
  assert.deepEqual(n.servers, [{ name: "a", client }, { name: "b", client }]);
  assert.deepEqual(JSON.parse(n.text).surfaces.mcpServers, ["a", "b"]);
});

test("RegExp redaction patterns cross as their source with inline i, m and s flags", () => {
  const { options } = setup();
  const json = (redaction) => JSON.parse(options.normalizeOptions({ sessionId: "s", redaction }).text).redaction;
  assert.deepEqual(json({ secrets: ["pw"], patterns: [/sk-\w+/gi, /^a.b$/ms, /plain/, "text"] }), { secrets: ["pw"], patterns: ["(?i)sk-\\w+", "(?ms)^a.b$", "plain", "text"] });
  assert.equal(json(null), undefined);
  assert.deepEqual(json({ secrets: ["x"] }), { secrets: ["x"] });
});

test("exec input is reported field by field for Rust to judge", () => {
  const { options } = setup();
  assert.deepEqual(JSON.parse(options.readExecInput("code")), { notAnObject: true });
  assert.deepEqual(JSON.parse(options.readExecInput({ code: "return 1", language: 3, restartSafe: true, command: null })), {
    code: { kind: "string", value: "return 1" },
    command: { kind: "absent" },
    language: { kind: "number", value: null },
    restartSafe: { kind: "boolean", value: true },
  });
  assert.deepEqual(JSON.parse(options.readExecInput(Object.create({ code: "inherited" }))).code, { kind: "absent" });
});

test("wait input takes runId or run_id; call and script options keep only what Rust reads", () => {
  const { options } = setup();
  assert.equal(options.readWaitInput({ runId: "r1" }), "r1");
  assert.equal(options.readWaitInput({ run_id: "r2" }), "r2");
  assert.equal(options.readWaitInput({ runId: 5 }), null);
  assert.equal(options.readWaitInput(null), null);
  const aborted = AbortSignal.abort();
  assert.equal(options.readCallOptions(undefined), "{}");
  assert.deepEqual(JSON.parse(options.readCallOptions({ callId: "c", signal: aborted, resultBudgetChars: 100 })), { callId: "c", aborted: true, resultBudgetChars: 100 });
  for (const bad of [Infinity, NaN, "100"]) assert.equal(JSON.parse(options.readCallOptions({ resultBudgetChars: bad })).resultBudgetChars, "invalid");
  assert.deepEqual(JSON.parse(options.readScriptOptions({ language: "typescript", wallClockMs: 50, maxToolCalls: 1.5, signal: new AbortController().signal })), { language: "typescript", wallClockMs: 50, aborted: false });
  assert.deepEqual(JSON.parse(options.readScriptOptions(null)), { aborted: false });
});
