// glue/host.js, the entry, with the real modules and scheduler: every glue file is compiled
// into the addon, the object has every method Rust calls, mailbox letters are dispatched
// (tool calls, aborts, events, settled results), and the glue works inside a Worker.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import vm from "node:vm";
import { limits } from "./fixtures/glue_limits.mjs";
import { Worker } from "node:worker_threads";

const binding = new URL("../src/binding/", import.meta.url);
const load = (file) => vm.runInThisContext(readFileSync(new URL(file, binding), "utf8"), { filename: file });
const modules = Object.fromEntries(["events", "invoke", "options", "mcp", "signals", "redaction", "telemetry", "durable", "external"].map((name) => [name, load(`glue/${name}.js`)]));
const scheduler = load("scheduler.js");
// Every Rust source of the binding, sub-folders included (session/calls.rs).
const rust = readdirSync(binding, { recursive: true }).filter((f) => f.endsWith(".rs")).map((f) => readFileSync(new URL(f, binding), "utf8")).join("\n");

// A host as Rust makes one, its callbacks recording, its mailbox a plain queue.
function host() {
  const letters = [];
  const log = [];
  const glue = load("glue/host.js")(modules)(
    (token, ok, text) => log.push(["done", token, ok, text]),
    (token) => log.push(["pause", token]),
    (token) => log.push(["resume", token]),
    (text) => log.push(["mcpLoaded", JSON.parse(text)]),
    () => letters.shift() ?? null,
    (token) => log.push(["abort", token]),
    scheduler,
    load("glue/mcp_watch.js"),
    JSON.stringify(limits),
    (token, payload) => {
      log.push(["suspend", token, payload]);
      return true;
    }
  );
  const post = (...batch) => {
    letters.push(...batch);
    glue.wake();
  };
  return { glue, log, post };
}
const settled = () => new Promise((resolve) => setTimeout(resolve, 10));

