// glue/invoke.js on its own, wired to the real events module: how a host tool is called
// (ctx, abort, pauseBudget, onUpdate), what reaches Rust through done(), the policy hook,
// the fixed refusals of the nodes and skills surfaces, and BigInt-safe JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";
import { limits } from "./fixtures/glue_limits.mjs";

const load = (name) => vm.runInThisContext(readFileSync(new URL(`../src/binding/glue/${name}.js`, import.meta.url), "utf8"), { filename: `glue/${name}.js` });
const createEvents = load("events");
const createInvoke = load("invoke");

// A module with its events and the calls it makes to Rust, recorded.
function setup({ listen = false } = {}) {
  const events = createEvents({ limits });
  const seen = [];
  if (listen) events.setListener((e) => seen.push(e));
  const reports = [];
  const budget = [];
  const waiters = [];
  const calls = createInvoke({
    events,
    done: (token, ok, text) => {
      reports.push({ token, ok, text });
      for (const wake of waiters.splice(0)) wake();
    },
    pauseBudget: (token) => budget.push(["pause", token]),
    resumeBudget: (token) => budget.push(["resume", token]),
  });
  const call = (index, input, { surface = false, callId = "c1", parent = "", token = 1, callable } = {}) =>
    new Promise((resolve) => {
      const before = reports.length;
      waiters.push(() => resolve(reports[before]));
      calls.invoke(index, surface, callable ?? "tool", JSON.stringify(input), callId, parent, "run-1", "session-1", token);
    });
  return { calls, events, seen, reports, budget, call };
}

function tool(execute, name = "tool") {
  return { name, execute };
}

test("toJsonText writes BigInts, also boxed ones, as decimal strings and rethrows other errors", () => {
  const { calls } = setup();
  assert.equal(calls.toJsonText({ a: 1 }), '{"a":1}');
  assert.equal(calls.toJsonText({ big: 12345678901234567890n, boxed: Object(7n), list: [1n] }), '{"big":"12345678901234567890","boxed":"7","list":["1"]}');
  const cyclic = {};
  cyclic.self = cyclic;
  assert.throws(() => calls.toJsonText(cyclic), /circular/i);
  assert.equal(calls.toJsonText(undefined), undefined);
  assert.deepEqual(calls.plainJson(undefined), null);
  assert.deepEqual(calls.plainJson({ d: new Date(0), f() {}, n: 2n }), { d: "1970-01-01T00:00:00.000Z", n: "2" });
});

test("errorText reads errors, strings and other thrown values", () => {
  const { calls } = setup();
  assert.equal(calls.errorText(new RangeError("out")), "out");
  assert.equal(calls.errorText("plain"), "plain");
  assert.equal(calls.errorText({ code: 3 }), '{"code":3}');
  assert.equal(calls.errorText(undefined), "undefined");
  const hostile = { toJSON() { throw new Error("no"); } };
  assert.equal(calls.errorText(hostile), "tool failed with an unreadable error");
});

test("tools get their JSON input and report sync, async, undefined and BigInt results", async () => {
  const { calls, call } = setup();
  calls.addDefinitions([
    tool((input) => ({ sum: input.a + input.b })),
    tool(async (input) => [input]),
    tool(() => undefined),
    tool(() => 2n ** 70n),
  ]);
  assert.equal(calls.definitionCount(), 4);
  assert.deepEqual(await call(0, { a: 1, b: 2 }), { token: 1, ok: true, text: '{"sum":3}' });
  assert.deepEqual(await call(1, null, { token: 9 }), { token: 9, ok: true, text: "[null]" });
  assert.deepEqual(await call(2, {}), { token: 1, ok: true, text: "null" });
  assert.deepEqual(await call(3, {}), { token: 1, ok: true, text: '"1180591620717411303424"' });
});

test("a throw, a rejection or a result that is not JSON is a failed call, never an exception", async () => {
  const { calls, call } = setup();
  const cyclic = {};
  cyclic.self = cyclic;
  calls.addDefinitions([
    tool(() => {
      throw new Error("sync boom");
    }),
    tool(async () => Promise.reject("async boom")),
    tool(() => cyclic),
  ]);
  assert.deepEqual(await call(0, {}), { token: 1, ok: false, text: "sync boom" });
  assert.deepEqual(await call(1, {}), { token: 1, ok: false, text: "async boom" });
  const r = await call(2, {});
  assert.equal(r.ok, false);
  assert.match(r.text, /^tool returned a value that is not JSON: .*circular/i);
});

