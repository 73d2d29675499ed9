// Process-wide settings: configureCodeModeRuntime applies before the first cell and
// refuses changes afterwards. Runs in a child so this process's pool is untouched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function child(body) {
  const script = `const addon = require(${JSON.stringify(join(root, 'index.js'))});
(async () => { const out = {}; ${body}; console.log(JSON.stringify(out)); })().catch((e) => { console.log(JSON.stringify({ crashed: String(e) })); });`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30000 });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').pop());
}

test('workerThreads set before the first cell is used, and later changes are refused', () => {
  const out = child(`
    addon.configureCodeModeRuntime({ workerThreads: 3, maxSuspendedRuns: 10 });
    const s = new addon.CodeModeSession({ sessionId: 'rt' });
    out.first = (await s.exec({ code: 'return 1' })).value;
    try { addon.configureCodeModeRuntime({ workerThreads: 5 }); out.second = 'accepted'; } catch (e) { out.second = e.message; out.code = e.code; }
  `);
  assert.equal(out.first, 1);
  assert.match(out.second, /before the first session runs a cell/);
  assert.equal(out.code, 'invalid_input', 'misuse carries the documented code');
});

test('invalid runtime settings are refused with a clear message', () => {
  const out = child(`
    for (const bad of [{ workerThreads: 0 }, { workerThreads: 1.5 }, { workerThreads: 'x' }, { maxSuspendedRuns: 0 }]) {
      try { addon.configureCodeModeRuntime(bad); out[JSON.stringify(bad)] = 'accepted'; } catch (e) { out[JSON.stringify(bad)] = [e.code, e.message]; }
    }
  `);
  for (const [input, answer] of Object.entries(out)) {
    assert.notEqual(answer, 'accepted', input);
    const [code, message] = answer;
    assert.equal(code, 'invalid_input', input);
    assert.match(message, /workerThreads|maxSuspendedRuns/, input);
  }
});

test('options that are not an object are refused with invalid_input', () => {
  const out = child(`
    for (const bad of ['x', 3, null, [1]]) {
      try { addon.configureCodeModeRuntime(bad); out[JSON.stringify(bad)] = 'accepted'; } catch (e) { out[JSON.stringify(bad)] = e.code; }
    }
  `);
  assert.deepEqual(Object.values(out), ['invalid_input', 'invalid_input', 'invalid_input', 'invalid_input'], JSON.stringify(out));
});

test('transformTypeScript returns code, or an error with a position', () => {
  const { transformTypeScript } = createRequire(import.meta.url)(join(root, 'index.js'));
  const ok = transformTypeScript('const x: number = 1; return x');
  assert.match(ok.code, /const x = 1/);
  const bad = transformTypeScript('const x: = 1');
  assert.equal(typeof bad.error, 'string');
  assert.equal(bad.line, 1);
});