test("every glue file is compiled into the addon by the binding", () => {
  // A file may be included twice (glue/redaction.js also serves redactSource on its own).
  const included = [...new Set([...rust.matchAll(/include_str!\("(glue\/[\w.]+\.js)"\)/g)].map((m) => m[1]))].sort();
  const files = readdirSync(new URL("glue/", binding)).map((f) => "glue/" + f).sort();
  assert.deepEqual(included, files);
  // The entry is applied to an object literal of the modules, each under its own name.
  assert.match(rust, /include_str!\("glue\/host\.js"\),\s*"\(\{/);
  for (const name of Object.keys(modules)) assert.match(rust, new RegExp(`${name}: ",\\s*include_str!\\("glue/${name}\\.js"\\)`));
});

test("the entry exposes every method Rust calls by name", () => {
  const { glue } = host();
  const called = new Set([...rust.matchAll(/(?:glue_fn(?:::<[^>]*>)?\([^,]+,\s*|after_glue\(env,\s*)"(\w+)"/g)].map((m) => m[1]));
  assert.ok(called.size >= 15, [...called].join());
  for (const name of called) assert.equal(typeof glue[name], "function", name);
});

test("letters are dispatched: a tool call reports done, an event reaches onEvent, a result settles", async () => {
  const { glue, log, post } = host();
  const events = [];
  const text = glue.normalizeOptions({ sessionId: "s", onEvent: (e) => events.push(e), tools: [{ name: "add", execute: ({ a, b }) => a + b }] });
  assert.equal(JSON.parse(text).events, true);
  const result = glue.open(7, {});
  post([0, 0, false, "add", '{"a":2,"b":3}', "c1", "", "run-1", "s", 7], [2, '{"type":"custom","n":1}'], [3, 7, '{"status":"completed","value":5}', "run-1", "completed"]);
  assert.deepEqual(await result, { status: "completed", value: 5 });
  await settled();
  assert.deepEqual(log, [["done", 7, true, "5"]]);
  assert.deepEqual(events.map((e) => e.type), ["tool_call_start", "tool_call_end", "custom", "run_status"]);
  assert.deepEqual(events[3], { type: "run_status", runId: "run-1", status: "completed" });
});

test("a suspended call reports its payload, ignores its return, and ends its event on a resolved letter", async () => {
  const { glue, log, post } = host();
  const events = [];
  let marker;
  glue.normalizeOptions({ sessionId: "s", onEvent: (e) => events.push(e), tools: [{ name: "approve", execute: (input, ctx) => (marker = ctx.suspend({ ask: input })) }] });
  post([0, 0, false, "approve", '{"n":1}', "run-1:1", "", "run-1", "s", 4]);
  await settled();
  assert.deepEqual(marker, { suspended: true, callId: "run-1:1" });
  assert.deepEqual(log, [["suspend", 4, '{"ask":{"n":1}}']], "suspended, and never reported done");
  assert.deepEqual(events.map((e) => e.type), ["tool_call_start"]);
  post([4, "run-1", "run-1:1", true, '{"approved":true}']);
  await settled();
  assert.deepEqual({ ...events[1], durationMs: typeof events[1].durationMs }, { type: "tool_call_end", runId: "run-1", callId: "run-1:1", status: "ok", durationMs: "number", outputPreview: '{"approved":true}' });
  // A second letter for the same call (it cannot come from Rust, which sends one) adds nothing.
  post([4, "run-1", "run-1:1", false, "late"], [1, "run-1:1"]);
  await settled();
  assert.equal(events.length, 2);
});

test("an abort letter cancels a call in flight; the policy from the options applies", async () => {
  const { glue, log, post } = host();
  glue.normalizeOptions({
    sessionId: "s",
    beforeToolCall: ({ input }) => (input.deny ? { block: "denied" } : undefined),
    tools: [{ name: "wait", execute: (_input, ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))) }],
  });
  post([0, 0, false, "wait", '{"deny":true}', "c1", "", "r", "s", 1], [0, 0, false, "wait", "{}", "c2", "", "r", "s", 2]);
  await settled();
  post([1, "c2"]);
  await settled();
  assert.deepEqual(log, [["done", 1, false, 'Tool "wait" was blocked before execution: denied'], ["done", 2, false, "code mode execution aborted"]]);
});

test("onAbort listens to a call's signal until its result settles", async () => {
  const { glue, log, post } = host();
  glue.normalizeOptions({ sessionId: "s" });
  const first = new AbortController();
  const pending = glue.open(1, {});
  assert.equal(glue.onAbort({ signal: first.signal }, 1), true);
  first.abort();
  assert.deepEqual(log, [["abort", 1]]);
  post([3, 1, '{"status":"failed"}', "", "aborted"]);
  await pending;
  const reused = new AbortController();
  const second = glue.open(2, {});
  glue.onAbort({ signal: reused.signal }, 2);
  post([3, 2, "{}", "", "completed"]);
  await second;
  reused.abort();
  assert.deepEqual(log, [["abort", 1]], "the settled call's listener is gone");
  assert.equal(glue.onAbort({}, 3), false);
  assert.equal(glue.onAbort({ get signal() { throw new Error("getter"); } }, 3), false);
});

test("fail and rejected raise invalid_input errors; readers and addTools pass through", async () => {
  const { glue } = host();
  assert.throws(() => glue.fail("bad limits"), (e) => e instanceof TypeError && e.code === "invalid_input" && e.message === "bad limits");
  await assert.rejects(glue.rejected("no run"), (e) => e.code === "invalid_input" && e.message === "no run");
  glue.normalizeOptions({ sessionId: "s", tools: [{ name: "a", execute() {} }] });
  assert.equal(JSON.parse(glue.addTools([{ name: "b", execute() {} }]).text)[0].hostIndex, 1);
  assert.equal(glue.readWaitInput({ runId: "r" }), "r");
  let ran = false;
  await new Promise((resolve) => glue.afterMcp(() => resolve((ran = true))));
  assert.ok(ran);
});

test("the addon's glue runs in a worker_threads Worker: options, policy, events and a namespace", async () => {
  const worker = new Worker(
    `const { parentPort } = require("node:worker_threads");
     const { CodeModeSession } = require(${JSON.stringify(new URL("../index.js", import.meta.url).pathname)});
     (async () => {
       const events = [];
       const session = new CodeModeSession({
         sessionId: "glue-worker",
         onEvent: (e) => events.push(e.type),
         beforeToolCall: ({ input }) => (input && input.n ? { input: { n: input.n * 10 } } : undefined),
         tools: [{ name: "twice", execute: ({ n }) => ({ n: n * 2, big: 2n ** 64n }) }],
         namespaces: [{ globalName: "Ns", scope: { hi: () => "hello" } }],
       });
       const r = await session.exec({ code: "const t = await twice({ n: 2 }); return [t, await Ns.hi()]" });
       await session.close();
       parentPort.postMessage({ r, events });
     })().catch((e) => parentPort.postMessage({ error: String(e) }));`,
    { eval: true }
  );
  const message = await new Promise((resolve, reject) => worker.once("message", resolve).once("error", reject));
  await worker.terminate();
  assert.equal(message.error, undefined);
  assert.equal(message.r.status, "completed", JSON.stringify(message.r));
  assert.deepEqual(message.r.value, [{ n: 40, big: "18446744073709551616" }, "hello"]);
  assert.ok(message.events.includes("tool_call_start") && message.events.includes("tool_call_end"), message.events.join());
});