test("ctx carries the call's ids, and its signal is an enumerable accessor made on first read", async () => {
  const { calls, call } = setup();
  let seen;
  calls.addDefinitions([tool((_input, ctx) => {
    seen = { ...ctx };
    return Object.keys(ctx);
  })]);
  const r = await call(0, {}, { callId: "c7", parent: "c3" });
  assert.deepEqual(JSON.parse(r.text), ["callId", "parentCallId", "runId", "sessionId", "context", "signal", "onUpdate", "pauseBudget"]);
  assert.equal(seen.callId, "c7");
  assert.equal(seen.parentCallId, "c3");
  assert.equal(seen.runId, "run-1");
  assert.equal(seen.sessionId, "session-1");
  assert.ok(seen.signal instanceof AbortSignal);
  assert.equal(seen.signal.aborted, false);
  await call(0, {}, { parent: "" });
  assert.equal(seen.parentCallId, undefined);
});

test("abort() aborts a signal already read, and one read later starts aborted", async () => {
  const { calls, reports } = setup({ listen: false });
  const ctxs = [];
  calls.addDefinitions([tool((_input, ctx) => {
    ctxs.push(ctx);
    return new Promise(() => {});
  })]);
  calls.invoke(0, false, "t", "{}", "early", "", "r", "s", 1);
  calls.invoke(0, false, "t", "{}", "late", "", "r", "s", 2);
  const early = ctxs[0].signal;
  let reason;
  early.addEventListener("abort", () => (reason = early.reason));
  calls.abort("early");
  calls.abort("late");
  assert.equal(early.aborted, true);
  assert.equal(reason.message, "code mode execution aborted");
  assert.equal(ctxs[1].signal.aborted, true);
  assert.equal(ctxs[1].signal.reason.message, "code mode execution aborted");
  calls.abort("unknown");
  assert.equal(reports.length, 0);
});

test("a cancelled call ends with status cancelled; events carry the call's previews", async () => {
  const { calls, seen, call } = setup({ listen: true });
  let reject;
  calls.addDefinitions([tool((input) => input, "echo"), tool(() => new Promise((_, r) => (reject = r)), "slow")]);
  await call(0, { a: 1 }, { callable: "echo_alias", callId: "c1" });
  calls.invoke(1, false, "slow", "{}", "c2", "c1", "run-1", "s", 2);
  calls.abort("c2");
  reject(new Error("stopped"));
  await new Promise((resolve) => setImmediate(resolve));
  const [start, end, start2, end2] = seen;
  assert.deepEqual(start, { type: "tool_call_start", runId: "run-1", callId: "c1", parentCallId: undefined, toolName: "echo", callableName: "echo_alias", source: "core", inputPreview: '{"a":1}' });
  assert.equal(end.status, "ok");
  assert.equal(end.outputPreview, '{"a":1}');
  assert.equal(typeof end.durationMs, "number");
  assert.equal(start2.parentCallId, "c1");
  assert.equal(end2.status, "cancelled");
  assert.equal(end2.error, "stopped");
});

test("onUpdate sends plain JSON while listening and nothing once the call ended", async () => {
  const { calls, seen, call } = setup({ listen: true });
  let update;
  calls.addDefinitions([tool((_input, ctx) => {
    update = ctx.onUpdate;
    ctx.onUpdate({ n: 1n, at: new Date(0) });
    ctx.onUpdate({ get bad() { throw new Error("unreadable"); } });
    return 1;
  })]);
  await call(0, {});
  update({ late: true });
  assert.deepEqual(seen.map((e) => e.type), ["tool_call_start", "tool_call_update", "tool_call_end"]);
  assert.deepEqual(seen[1].partial, { n: "1", at: "1970-01-01T00:00:00.000Z" });
});

test("pauseBudget windows resume once each, and the call's end closes those left open", async () => {
  const { calls, budget, call } = setup();
  calls.addDefinitions([tool((_input, ctx) => {
    const first = ctx.pauseBudget();
    ctx.pauseBudget();
    ctx.pauseBudget();
    first();
    first();
    return null;
  })]);
  await call(0, {}, { token: 4 });
  assert.deepEqual(budget, [["pause", 4], ["pause", 4], ["pause", 4], ["resume", 4], ["resume", 4], ["resume", 4]]);
});

test("beforeToolCall sees plain JSON and can rewrite the input or block the call", async () => {
  const { calls, call } = setup();
  const asked = [];
  calls.setPolicy(async (request) => {
    asked.push(request);
    if (request.input.mode === "block") return { block: "not today" };
    if (request.input.mode === "flag") return { block: true };
    if (request.input.mode === "rewrite") return { input: { mode: "rewritten", n: 5n } };
    return undefined;
  });
  calls.addDefinitions([tool((input) => input, "echo")]);
  assert.deepEqual(await call(0, { mode: "pass" }, { callable: "echo", callId: "p1" }), { token: 1, ok: true, text: '{"mode":"pass"}' });
  assert.deepEqual(asked[0], { toolName: "echo", callableName: "echo", input: { mode: "pass" }, callId: "p1" });
  assert.deepEqual(await call(0, { mode: "rewrite" }), { token: 1, ok: true, text: '{"mode":"rewritten","n":"5"}' });
  assert.deepEqual(await call(0, { mode: "block" }, { callable: "tools.echo" }), { token: 1, ok: false, text: 'Tool "tools.echo" was blocked before execution: not today' });
  assert.equal((await call(0, { mode: "flag" })).text, 'Tool "tool" was blocked before execution: blocked by policy');
  calls.setPolicy(null);
  assert.equal((await call(0, { mode: "block" })).ok, true);
});

