// glue/events.js on its own: event objects, delivery to onEvent (a throwing listener is
// ignored), and previews (cut at 512 characters, or the session's redactor when set).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";
import { limits } from "./fixtures/glue_limits.mjs";

const load = (name) => vm.runInThisContext(readFileSync(new URL(`../src/binding/glue/${name}.js`, import.meta.url), "utf8"), { filename: `glue/${name}.js` });
const createEvents = load("events");

function listened() {
  const events = createEvents({ limits });
  const seen = [];
  events.setListener((event) => seen.push(event));
  return { events, seen };
}

test("without a listener nothing is delivered and listening() says so", () => {
  const events = createEvents({ limits });
  assert.equal(events.listening(), false);
  events.emit({ type: "x" });
  events.emitJson('{"type":"x"}');
  events.runStatus("run-1", "completed");
  events.toolCallEnd("run-1", "c1", "ok", 3, "1");
  events.setListener("not a function");
  assert.equal(events.listening(), false);
});

test("events reach the listener, and a listener that throws does not reach the caller", () => {
  const events = createEvents({ limits });
  let calls = 0;
  events.setListener(() => {
    calls++;
    throw new Error("display only");
  });
  assert.equal(events.listening(), true);
  events.emit({ type: "a" });
  events.emitJson('{"type":"b"}');
  assert.equal(calls, 2);
});

test("emitJson delivers Rust's event text as an object", () => {
  const { events, seen } = listened();
  events.emitJson('{"type":"run_start","runId":"r1","n":[1,2]}');
  assert.deepEqual(seen, [{ type: "run_start", runId: "r1", n: [1, 2] }]);
});

test("run_status is sent only for settled calls that have a run", () => {
  const { events, seen } = listened();
  events.runStatus("", "completed");
  events.runStatus("r1", "waiting");
  assert.deepEqual(seen, [{ type: "run_status", runId: "r1", status: "waiting" }]);
});

test("tool call events carry ids, names and a preview of the input", () => {
  const { events, seen } = listened();
  events.toolCallStart("r1", "c2", "c1", "echo", "echo_tool", "client", '{"a":1}');
  events.toolCallUpdate("r1", "c2", { progress: 1 });
  assert.deepEqual(seen, [
    { type: "tool_call_start", runId: "r1", callId: "c2", parentCallId: "c1", toolName: "echo", callableName: "echo_tool", source: "client", inputPreview: '{"a":1}' },
    { type: "tool_call_update", runId: "r1", callId: "c2", partial: { progress: 1 } },
  ]);
});

test("tool_call_end has an output preview when ok and an error preview otherwise", () => {
  const { events, seen } = listened();
  events.toolCallEnd("r1", "c1", "ok", 7, '{"v":1}');
  events.toolCallEnd("r1", "c2", "error", 2, "boom");
  events.toolCallEnd("r1", "c3", "cancelled", 0, "code mode execution aborted");
  assert.deepEqual(seen, [
    { type: "tool_call_end", runId: "r1", callId: "c1", status: "ok", durationMs: 7, outputPreview: '{"v":1}' },
    { type: "tool_call_end", runId: "r1", callId: "c2", status: "error", durationMs: 2, error: "boom" },
    { type: "tool_call_end", runId: "r1", callId: "c3", status: "cancelled", durationMs: 0, error: "code mode execution aborted" },
  ]);
});

test("previews are cut at 512 characters until a redactor is set, which then decides alone", () => {
  const events = createEvents({ limits });
  assert.equal(events.PREVIEW, 512);
  assert.equal(events.preview("x".repeat(512)), "x".repeat(512));
  assert.equal(events.preview("y".repeat(600)), "y".repeat(512) + "…");
  events.setRedactor((text) => text.replaceAll("secret", "[redacted]"));
  assert.equal(events.preview("the secret is out"), "the [redacted] is out");
  assert.equal(events.preview("z".repeat(600)).length, 600);
});

test("the input preview of a start event goes through the redactor", () => {
  const { events, seen } = listened();
  events.setRedactor((text) => text.replace(/sk-\w+/g, "***"));
  events.toolCallStart("r1", "c1", undefined, "t", "t", "openclaw", '{"key":"sk-abc123"}');
  events.toolCallEnd("r1", "c1", "error", 1, "bad key sk-abc123");
  assert.equal(seen[0].inputPreview, '{"key":"***"}');
  assert.equal(seen[1].error, "bad key ***");
});

test("each session's events module has its own listener and redactor", () => {
  const a = listened();
  const b = createEvents({ limits });
  a.events.setRedactor(() => "A");
  b.emit({ type: "x" });
  assert.equal(a.seen.length, 0);
  assert.equal(b.preview("text"), "text");
});
