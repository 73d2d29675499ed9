// An idle sandbox process is cheap: one holding only parked runs has at most two threads
// (the main thread and one executor), its runs resume after it trimmed its memory, and one
// session's cells still run side by side through its single executor (docs/design.md:
// The sandbox process).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { makeSession, closeAll, run, show, heldTool, drain } from './_helpers.mjs';
import { sandboxChildren, threadStates, until } from './_processes.mjs';

const supported = process.platform === 'linux';

after(closeAll);

const threads = (pid) => Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

/** A process-mode session with its sandbox started; resolves with both. */
async function sandboxedSession(options) {
  const before = new Set(sandboxChildren(process.pid));
  const session = makeSession({ isolation: 'process', ...options });
  assert.equal((await run(session, 'return 1')).value, 1);
  const started = sandboxChildren(process.pid).filter((pid) => !before.has(pid));
  assert.equal(started.length, 1, `one new sandbox process, saw ${started}`);
  return { session, pid: started[0] };
}

/**
 * Once idle, the reading executor trims and then blocks in `read` on the pipe with no time
 * limit; before, it waits in `poll`. Where the kernel shows no wait channels this only
 * waits out the cap, and the tests still check what they assert.
 */
const trimmed = (pid) => until(() => threadStates(pid).some((state) => /pipe_read$/.test(state)), 15_000);

test('a sandbox holding only a parked run has at most 2 threads, and the run resumes after the idle trim', { skip: !supported }, async () => {
  const held = heldTool('held', 'late');
  const { session, pid } = await sandboxedSession({ tools: [held.tool], limits: { timeoutMs: 100 } });
  const first = await run(session, 'const v = await held(); return "got " + v');
  assert.equal(first.status, 'waiting', show(first));
  assert.ok(await until(() => threads(pid) <= 2), `threads: ${threadStates(pid).join(' ')}`);
  await trimmed(pid);
  assert.ok(threads(pid) <= 2, `threads: ${threadStates(pid).join(' ')}`);
  held.release();
  const done = await drain(session, await session.wait({ runId: first.runId }));
  assert.equal(done.status, 'completed', show(done));
  assert.equal(done.value, 'got late');
  // A new cell after the trim makes its VM again.
  assert.equal((await run(session, 'return [1, 2].map((n) => n * 2)')).value.join(), '2,4');
  assert.ok(threads(pid) <= 2, `threads: ${threadStates(pid).join(' ')}`);
});

test('two cells at once in one session: one computes while the other is resumed, neither is lost', { skip: !supported }, async () => {
  const held = heldTool('held', 'resumed');
  const { session } = await sandboxedSession({ tools: [held.tool], limits: { timeoutMs: 60_000 } });
  const waiting = run(session, 'const v = await held(); return v');
  await held.called;
  const computing = run(session, 'let x = 0; for (let i = 0; i < 2e6; i++) x = (x + i) % 1000003; return x');
  held.release();
  const [first, second] = await Promise.all([waiting, computing]);
  assert.equal(first.status, 'completed', show(first));
  assert.equal(first.value, 'resumed');
  assert.equal(second.status, 'completed', show(second));
  assert.equal(typeof second.value, 'number');
});

test('two cells at once in one session, each asking the gateway synchronously while the other computes', { skip: !supported }, async () => {
  const tools = [{ name: 'weather', description: 'the weather in a city', execute: ({ city }) => `sunny in ${city}` }];
  const { session, pid } = await sandboxedSession({ tools, limits: { timeoutMs: 60_000 } });
  const cell = (city) =>
    run(session, `let x = 0; for (let i = 0; i < 1e6; i++) x = (x + i) % 7; const [w] = await catalog.search("weather"); return await w({ city: ${JSON.stringify(city)} })`);
  const results = await Promise.all([cell('Oslo'), cell('Lima'), cell('Pune')]);
  assert.deepEqual(results.map((r) => r.value), ['sunny in Oslo', 'sunny in Lima', 'sunny in Pune'], results.map(show).join('\n'));
  assert.ok(threads(pid) <= 2, `threads: ${threadStates(pid).join(' ')}`);
});
