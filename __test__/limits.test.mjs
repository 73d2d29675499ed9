// Limits: time, memory, stack, output budget, unhandled rejections (docs/contract.md: Architecture,
// Guest runtime, Output budget, Suspension and wait, Hostile code).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeSession, closeAll, run, show, utf8Length, eventually, hangGuard, heldTool } from './_helpers.mjs';

const TIMEOUT = 'code mode timeout exceeded (timeoutMs 300)';
const GUIDANCE = 'Output truncated; rerun with narrower args.';
after(closeAll);

// ---------- time ----------

const timed = makeSession({ limits: { timeoutMs: 300 } });

async function expectTimeout(code) {
  // The cap only guards a hang: a deadline that is not enforced never returns.
  const r = await hangGuard(run(timed, code), 'the exec returned (the deadline is enforced)');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'timeout', show(r));
  assert.equal(r.error, TIMEOUT, show(r));
  return r;
}

test('an infinite loop times out while the Node main thread keeps running', async () => {
  await expectTimeout('while (true) {}');
  // The main thread runs while a guest loops: a cell with a minute-long budget announces
  // that it loops (an unawaited tool call), and the Node thread's interval keeps ticking
  // while that cell is still running; the test then aborts it.
  const started = heldTool('started');
  const looping = makeSession({ limits: { timeoutMs: 60_000 }, tools: [started.tool] });
  const controller = new AbortController();
  let settled = false;
  const pending = run(looping, 'started(); while (true) {}', { signal: controller.signal }).finally(() => { settled = true; });
  await started.called;
  let ticks = 0;
  const interval = setInterval(() => ticks++, 10);
  try {
    await eventually(() => ticks > 5, 'the main-thread interval ticked while the guest looped');
  } finally {
    clearInterval(interval);
  }
  assert.equal(settled, false, 'the looping cell was still running');
  controller.abort();
  const r = await pending;
  assert.equal(r.code, 'aborted', show(r));
});

test('an infinite loop inside a getter times out', async () => {
  await expectTimeout('const o = { get x() { while (true) {} } }; return o.x');
});

test('an infinite loop inside toString coercion times out', async () => {
  await expectTimeout('const o = { toString() { for (;;) {} } }; return "" + o');
});

test('an infinite loop inside Symbol.toPrimitive in a template literal times out', async () => {
  await expectTimeout('return `${{ [Symbol.toPrimitive]() { while (1); } }}`');
});

test('an endless promise job loop times out', async () => {
  await expectTimeout('for (;;) await null;');
});

test('the next cell on the same session succeeds after a timeout', async () => {
  await expectTimeout('while (true) {}');
  const r = await run(timed, 'return 5');
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 5);
});

test('a timed-out cell does not affect a concurrent cell on another session', async () => {
  const other = makeSession();
  const [looping, quick] = await Promise.all([run(timed, 'while (true) {}'), run(other, 'return "fine"')]);
  assert.equal(looping.code, 'timeout', show(looping));
  assert.equal(quick.status, 'completed', show(quick));
  assert.equal(quick.value, 'fine');
});

// ---------- memory ----------

const MEMORY_LIMIT = 16 * 1024 * 1024;
const small = makeSession({ limits: { memoryLimitBytes: MEMORY_LIMIT, timeoutMs: 20000 } });

async function expectOutOfMemory(code) {
  const r = await run(small, code);
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'memory_limit_exceeded', show(r));
  assert.match(r.error, /memory/i, `the error must mention memory: ${show(r)}`);
  const next = await run(small, 'return "alive"');
  assert.equal(next.status, 'completed', `next cell after the memory bomb: ${show(next)}`);
  assert.equal(next.value, 'alive');
}

test('a string-doubling memory bomb fails with a memory error', async () => {
  await expectOutOfMemory('let s = "x"; while (true) s += s;');
});

test('an array push memory bomb fails with a memory error', async () => {
  await expectOutOfMemory('const a = []; while (true) a.push({ i: a.length, s: "abc" + a.length });');
});

