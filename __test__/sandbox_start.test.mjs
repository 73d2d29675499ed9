// A session's first cell in process mode starts its sandbox process; its clock stands
// still until that process has started, so a start slowed by a busy machine costs no cell
// its `timeoutMs` (a burst of new conversations loses none to start-up). The start is held
// up by the fake sandbox of fixtures/hostile-sandbox.mjs, which keeps the real sandbox's
// `Ready` frame until the test says `go`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFixture, until } from './_processes.mjs';
import { fakeLogs, fakeSandbox, sayGo } from './fixtures/hostile-log.mjs';

const skip =
  (process.platform !== 'linux' && 'Linux only: the fake sandbox relies on setpriv and /proc') ||
  (process.env.CODEMODE_NATIVE_ISOLATION === 'thread' && 'runs in the process-mode pass of npm test');
const TIMEOUT_MS = 100;

/** A fake sandbox whose start is held until `go`, and the folder of its logs. */
function heldSandbox() {
  const sandbox = fakeSandbox('codemode-start-');
  writeFileSync(join(sandbox.dir, 'hold-ready'), '');
  return sandbox;
}

const events = (dir) => fakeLogs(dir).flatMap((log) => log.events);
const held = (dir) => events(dir).some((e) => e.event === 'ready-held');

/** Starts the gateway fixture and waits until its sandbox's start is being held. */
async function gatewayWithHeldStart() {
  const sandbox = heldSandbox();
  const gateway = startFixture('start-gateway.mjs', [String(TIMEOUT_MS)], { CODEMODE_NATIVE_SANDBOX: sandbox.wrapper }, { input: true });
  assert.ok(await until(() => held(sandbox.dir)), 'the fake sandbox never held a start');
  return { ...gateway, dir: sandbox.dir };
}

/** Resolves once the cell's whole `timeoutMs` (and more) has gone by since it was called. */
const pastTheBudget = () => new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS * 3));

test('a first cell whose sandbox takes longer to start than its timeoutMs completes', { skip }, async () => {
  const { dir, firstLine, exit } = await gatewayWithHeldStart();
  try {
    await pastTheBudget();
    sayGo(dir);
    const result = await firstLine;
    assert.deepEqual(result, { status: 'completed', value: 2 });
    // The held frame was the sandbox's first, and the gateway sent its first command only
    // after the start was over.
    const seen = events(dir);
    assert.equal(seen.find((e) => e.event === 'ready-held').kind, 'Ready');
    const released = seen.findIndex((e) => e.event === 'ready-released');
    const firstCommand = seen.findIndex((e) => e.event === 'frame' && e.dir === 'up');
    assert.ok(released >= 0 && firstCommand > released, JSON.stringify(seen.slice(0, 8)));
    assert.equal((await exit).code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an exec aborted while its sandbox starts ends aborted without waiting for the start', { skip }, async () => {
  const { dir, child, firstLine, exit } = await gatewayWithHeldStart();
  try {
    child.stdin.write('abort\n');
    const result = await firstLine;
    assert.equal(result.status, 'failed');
    assert.equal(result.code, 'aborted', JSON.stringify(result));
    // The start was never let go: the answer did not wait for it.
    assert.ok(!events(dir).some((e) => e.event === 'ready-released'));
    sayGo(dir);
    assert.equal((await exit).code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
