// OpenTelemetry spans through the public API, with the SDK's in-memory exporter and the
// async-hooks context manager (so the caller's active context is real): exec, wait,
// script and tool-call spans, their parents, status, sizes, no raw content by default,
// and nothing without a registered provider.
import { test, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { trace, context, SpanStatusCode } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { makeSession, closeAll, native, show, ADDON_PATH } from "./_helpers.mjs";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);
const tracer = trace.getTracer("gateway");

beforeEach(() => exporter.reset());
after(async () => {
  await closeAll();
  await provider.shutdown();
});

const spans = (name) => exporter.getFinishedSpans().filter((span) => name === undefined || span.name === name);
const only = (name) => {
  const found = spans(name);
  assert.equal(found.length, 1, `one ${name} span, got ${exporter.getFinishedSpans().map((s) => s.name).join(", ")}`);
  return found[0];
};
const parentOf = (span) => span.parentSpanContext?.spanId;

// The caller's turn: `fn` runs with an active span, like a gateway's request handler.
function inTurn(fn) {
  return tracer.startActiveSpan("gateway.turn", async (turn) => {
    try {
      return { turn, value: await fn() };
    } finally {
      turn.end();
    }
  });
}

test("exec makes a codemode.exec span under the caller's active span", async () => {
  const s = makeSession();
  const { turn, value } = await inTurn(() => s.exec({ code: "return 1 + 1" }));
  assert.equal(value.status, "completed", show(value));
  const exec = only("codemode.exec");
  assert.equal(exec.spanContext().traceId, turn.spanContext().traceId);
  assert.equal(parentOf(exec), turn.spanContext().spanId);
  assert.equal(exec.attributes["codemode.operation"], "exec");
  assert.equal(exec.attributes["codemode.status"], "completed");
  assert.equal(exec.attributes["codemode.session_id"], s.sessionId);
  assert.equal(exec.attributes["codemode.code.bytes"], Buffer.byteLength("return 1 + 1"));
  assert.equal(exec.attributes["codemode.result.bytes"] > 0, true);
  assert.equal(exec.status.code, SpanStatusCode.UNSET);
});

test("console output is counted in codemode.output.bytes", async () => {
  const s = makeSession();
  const r = await s.exec({ code: "console.log('hello'); return 1" });
  assert.equal(r.output.length > 0, true, show(r));
  assert.equal(only("codemode.exec").attributes["codemode.output.bytes"], Buffer.byteLength(JSON.stringify(r.output)));
});

test("each tool call the guest makes is an execute_tool span under the exec span", async () => {
  const s = makeSession({ tools: [{ name: "lookup-user", execute: async ({ id }) => ({ id, name: "Ada" }) }] });
  const r = await s.exec({ code: "const a = await lookup_user({ id: 7 }); const b = await lookup_user({ id: 8 }); return [a.name, b.id]" });
  assert.deepEqual(r.value, ["Ada", 8], show(r));
  const exec = only("codemode.exec");
  const calls = spans("execute_tool lookup-user");
  assert.equal(calls.length, 2);
  for (const call of calls) {
    assert.equal(parentOf(call), exec.spanContext().spanId);
    assert.equal(call.attributes["gen_ai.operation.name"], "execute_tool");
    assert.equal(call.attributes["gen_ai.tool.name"], "lookup-user");
    assert.equal(call.attributes["codemode.tool.callable_name"], "lookup_user");
    assert.equal(call.attributes["codemode.tool.source"], "core");
    assert.equal(call.attributes["codemode.tool.status"], "ok");
    assert.equal(call.attributes["codemode.run_id"], exec.attributes["codemode.run_id"]);
    assert.equal(typeof call.attributes["gen_ai.tool.call.id"], "string");
  }
  assert.deepEqual(calls.map((c) => c.attributes["codemode.tool.input.bytes"]), [8, 8]);
  assert.deepEqual(calls.map((c) => c.attributes["codemode.tool.result.bytes"]), [21, 21]);
  assert.equal(exec.attributes["codemode.tool_calls"], 2);
  assert.match(exec.attributes["codemode.run_id"], /^cm_/);
});