test('a URLSearchParams memory bomb fails with a memory error', async () => {
  await expectOutOfMemory('const p = new URLSearchParams(); let i = 0; while (true) p.append("k" + i++, "v".repeat(100));');
});

test('a memory bomb that the guest catches still fails the cell with a memory error', async () => {
  // A heap that hit its limit may be in any state: the run ends, whatever the guest caught.
  await expectOutOfMemory('try { const a = []; while (true) a.push(new Array(1000).fill(1)); } catch (e) { return "caught: " + String(e) }');
});

test('a caught memory bomb that keeps the heap full fails with a memory error, not runtime_unavailable', async () => {
  const r = await run(small, 'globalThis.hog = []; try { for (;;) hog.push([]); } catch {} return 1;');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'memory_limit_exceeded', show(r));
  assert.equal(r.error, `code mode cell ran out of memory: its limit is ${MEMORY_LIMIT} bytes`, show(r));
});

test('out of memory with a tool call pending fails the cell at once instead of parking it', async () => {
  let cancelled = 0;
  const s = makeSession({
    // The deadline is far away: only the memory limit can end this run.
    limits: { timeoutMs: 60000, memoryLimitBytes: MEMORY_LIMIT },
    tools: [{ name: 'held', execute: (input, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => { cancelled++; resolve(null); })) }],
  });
  const r = await run(s, 'held({}); setTimeout(() => 1, 3600000); const keep = []; for (;;) keep.push([keep.length])');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'memory_limit_exceeded', show(r));
  assert.equal(r.error, `code mode cell ran out of memory: its limit is ${MEMORY_LIMIT} bytes`, show(r));
  assert.deepEqual(s.runs(), [], 'nothing is parked');
  assert.ok(r.telemetry.run.peakHeapBytes <= MEMORY_LIMIT, show(r));
  assert.equal(r.nestedCalls?.find((c) => c.toolName === 'held')?.status, 'cancelled', JSON.stringify(r.nestedCalls));
  await eventually(() => cancelled === 1, "the pending tool call's signal aborts");
});

// ---------- stack ----------

test('deep recursion fails with a RangeError and the next cell runs', async () => {
  const s = makeSession();
  const r = await run(s, 'function f() { return f() } f()');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'guest_error', show(r));
  assert.ok(r.error.includes('RangeError'), show(r));
  // The process is alive: the event loop still turns and the same session keeps working.
  await new Promise((resolve) => setImmediate(resolve));
  const next = await run(s, 'return 1 + 1');
  assert.equal(next.status, 'completed', show(next));
  assert.equal(next.value, 2);
});

test('deep recursion through getters and toString also fails with a RangeError', async () => {
  const s = makeSession();
  const r = await run(s, 'const o = { get x() { return this.x } }; return o.x');
  assert.equal(r.status, 'failed', show(r));
  assert.ok(r.error.includes('RangeError'), show(r));
  const r2 = await run(s, 'const o = { toString() { return "" + this } }; return "" + o');
  assert.equal(r2.status, 'failed', show(r2));
  assert.ok(r2.error.includes('RangeError'), show(r2));
});

// ---------- output budget ----------

const budget = makeSession({ limits: { maxOutputBytes: 1024 } });

function assertMarker(value, originalJson) {
  assert.equal(typeof value, 'object', `expected a marker object, got ${JSON.stringify(value)?.slice(0, 200)}`);
  assert.deepEqual(Object.keys(value), ['truncated', 'omittedBytes', 'guidance', 'prefix']);
  assert.equal(value.truncated, true);
  assert.equal(value.guidance, GUIDANCE);
  assert.equal(typeof value.prefix, 'string');
  assert.ok(Number.isInteger(value.omittedBytes) && value.omittedBytes > 0, `omittedBytes ${value.omittedBytes}`);
  assert.ok(utf8Length(JSON.stringify(value)) <= 1024, `marker is ${utf8Length(JSON.stringify(value))} bytes`);
  assert.ok(!value.prefix.includes('\uFFFD'), 'prefix must not contain U+FFFD');
  assert.ok(originalJson.startsWith(value.prefix), 'prefix is a prefix of the original compact JSON');
  assert.equal(utf8Length(value.prefix) + value.omittedBytes, utf8Length(originalJson),
    'prefix bytes plus omitted bytes equal the original compact JSON length');
}

