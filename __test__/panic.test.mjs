// Panic containment: a Rust panic inside a worker or a bridge conversion (either
// direction) becomes an `internal_error` result, the worker survives (one worker only, so
// a dead one would hang every later cell), nothing is left parked, and later cells on the
// same session succeed. The probe panics only when the process starts with
// CODEMODE_NATIVE_PANIC_PROBE=1, so this runs in a child.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const script = `
const native = require(${JSON.stringify(join(root, 'index.js'))});
native.configureCodeModeRuntime({ workerThreads: 1 });
const { CodeModeSession } = native;
// slow_poison answers (with the result the probe panics on) only once the run has parked
// (at its yield_control). The budget is a minute so that no cell here parks or times out
// because the machine is slow.
let releasePoison;
const poisonHeld = new Promise((resolve) => { releasePoison = () => resolve('__panic_probe_result__'); });
(async () => {
  const s = new CodeModeSession({ sessionId: 'panic', limits: { timeoutMs: 60000 }, tools: [
    { name: '__panic_probe__', execute: () => 1 },
    { name: 'ok_tool', execute: () => 2 },
    { name: 'poison', execute: () => '__panic_probe_result__' },
    { name: 'slow_poison', execute: () => poisonHeld },
  ] });
  const worker = await s.exec({ code: 'return "__panic_probe_worker__"' });
  const bridge = await s.exec({ code: 'return await __panic_probe__({})' });
  const result = await s.exec({ code: 'text("before"); return await poison({})' });
  const parked = await s.exec({ code: 'const p = slow_poison({}); await yield_control(); return await p' });
  releasePoison();
  const resumed = parked.status === 'waiting' ? await s.wait({ runId: parked.runId }) : parked;
  const repeated = [];
  for (let i = 0; i < 5; i++) repeated.push((await s.exec({ code: 'return "__panic_probe_worker__"' })).code);
  const after = await s.exec({ code: 'return await ok_tool({}) + 40' });
  const concurrent = await Promise.all(Array.from({ length: 20 }, (_, i) => s.exec({ code: 'return (await ok_tool({})) * ' + i })));
  const runs = s.runs();
  await s.close();
  // Wait for the closed session's cells to be dropped (the cap only guards a hang).
  let stats = native.codeModeRuntimeStats();
  for (const cap = Date.now() + 60000; (stats.liveCells > 0 || stats.parkedRuns > 0) && Date.now() < cap; stats = native.codeModeRuntimeStats()) {
    await new Promise((r) => setTimeout(r, 2));
  }
  console.log(JSON.stringify({ worker, bridge, result, parked, resumed, repeated, after, concurrent, runs, stats }));
})();
`;

function runChild() {
  const child = spawnSync(process.execPath, ['-e', script], {
    env: { ...process.env, CODEMODE_NATIVE_PANIC_PROBE: '1' },
    encoding: 'utf8',
    timeout: 120000, // a hang guard
  });
  assert.equal(child.status, 0, `child failed: ${child.stderr}`);
  const line = child.stdout.trim().split('\n').pop();
  return JSON.parse(line);
}

const results = runChild();

function assertContained(r) {
  assert.equal(r.status, 'failed', JSON.stringify(r));
  assert.equal(r.code, 'internal_error', JSON.stringify(r));
  assert.match(r.error, /contained/);
}

test('a panic on a worker becomes internal_error', () => {
  assertContained(results.worker);
});

test('a panic inside a guest-to-host bridge conversion becomes internal_error', () => {
  // rquickjs turns a panic inside a native into a guest exception, so the text differs.
  assert.equal(results.bridge.status, 'failed', JSON.stringify(results.bridge));
  assert.equal(results.bridge.code, 'internal_error', JSON.stringify(results.bridge));
});

test('a panic while a host result is converted for the guest becomes internal_error and keeps earlier output', () => {
  assertContained(results.result);
  assert.deepEqual(results.result.output, [{ type: 'text', text: 'before' }]);
});

test('a panic during the turn of a resumed wait becomes internal_error and leaves nothing parked', () => {
  assert.equal(results.parked.status, 'waiting', JSON.stringify(results.parked));
  assertContained(results.resumed);
  assert.deepEqual(results.runs, []);
});

test('repeated panics on the only worker never kill it', () => {
  assert.deepEqual(results.repeated, Array(5).fill('internal_error'));
  assert.equal(results.stats.workers, 1, JSON.stringify(results.stats));
});

test('the session and the pool keep working after contained panics', () => {
  assert.equal(results.after.status, 'completed');
  assert.equal(results.after.value, 42);
  assert.deepEqual(results.concurrent.map((r) => r.value), Array.from({ length: 20 }, (_, i) => 2 * i));
});

test('contained panics leave no cell or parked run behind', () => {
  assert.equal(results.stats.parkedRuns, 0, JSON.stringify(results.stats));
  assert.equal(results.stats.liveCells, 0, JSON.stringify(results.stats));
});
