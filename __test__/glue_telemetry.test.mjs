// glue/telemetry.js on its own, against the OpenTelemetry SDK's in-memory exporter: which
// spans the host glue's calls make, and that a missing provider or a throwing processor
// changes nothing.
import { test, beforeEach, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";
import { trace, context } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";

const createTelemetry = vm.runInThisContext(readFileSync(new URL("../src/binding/glue/telemetry.js", import.meta.url), "utf8"), { filename: "glue/telemetry.js" });
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);

beforeEach(() => exporter.reset());
after(() => provider.shutdown());

function setup(option) {
  const telemetry = createTelemetry({ preview: (text) => "<" + text + ">" });
  telemetry.configure(option, "session-1");
  return telemetry;
}
const result = (fields) => ({ telemetry: {}, ...fields });

test("a call's span starts at open, takes its run id at bind and ends at settle", () => {
  const t = setup(undefined);
  t.stageExecInput(JSON.stringify({ code: { kind: "string", value: "return 1" } }));
  t.open(1, "exec", null);
  assert.equal(t.tracing(1), true);
  t.bind(1, "cm_a");
  assert.deepEqual(exporter.getFinishedSpans(), []);
  t.settle(1, '{"status":"completed","value":1}', result({ status: "completed", value: 1 }), "cm_a");
  const [span] = exporter.getFinishedSpans();
  assert.equal(span.name, "codemode.exec");
  assert.deepEqual(
    { run: span.attributes["codemode.run_id"], status: span.attributes["codemode.status"], code: span.attributes["codemode.code.bytes"] },
    { run: "cm_a", status: "completed", code: 8 }
  );
  assert.equal(t.tracing(1), false);
});

test("a tool call of a bound run gets a span under the call's span, active while it runs", () => {
  const t = setup(undefined);
  t.open(2, "exec", null);
  t.bind(2, "cm_b");
  const tool = t.startTool("cm_b", "call-1", undefined, "search", "search", "core", '{"q":"x"}');
  const inner = t.within(tool, () => trace.getActiveSpan());
  assert.equal(inner, tool.span);
  t.endTool(tool, "cancelled", "aborted");
  t.settle(2, "{}", result({ status: "failed", code: "aborted", error: "aborted" }), "cm_b");
  const [call, exec] = exporter.getFinishedSpans();
  assert.equal(call.parentSpanContext.spanId, exec.spanContext().spanId);
  assert.equal(call.attributes["error.type"], "cancelled");
  assert.equal(call.attributes["codemode.tool.input.bytes"], 9);
});

test("a tool call of a run no traced call started has no span", () => {
  const t = setup(undefined);
  assert.equal(t.startTool("cm_unknown", "c", undefined, "x", "x", "core", "{}"), null);
});

test("with enabled: false or no registered provider nothing is traced", () => {
  assert.equal(setup({ enabled: false, captureContent: false }).active(), false);
  trace.disable();
  try {
    const t = setup(undefined);
    assert.equal(t.active(), false);
    t.open(3, "exec", null);
    assert.equal(t.tracing(3), false);
  } finally {
    trace.setGlobalTracerProvider(provider);
  }
  assert.deepEqual(exporter.getFinishedSpans(), []);
});

test("a tracer that throws never turns a call into an exception", () => {
  const registry = globalThis[Symbol.for("opentelemetry.js.api.1")];
  const real = registry.trace;
  registry.trace = {
    getTracer() {
      throw new Error("broken provider");
    },
  };
  try {
    const t = setup(undefined);
    t.open(4, "exec", null);
    assert.equal(t.tracing(4), false);
  } finally {
    registry.trace = real;
  }
});