test('an oversized value becomes the truncation marker with keys in order', async () => {
  const r = await run(budget, 'return "x".repeat(5000)');
  assert.equal(r.status, 'completed', show(r));
  const original = JSON.stringify('x'.repeat(5000));
  assert.equal(utf8Length(original), 5002);
  assertMarker(r.value, original);
  assert.ok(JSON.stringify(r.value).length <= 1024);
});

test('a truncated emoji value never splits a code point', async () => {
  const r = await run(budget, 'return "a" + "😀".repeat(2000)');
  assert.equal(r.status, 'completed', show(r));
  assertMarker(r.value, JSON.stringify('a' + '😀'.repeat(2000)));
  const r2 = await run(budget, 'return "😀".repeat(2000)');
  assertMarker(r2.value, JSON.stringify('😀'.repeat(2000)));
  // The prefix must end on a whole code point: no lone surrogate at the end.
  const last = r2.value.prefix.charCodeAt(r2.value.prefix.length - 1);
  assert.ok(!(last >= 0xd800 && last <= 0xdbff), 'prefix ends with a lone high surrogate');
});

test('a truncated two-byte character value never splits a code point', async () => {
  const r = await run(budget, 'return "é".repeat(3000)');
  assert.equal(r.status, 'completed', show(r));
  assertMarker(r.value, JSON.stringify('é'.repeat(3000)));
});

test('an oversized structured value is truncated against its compact JSON', async () => {
  const r = await run(budget, 'return Array.from({ length: 300 }, (_, i) => ({ i }))');
  assert.equal(r.status, 'completed', show(r));
  assertMarker(r.value, JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ i }))));
});

test('a value within the budget is returned unchanged', async () => {
  const r = await run(budget, 'return "x".repeat(900)');
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 'x'.repeat(900));
});

test('an oversized error keeps its leading cause and ends with the truncation note', async () => {
  const r = await run(budget, 'throw new Error("e".repeat(5000))');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'guest_error', show(r));
  assert.ok(r.error.startsWith('Error: eeee'), r.error.slice(0, 80));
  assert.ok(r.error.endsWith(' [error truncated]'), `error tail: ${JSON.stringify(r.error.slice(-60))}`);
  assert.ok(utf8Length(r.error) <= 1024, `error is ${utf8Length(r.error)} bytes`);
});

test('oversized output becomes a truncation marker while the value is kept', async () => {
  const r = await run(budget, 'text("y".repeat(3000)); return 1');
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 1);
  assert.ok(Array.isArray(r.output) && r.output.length >= 1, show(r));
  const used = utf8Length(JSON.stringify(r.output)) + utf8Length(JSON.stringify(r.value));
  assert.ok(used <= 1024, `output plus value use ${used} bytes`);
  const marker = r.output.find((e) => e.type === 'json' && e.value && e.value.truncated === true);
  assert.ok(marker, `expected a marker entry: ${show(r)}`);
  assert.equal(marker.value.guidance, GUIDANCE);
});

test('output and value share one budget of maxOutputBytes', async () => {
  const r = await run(budget, 'text("y".repeat(700)); return "z".repeat(700)');
  assert.equal(r.status, 'completed', show(r));
  const used = utf8Length(JSON.stringify(r.output ?? [])) + utf8Length(JSON.stringify(r.value));
  assert.ok(used <= 1024, `output plus value use ${used} bytes`);
  assert.equal(r.value.truncated, true, 'the value no longer fits beside the output');
});

test('the error shares the budget with output produced before the failure', async () => {
  const r = await run(budget, 'text("y".repeat(600)); throw new Error("e".repeat(2000))');
  assert.equal(r.status, 'failed', show(r));
  assert.ok(Array.isArray(r.output) && r.output.length > 0, 'failed results keep earlier output');
  const used = utf8Length(JSON.stringify(r.output)) + utf8Length(JSON.stringify(r.error));
  assert.ok(used <= 1024, `output plus error use ${used} bytes`);
  assert.ok(r.error.endsWith(' [error truncated]'), r.error.slice(-40));
});

