// Containment of guests that never reach QuickJS's interrupt handler (huge sparse-array
// built-ins, huge BigInt printing): every exec and wait is answered by its deadline or
// abort plus the watchdog's grace, a replacement worker keeps the pool serving, and the
// stuck threads are counted. Runs in a child process, where those threads die with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { ADDON_PATH } from './_helpers.mjs';

const here = dirname(fileURLToPath(import.meta.url));

function runChild(fixture) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, 'fixtures', fixture), ADDON_PATH], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    // A hang guard only: the child finishes in seconds.
    const guard = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      if (code !== 0) return reject(new Error(`child ended with ${code ?? signal}: ${err}`));
      resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}

const seen = await runChild('stuck-builtins.mjs');
const dry = await runChild('exhausted-pool.mjs');
// The message names the limit each fixture's session had.
const TIMEOUT = (timeoutMs) => ({ status: 'failed', code: 'timeout', error: `code mode timeout exceeded (timeoutMs ${timeoutMs})` });
const ABORTED = { status: 'failed', code: 'aborted', error: 'code mode execution aborted' };

test('cells stuck in built-ins that never reach the interrupt handler time out', () => {
  for (const [name, result] of Object.entries(seen.stuck)) assert.deepEqual(result, TIMEOUT(300), name);
});

test('other sessions are served while every worker is stuck', () => {
  assert.equal(seen.bystander.status, 'completed', JSON.stringify(seen.bystander));
  assert.equal(seen.bystanderValue, 42);
  assert.deepEqual(seen.later, [0, 1, 2, 3, 4, 5, 6, 7]);
});

test('stuck threads are counted (thread mode) or their sandbox processes killed (process mode), and the pool keeps its configured healthy workers', () => {
  if (seen.stats.isolation === 'process') {
    // The stuck guests died with their session's sandbox process: no worker was stuck.
    assert.equal(seen.statsAfterStuck.stuckWorkers, 0, JSON.stringify(seen.statsAfterStuck));
  } else {
    assert.ok(seen.statsAfterStuck.stuckWorkers >= 2, JSON.stringify(seen.statsAfterStuck));
  }
  assert.equal(seen.healthyWorkers, true, JSON.stringify(seen.stats));
  assert.equal(seen.stats.parkedRuns, 0, JSON.stringify(seen.stats));
});

test('a TypeScript source whose parse explodes is refused by the front-end budget, in a cell and in the helpers', () => {
  const TOO_COMPLEX = /^code is too complex to parse: its parse ran over the front-end's memory budget/;
  // The cell: refused long before its 60 s deadline, and its session goes on.
  assert.equal(seen.typescriptParse.status, 'failed');
  assert.equal(seen.typescriptParse.code, 'invalid_input');
  assert.match(seen.typescriptParse.error, TOO_COMPLEX);
  assert.equal(seen.afterParse, 2);
  // transformTypeScript() says so, and the next call is served.
  assert.match(seen.transformSlow.error, TOO_COMPLEX);
  assert.deepEqual(seen.transformAfter, { code: 'const n = 1;\nreturn n;\n' });
  // redactSource falls back to its text layers: the token mask still applies.
  assert.ok(seen.redactSlow.startsWith('const API_TOKEN = "[REDACTED]"; return 1 < a<a<'), seen.redactSlow.slice(0, 80));
  // With eight stopped helpers out, no more start: the transform says so and
  // redactSource keeps to its text layers (a name-based mask needs the parse).
  assert.match(seen.transformBusy.error, /^typescript transform is unavailable/);
  assert.equal(seen.redactBusy, 'const API_TOKEN = "abc"; return 1');
});

test('a long BigInt toString does not overrun a short deadline unanswered', () => {
  assert.deepEqual(seen.bigintToString, TIMEOUT(100));
});

test('an abort or close() answers a cell stuck in a built-in', () => {
  assert.deepEqual(seen.abort, ABORTED);
  assert.deepEqual(seen.close, ABORTED);
});

test('a resumed run stuck in a built-in answers its wait', () => {
  assert.equal(seen.parked, 'waiting');
  assert.deepEqual(seen.resumed, TIMEOUT(300));
});

test('with every worker stuck and no replacement allowed, new cells are refused and calls under way still answer', () => {
  assert.deepEqual(dry.stuck, TIMEOUT(200));
  assert.equal(dry.oneStuck, true, JSON.stringify(dry.stats));
  const NO_FREE_WORKER = /^code mode runtime has no free worker: 1 worker threads are stuck in guest built-ins that never return, and maxStuckWorkers \(0\) allows no more replacements/;
  assert.equal(dry.refused.code, 'runtime_unavailable', JSON.stringify(dry.refused));
  assert.match(dry.refused.error, NO_FREE_WORKER);
  // A cell whose tool answered after the pool ran dry, and a parked run resumed then: both
  // are answered by their deadline plus the watchdog's grace.
  assert.equal(dry.awaiting.code, 'runtime_unavailable', JSON.stringify(dry.awaiting));
  assert.match(dry.awaiting.error, NO_FREE_WORKER);
  assert.equal(dry.parked, 'waiting');
  assert.equal(dry.resumed.code, 'runtime_unavailable', JSON.stringify(dry.resumed));
  assert.equal(dry.stats.stuckWorkers, 1, JSON.stringify(dry.stats));
  assert.equal(dry.stats.parkedRuns, 0, JSON.stringify(dry.stats));
});
