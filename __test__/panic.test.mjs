// Panic containment: a Rust panic inside a worker or a bridge conversion becomes an
// `internal_error` result, and the same session keeps working. The probe panics only
// when the process starts with CODEMODE_NATIVE_PANIC_PROBE=1, so this runs in a child.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const script = `
const { CodeModeSession } = require(${JSON.stringify(join(root, 'index.js'))});
(async () => {
  const s = new CodeModeSession({ sessionId: 'panic', tools: [
    { name: '__panic_probe__', execute: () => 1 },
    { name: 'ok_tool', execute: () => 2 },
  ] });
  const worker = await s.exec({ code: 'return "__panic_probe_worker__"' });
  const bridge = await s.exec({ code: 'return await __panic_probe__({})' });
  const after = await s.exec({ code: 'return await ok_tool({}) + 40' });
  console.log(JSON.stringify({ worker, bridge, after }));
})();
`;

function runChild() {
  const child = spawnSync(process.execPath, ['-e', script], {
    env: { ...process.env, CODEMODE_NATIVE_PANIC_PROBE: '1' },
    encoding: 'utf8',
    timeout: 30000,
  });
  assert.equal(child.status, 0, `child failed: ${child.stderr}`);
  const line = child.stdout.trim().split('\n').pop();
  return JSON.parse(line);
}

const results = runChild();

test('a panic on a worker becomes internal_error', () => {
  assert.equal(results.worker.status, 'failed');
  assert.equal(results.worker.code, 'internal_error');
  assert.match(results.worker.error, /contained/);
});

test('a panic inside a bridge conversion becomes internal_error', () => {
  assert.equal(results.bridge.status, 'failed');
  assert.equal(results.bridge.code, 'internal_error');
});

test('the session and the pool keep working after contained panics', () => {
  assert.equal(results.after.status, 'completed');
  assert.equal(results.after.value, 42);
});