// ---------- rejections and pending promises ----------

const plain = makeSession();

test('an unhandled rejection fails the cell with the error and a user frame', async () => {
  const r = await run(plain, 'Promise.reject(new Error("lost")); return 1');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'guest_error', show(r));
  assert.ok(r.error.startsWith('Error: lost'), r.error);
  assert.match(r.error, /user\.js:1:\d+/, r.error);
});

test('a throwing timer callback fails the cell', async () => {
  const r = await run(plain, 'setTimeout(() => { throw new Error("from timer") }, 0); await new Promise((r) => setTimeout(r, 20)); return 1');
  assert.equal(r.status, 'failed', show(r));
  assert.ok(r.error.includes('from timer'), r.error);
});

test('a rejection handled later in the same cell does not fail it', async () => {
  const r = await run(plain, 'const p = Promise.reject(new Error("late")); await null; await null; try { await p } catch (e) { return "caught " + e.message }');
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 'caught late');
});

test('a rejection handled after a timer delay does not fail the cell', async () => {
  const r = await run(plain, 'const p = Promise.reject(new Error("later")); await new Promise((r) => setTimeout(r, 20)); return await p.catch((e) => "caught " + e.message)');
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 'caught later');
});

test('allSettled and race behave as in JavaScript', async () => {
  const r = await run(plain, `const s = await Promise.allSettled([Promise.resolve(1), Promise.reject(new Error("no"))]);
    const w = await Promise.race([new Promise((r) => setTimeout(() => r("slow"), 50)), Promise.resolve("fast")]);
    return [s.map((x) => x.status), s[1].reason.message, w]`);
  assert.equal(r.status, 'completed', show(r));
  assert.deepEqual(r.value, [['fulfilled', 'rejected'], 'no', 'fast']);
});

test('a forever-pending promise with no host work fails at once', async () => {
  // With a minute-long budget, failing within half of it means it did not wait for the
  // deadline (the cap is far above how long failing at once takes on any machine).
  const patient = makeSession({ limits: { timeoutMs: 60_000 } });
  const r = await hangGuard(run(patient, 'await new Promise(() => {})'), 'the cell failed before its 60 s deadline', 30_000);
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'guest_error', show(r));
  assert.equal(r.error, 'code mode promise is pending without host work');
});

test('a thrown non-Error value fails the cell cleanly', async () => {
  for (const code of ['throw 42', 'throw null', 'throw { a: 1 }', 'throw Symbol("s")']) {
    const r = await run(plain, code);
    assert.equal(r.status, 'failed', `${code}: ${show(r)}`);
    assert.equal(r.code, 'guest_error', `${code}: ${show(r)}`);
    assert.equal(typeof r.error, 'string');
  }
});

test('a guest Error with message "interrupted" is an ordinary failure, not a timeout', async () => {
  const r = await run(plain, 'throw new Error("interrupted")');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'guest_error', show(r));
  assert.ok(r.error.startsWith('Error: interrupted'), r.error);
});

test('a tool input over maxToolInputBytes fails at the call site and the tool does not run', async () => {
  const seen = [];
  const s = makeSession({
    limits: { maxToolInputBytes: 1024 },
    tools: [{ name: 'echo', execute: (input) => (seen.push(input), input) }],
  });
  const r = await run(s, `
    const errors = [];
    try { await echo({ s: "x".repeat(2000) }) } catch (e) { errors.push([e.code, e.message]) }
    const small = await echo({ s: "x".repeat(900) });
    return [errors, small.s.length]`);
  assert.equal(r.status, 'completed', show(r));
  const [[[code, message]], smallLength] = r.value;
  assert.equal(code, 'input_contract');
  assert.equal(message, 'Tool "echo" input is 2008 bytes of JSON; this session allows 1024 (maxToolInputBytes). Send less per call.');
  assert.equal(smallLength, 900);
  assert.equal(seen.length, 1, 'only the small call reached the tool');
});
