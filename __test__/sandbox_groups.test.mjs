// Sandbox processes by trust group (docs/security.md, "Sandbox groups"): sessions naming one
// `sandboxGroup` share processes, others never do; processes are capped and end when idle.
// The runtime settings here are process-wide: node --test runs this file in its own process.
import { test, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { makeSession, closeAll, show, heldTool, native } from './_helpers.mjs';
import { sandboxChildren, alive, until } from './_processes.mjs';

const { configureCodeModeRuntime, codeModeRuntimeStats } = native;
const linux = process.platform === 'linux';

after(closeAll);
afterEach(async () => {
  await closeAll();
  configureCodeModeRuntime({ sandboxGroup: null, maxSandboxProcesses: 65536, sandboxIdleMs: 30000 });
});

const pids = () => new Set(sandboxChildren(process.pid));

/** A process-mode session in `group` whose run parks on a held tool; `started` holds the pids its cell started. */
async function parked(group) {
  const held = heldTool('hold', 'released');
  const session = makeSession({ isolation: 'process', tools: [held.tool], ...(group ? { sandboxGroup: group } : {}) });
  const before = pids();
  // Parked by a yield while the held call is in flight: parking at the deadline would
  // cost each session its whole timeoutMs.
  const first = await session.exec({ code: 'const p = hold({}); await yield_control("park"); return await p' });
  assert.equal(first.status, 'waiting', show(first));
  const started = [...pids()].filter((pid) => !before.has(pid));
  return { session, held, runId: first.runId, started };
}

async function finish({ session, held, runId }) {
  held.release();
  const done = await session.wait({ runId });
  assert.equal(done.status, 'completed', show(done));
  assert.equal(done.value, 'released');
}

test('sessions naming one group share a process; other groups and ungrouped sessions get their own', { skip: !linux }, async () => {
  const a1 = await parked('tenant-a');
  const a2 = await parked('tenant-a');
  const b = await parked('tenant-b');
  const u1 = await parked();
  const u2 = await parked();
  assert.equal(a1.started.length, 1, 'the group started one process');
  assert.deepEqual(a2.started, [], 'the second session of the group joined its process');
  for (const [name, runs] of [['tenant-b', b], ['an ungrouped session', u1], ['another ungrouped session', u2]]) {
    assert.equal(runs.started.length, 1, `${name} started a process of its own`);
  }
  const all = [a1, b, u1, u2].map((runs) => runs.started[0]);
  assert.equal(new Set(all).size, 4, 'four distinct processes');
  for (const runs of [a1, a2, b, u1, u2]) await finish(runs);
});

test('a crashed group process loses only its own group\'s runs', { skip: !linux }, async () => {
  const a1 = await parked('crash-a');
  const a2 = await parked('crash-a');
  const b = await parked('crash-b');
  const u = await parked();
  process.kill(a1.started[0], 'SIGKILL');
  for (const lost of [a1, a2]) {
    // A parked run of the dead process answers invalid_input; a wait that resumed it before
    // the gateway read the process's end fails as a running cell does (docs/security.md).
    const answer = await lost.session.wait({ runId: lost.runId });
    assert.equal(answer.status, 'failed', show(answer));
    assert.ok(['invalid_input', 'internal_error'].includes(answer.code), show(answer));
    assert.match(answer.error, /SIGKILL/, show(answer));
  }
  await finish(b);
  await finish(u);
  // The group starts a fresh process for its next cell.
  const again = await a1.session.exec({ code: 'return 7' });
  assert.equal(again.value, 7, show(again));
});

test('many sessions of one group park in few processes and all resume at once', { skip: !linux }, async () => {
  const before = pids();
  const runs = [];
  for (let i = 0; i < 24; i++) runs.push(await parked('crowd'));
  const started = [...pids()].filter((pid) => !before.has(pid));
  assert.ok(started.length <= 2, `24 parked sessions of one group hold ${started.length} processes`);
  await Promise.all(runs.map(finish));
});

test('the runtime default group applies to sessions that name none, and null clears it', { skip: !linux }, async () => {
  configureCodeModeRuntime({ sandboxGroup: 'whole-gateway' });
  const first = await parked();
  const second = await parked();
  assert.equal(first.started.length, 1);
  assert.deepEqual(second.started, [], 'both sessions share the default group\'s process');
  configureCodeModeRuntime({ sandboxGroup: null });
  const third = await parked();
  assert.equal(third.started.length, 1, 'after null, a session has its own process again');
  for (const runs of [first, second, third]) await finish(runs);
});

test('a process holding no run ends after sandboxIdleMs; one holding a parked run stays', { skip: !linux }, async () => {
  configureCodeModeRuntime({ sandboxIdleMs: 50 });
  const keeper = await parked();
  const idle = makeSession({ isolation: 'process' });
  const before = pids();
  assert.equal((await idle.exec({ code: 'return 1' })).value, 1);
  const [idlePid] = [...pids()].filter((pid) => !before.has(pid));
  assert.ok(idlePid, 'the cell started a process');
  assert.ok(await until(() => !alive(idlePid)), 'the idle process ended');
  assert.ok(alive(keeper.started[0]), 'the process holding a parked run lives on');
  await finish(keeper);
  // The next cell starts a process again.
  assert.equal((await idle.exec({ code: 'return 2' })).value, 2);
});

test('at maxSandboxProcesses a new session fails clearly, takes an idle process\'s place, or waits for a close', { skip: !linux }, async () => {
  configureCodeModeRuntime({ maxSandboxProcesses: 2 });
  assert.equal(codeModeRuntimeStats().maxSandboxProcesses, 2);
  const first = await parked();
  const idle = makeSession({ isolation: 'process' });
  assert.equal((await idle.exec({ code: 'return 1' })).value, 1);
  // The cap is reached; the idle process makes room.
  const second = await parked();
  assert.equal(second.started.length, 1);
  const refused = makeSession({ isolation: 'process' });
  const result = await refused.exec({ code: 'return 1' }).catch((error) => error);
  assert.equal(result.code, 'runtime_unavailable', show(result));
  assert.match(String(result.error ?? result.message), /maxSandboxProcesses/);
  await finish(first);
  await first.session.close();
  assert.equal((await refused.exec({ code: 'return 3' })).value, 3, 'a closed session\'s process made room');
  await finish(second);
});

test('sandboxGroup and the pool settings are checked', async () => {
  for (const sandboxGroup of [5, '', 'x'.repeat(257), {}]) {
    assert.throws(() => makeSession({ isolation: 'process', sandboxGroup }), (error) => {
      assert.equal(error.code, 'invalid_input');
      assert.match(error.message, /sandboxGroup must be a string/);
      return true;
    });
  }
  for (const bad of [{ maxSandboxProcesses: 0 }, { maxSandboxProcesses: 70000 }, { sandboxIdleMs: -1 }, { sandboxIdleMs: 'soon' }, { sandboxGroup: 3 }]) {
    assert.throws(() => configureCodeModeRuntime(bad), (error) => error.code === 'invalid_input', JSON.stringify(bad));
  }
  // Thread isolation accepts a group and has no process to share.
  const threaded = makeSession({ isolation: 'thread', sandboxGroup: 'ignored' });
  assert.equal((await threaded.exec({ code: 'return 4' })).value, 4);
});

