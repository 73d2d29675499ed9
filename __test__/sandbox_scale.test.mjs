// Many sandbox processes, one gateway (issue 36): every sandbox is served by one poller
// thread through one socket, so parking a run in each of N sandboxes costs the gateway no
// thread per process and one descriptor each (it was a reader thread and five).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { makeSession, closeAll, run, show, eventually, native } from './_helpers.mjs';

const SESSIONS = 200;
const linux = process.platform === 'linux';

// Parked runs are capped process-wide (64 by default).
native.configureCodeModeRuntime({ maxSuspendedRuns: 10_000 });
after(closeAll);

const threads = () => Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
const fds = () => readdirSync('/proc/self/fd').length;

test(`${SESSIONS} sessions each parking a run in its own sandbox add no gateway thread per sandbox and one descriptor each`, { skip: !linux }, async () => {
  // The first sandbox starts the gateway's lasting threads (spawner, poller, workers).
  const warm = makeSession({ isolation: 'process', limits: { timeoutMs: 60_000 } });
  assert.equal((await run(warm, 'return 1')).value, 1);
  const before = { threads: threads(), fds: fds() };
  const sessions = Array.from({ length: SESSIONS }, () => makeSession({ isolation: 'process', limits: { timeoutMs: 60_000 } }));
  const parked = await Promise.all(sessions.map((s, i) => run(s, `const got = await yield_control("p"); return [${i}, got.status]`)));
  for (const r of parked) assert.equal(r.status, 'waiting', show(r));
  const during = { threads: threads(), fds: fds() };
  assert.ok(during.threads - before.threads <= 8, `threads grew from ${before.threads} to ${during.threads} for ${SESSIONS} sandboxes`);
  assert.ok(during.fds - before.fds <= SESSIONS + 16, `descriptors grew from ${before.fds} to ${during.fds} for ${SESSIONS} sandboxes`);
  const resumed = await Promise.all(sessions.map((s, i) => s.wait({ runId: parked[i].runId })));
  resumed.forEach((r, i) => assert.deepEqual(r.value, [i, 'yielded'], show(r)));
});

test('closing the sessions ends their sandboxes and gives their descriptors back', { skip: !linux }, async () => {
  const before = fds();
  const sessions = Array.from({ length: 20 }, () => makeSession({ isolation: 'process', limits: { timeoutMs: 60_000 } }));
  await Promise.all(sessions.map((s) => run(s, 'return 1')));
  assert.ok(fds() > before, 'each sandbox holds a socket');
  await Promise.all(sessions.map((s) => s.close()));
  // Reaping happens on the poller thread soon after: wait on the condition, not a time.
  await eventually(() => fds() <= before, 'the sandboxes\' sockets closed');
});