test("spans a tool makes itself nest under its execute_tool span", async () => {
  const s = makeSession({
    tools: [{ name: "fetch", execute: () => tracer.startActiveSpan("http.get", (span) => (span.end(), "ok")) }],
  });
  await s.exec({ code: "return await fetch()" });
  assert.equal(parentOf(only("http.get")), only("execute_tool fetch").spanContext().spanId);
});

test("no span carries the code, tool inputs or results by default", async () => {
  const s = makeSession({ tools: [{ name: "echo", execute: (input) => ({ secret: input.secret }) }] });
  await s.exec({ code: "return await echo({ secret: 'hunter2' })" });
  const text = JSON.stringify(exporter.getFinishedSpans().map((span) => [span.attributes, span.status, span.events]));
  assert.equal(text.includes("hunter2"), false, text);
});

test("captureContent puts the redacted code, arguments and result on the spans", async () => {
  const s = makeSession({
    telemetry: { captureContent: true },
    redaction: { secrets: ["hunter2"] },
    tools: [{ name: "echo", execute: (input) => ({ got: input.word, key: "hunter2" }) }],
  });
  await s.exec({ code: "return await echo({ word: 'plain' })" });
  const call = only("execute_tool echo");
  assert.equal(call.attributes["gen_ai.tool.call.arguments"], '{"word":"plain"}');
  assert.match(call.attributes["gen_ai.tool.call.result"], /"got":"plain"/);
  assert.equal(call.attributes["gen_ai.tool.call.result"].includes("hunter2"), false);
  assert.equal(only("codemode.exec").attributes["codemode.code"], "return await echo({ word: 'plain' })");
});

test("a failed exec ends its span with error status and the result's code", async () => {
  const s = makeSession();
  const r = await s.exec({ code: "throw new Error('boom')" });
  assert.equal(r.status, "failed", show(r));
  const exec = only("codemode.exec");
  assert.equal(exec.status.code, SpanStatusCode.ERROR);
  assert.equal(exec.status.message, r.code);
  assert.equal(exec.attributes["codemode.status"], "failed");
  assert.equal(exec.attributes["codemode.error.code"], r.code);
  assert.equal(exec.attributes["error.type"], r.code);
});

test("a tool that throws ends its span with error status but no error text", async () => {
  const s = makeSession({ tools: [{ name: "broken", execute: () => { throw new Error("db password wrong"); } }] });
  await s.exec({ code: "try { await broken() } catch (e) { return 'handled' }" });
  const call = only("execute_tool broken");
  assert.equal(call.status.code, SpanStatusCode.ERROR);
  assert.equal(call.status.message, "tool_error");
  assert.equal(call.attributes["codemode.tool.status"], "error");
  assert.equal(JSON.stringify([call.attributes, call.status, call.events]).includes("password"), false);
});

test("an exec that parks ends as waiting and wait has its own span linked to it", async () => {
  const s = makeSession({ tools: [{ name: "step", execute: () => 1 }] });
  const parked = await s.exec({ code: "await yield_control(); return await step()" });
  assert.equal(parked.status, "waiting", show(parked));
  const exec = only("codemode.exec");
  assert.equal(exec.attributes["codemode.status"], "waiting");
  assert.equal(exec.attributes["codemode.waiting.reason"], "yield");
  assert.equal(exec.attributes["codemode.run_id"], parked.runId);
  const { turn, value } = await inTurn(() => s.wait({ runId: parked.runId }));
  assert.equal(value.status, "completed", show(value));
  const wait = only("codemode.wait");
  assert.equal(parentOf(wait), turn.spanContext().spanId);
  assert.equal(wait.attributes["codemode.run_id"], parked.runId);
  assert.equal(wait.attributes["codemode.status"], "completed");
  assert.deepEqual(wait.links.map((link) => link.context.spanId), [exec.spanContext().spanId]);
  // The call made after the resume belongs to the wait.
  assert.equal(parentOf(only("execute_tool step")), wait.spanContext().spanId);
});