test("nodes.invoke refuses shell commands without asking the host; other commands pass", async () => {
  const { calls, call } = setup();
  const invoked = [];
  const nodes = {
    list: async () => [{ id: "n1", connected: true, commands: ["camera.snap"] }],
    invoke: async (nodeId, command, params) => (invoked.push([nodeId, command, params]), "ran"),
  };
  const ops = calls.hostSurfaces.nodes(nodes);
  for (const command of ["system.run", "exec"]) {
    const r = await call(ops.invoke, { nodeId: "n1", command, params: { cmd: "ls" } }, { surface: true });
    assert.deepEqual(r, { token: 1, ok: false, text: `node command "${command}" is reserved for the exec tool and cannot run from code mode.` });
  }
  assert.deepEqual(invoked, []);
  assert.equal((await call(ops.invoke, { nodeId: 7, command: "camera.snap" }, { surface: true })).text, '"ran"');
  assert.deepEqual(invoked, [["7", "camera.snap", null]]);
  assert.equal((await call(ops.list, null, { surface: true })).text, '[{"id":"n1","connected":true,"commands":["camera.snap"]}]');
});

test("nodes.list must answer an array", async () => {
  const { calls, call } = setup();
  const ops = calls.hostSurfaces.nodes({ list: () => ({ n1: {} }), invoke() {} });
  assert.deepEqual(await call(ops.list, null, { surface: true }), { token: 1, ok: false, text: "nodes.list returned a value that is not an array." });
});

test("skills.read refuses paths that leave the skill and passes the others through", async () => {
  const { calls, call } = setup();
  const reads = [];
  const ops = calls.hostSurfaces.skills({ list: () => [{ name: "pdf" }], read: (name, rel) => (reads.push([name, rel]), "# " + name) });
  for (const relativePath of ["../secrets", "/etc/passwd", "docs/../../x", "docs\\..\\..\\x", ".."]) {
    const r = await call(ops.read, { name: "pdf", relativePath }, { surface: true });
    assert.deepEqual(r, { token: 1, ok: false, text: "skills.read relativePath must stay inside the skill." }, relativePath);
  }
  assert.deepEqual(reads, []);
  assert.equal((await call(ops.read, { name: "pdf", relativePath: "docs/..x/a.md" }, { surface: true })).text, '"# pdf"');
  assert.equal((await call(ops.read, { name: "pdf", relativePath: 3 }, { surface: true })).ok, true);
  assert.deepEqual(reads, [["pdf", "docs/..x/a.md"], ["pdf", undefined]]);
  assert.equal((await call(ops.list, null, { surface: true })).text, '[{"name":"pdf"}]');
});

test("swarm surfaces: run passes the spec, phase and log get a string and answer null", async () => {
  const { calls, call } = setup();
  const seen = [];
  const swarm = { run: (spec) => ({ ran: spec }), phase: async (title) => seen.push(["phase", title]), log: (m) => seen.push(["log", m]) };
  const ops = calls.hostSurfaces.swarm(swarm, ["phase", "log"]);
  assert.deepEqual(Object.keys(ops), ["run", "phase", "log"]);
  assert.equal((await call(ops.run, { agents: 2 }, { surface: true })).text, '{"ran":{"agents":2}}');
  assert.equal((await call(ops.phase, 12, { surface: true })).text, "null");
  assert.equal((await call(ops.log, "hi", { surface: true })).text, "null");
  assert.deepEqual(seen, [["phase", "12"], ["log", "hi"]]);
  assert.deepEqual(Object.keys(calls.hostSurfaces.swarm(swarm, [])), ["run"]);
});

test("surfaces and tools are numbered apart, and indices only grow", () => {
  const { calls } = setup();
  assert.equal(calls.addSurface("a", "namespace", () => 1), 0);
  assert.equal(calls.addSurface("b", "mcp", () => 2), 1);
  assert.equal(calls.definitionCount(), 0);
  calls.addDefinitions([tool(() => 1)]);
  assert.equal(calls.definitionCount(), 1);
  assert.equal(calls.addSurface("c", "mcp", () => 3), 2);
});