test("a suspended call's span stays open while it is parked and ends on resolve, or as cancelled", async () => {
  const s = makeSession({ tools: [{ name: "approve", execute: (input, ctx) => ctx.suspend(input) }] });
  const first = await s.exec({ code: "const a = await approve({ n: 1 }); return [a, await approve({ n: 2 })]" });
  assert.equal(first.status, "waiting", show(first));
  assert.equal(spans("execute_tool approve").length, 0, "not ended while parked");
  // The end reaches the glue through the session's mailbox: wait for it, a turn at a time.
  const ended = async () => {
    for (let i = 0; i < 1000 && spans("execute_tool approve").length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    return only("execute_tool approve");
  };
  assert.equal(await s.resolveCall({ runId: first.runId, callId: first.pendingToolCalls[0].id, value: { ok: true } }), "resolved");
  const resolved = await ended();
  assert.equal(resolved.attributes["codemode.tool.status"], "ok");
  assert.equal(resolved.attributes["codemode.tool.result.bytes"], Buffer.byteLength('{"ok":true}'));
  assert.equal(parentOf(resolved), only("codemode.exec").spanContext().spanId, "under the exec that dispatched it");
  const second = await s.wait({ runId: first.runId });
  assert.equal(second.status, "waiting", show(second));
  exporter.reset();
  assert.equal(s.cancelRun(first.runId), true);
  const cancelled = await ended();
  assert.equal(cancelled.attributes["codemode.tool.status"], "cancelled");
  assert.equal(cancelled.status.code, SpanStatusCode.ERROR);
});

test("an MCP tool call is an execute_tool span with source mcp", async () => {
  const client = {
    listTools: async () => ({ tools: [{ name: "get_user", inputSchema: { type: "object" } }] }),
    callTool: async () => ({ content: [{ type: "text", text: "ok" }] }),
  };
  const s = makeSession({ mcpServers: [{ name: "crm", client }] });
  const r = await s.exec({ code: "return await MCP.crm.get_user({ id: 1 })" });
  assert.notEqual(r.status, "failed", show(r));
  const [call] = exporter.getFinishedSpans().filter((span) => span.name.startsWith("execute_tool "));
  assert.equal(call.attributes["codemode.tool.source"], "mcp");
  assert.equal(parentOf(call), only("codemode.exec").spanContext().spanId);
});

test("runCodeModeScript makes a codemode.script span with its tool calls under it", async () => {
  const r = await native.runCodeModeScript("return await ping()", { sessionId: "telemetry-script", tools: [{ name: "ping", execute: () => "pong" }] });
  assert.equal(r.value, "pong", show(r));
  const script = only("codemode.script");
  assert.equal(script.attributes["codemode.status"], "completed");
  assert.equal(parentOf(only("execute_tool ping")), script.spanContext().spanId);
});

test("telemetry: { enabled: false } makes no spans for that session", async () => {
  const s = makeSession({ telemetry: { enabled: false }, tools: [{ name: "t", execute: () => 1 }] });
  const r = await s.exec({ code: "return await t()" });
  assert.equal(r.value, 1, show(r));
  assert.deepEqual(spans(), []);
});

test("the telemetry option is checked like the other options", () => {
  const codeOf = (options) => {
    try {
      makeSession(options);
      return "accepted";
    } catch (error) {
      return `${error.code}: ${error.message}`;
    }
  };
  assert.equal(codeOf({ telemetry: true }), "invalid_input: telemetry must be an object.");
  assert.equal(codeOf({ telemetry: { captureContent: "yes" } }), "invalid_input: telemetry.captureContent must be a boolean.");
  assert.equal(codeOf({ telemetry: { capture: true } }), "invalid_input: telemetry.capture is not an option; did you mean telemetry.captureContent?");
});

test("without a registered tracer provider runs work as before and make no spans", async () => {
  trace.disable();
  try {
    const s = makeSession({ tools: [{ name: "t", execute: () => 2 }] });
    const r = await s.exec({ code: "return await t()" });
    assert.equal(r.value, 2, show(r));
  } finally {
    trace.setGlobalTracerProvider(provider);
  }
  assert.deepEqual(spans(), []);
});

test("a process that never loads @opentelemetry/api gets none of it loaded by a run", () => {
  const script = `
    const { CodeModeSession } = require(${JSON.stringify(ADDON_PATH)});
    const s = new CodeModeSession({ sessionId: "plain", tools: [{ name: "t", execute: () => 3 }] });
    s.exec({ code: "return await t()" }).then(async (r) => {
      const loaded = Object.keys(require.cache).filter((p) => p.includes("@opentelemetry"));
      console.log(JSON.stringify({ value: r.value, loaded }));
      await s.close();
    });`;
  const child = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout), { value: 3, loaded: [] });
});
