// An idle sandbox process is cheap: one holding only parked runs has at most two threads
// (the main thread and one executor), its runs resume after it trimmed its memory, and one
// session's cells still run side by side through its single executor (docs/design.md:
// The sandbox process). Its allocator arenas are small, and a large guest heap still fits.
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
  // Parked by a yield with the held call in flight: a short timeoutMs to park at the deadline
  // would also cut the first cell, which starts the process, on a loaded machine.
  const { session, pid } = await sandboxedSession({ tools: [held.tool], limits: { timeoutMs: 60_000 } });
  const first = await run(session, 'const p = held(); await yield_control("park"); const v = await p; return "got " + v');
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

// The sandbox sets mimalloc's arena size before its first allocation (src/bin): a 1 GiB
// arena's bookkeeping alone kept ~180 KB resident in every process (bench/README.md).
test('a sandbox reserves its allocator arenas small: no private writable mapping of 1 GiB', { skip: !supported }, async () => {
  const { session, pid } = await sandboxedSession({});
  assert.equal((await run(session, 'return Array.from({ length: 1000 }, (_, i) => "v" + i).length')).value, 1000);
  const large = readFileSync(`/proc/${pid}/maps`, 'utf8')
    .split('\n')
    .map((line) => /^([0-9a-f]+)-([0-9a-f]+) rw-p /.exec(line))
    .filter(Boolean)
    .filter(([, start, end]) => BigInt(`0x${end}`) - BigInt(`0x${start}`) >= 1n << 30n);
  assert.deepEqual(large.map(([line]) => line), []);
});

const MiB = 2 ** 20;

test('a guest heap of about 400 MB completes in a sandbox whose arenas start small', { skip: !supported }, async () => {
  const { session, pid } = await sandboxedSession({ limits: { memoryLimitBytes: 512 * MiB, timeoutMs: 120_000 } });
  // 384 MiB of touched typed arrays (more than ten 32 MiB arenas) and 200,000 small objects.
  const r = await run(
    session,
    `const keep = [];
     for (let i = 0; i < 48; i++) keep.push(new Uint8Array(8 << 20).fill(i));
     const small = Array.from({ length: 200000 }, (_, i) => ({ i, s: "v" + i }));
     return keep.reduce((n, b) => n + b[b.length - 1], 0) + small.length;`,
  );
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 1128 + 200000);
  assert.ok(r.telemetry.run.peakHeapBytes > 400 * MiB, `peak heap ${r.telemetry.run.peakHeapBytes}`);
  assert.equal((await run(session, 'return "alive"')).value, 'alive');
  assert.ok(sandboxChildren(process.pid).includes(pid), 'the same sandbox process serves on');
});

test('a guest that fills its 512 MiB limit in a sandbox with small arenas fails with memory_limit_exceeded, and the process serves on', { skip: !supported }, async () => {
  const { session, pid } = await sandboxedSession({ limits: { memoryLimitBytes: 512 * MiB, timeoutMs: 120_000 } });
  const r = await run(session, 'const keep = []; for (;;) keep.push(new Uint8Array(4 << 20).fill(1));');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'memory_limit_exceeded', show(r));
  assert.ok(r.telemetry.run.peakHeapBytes > 500 * MiB, `peak heap ${r.telemetry.run.peakHeapBytes}`);
  assert.equal((await run(session, 'return "alive"')).value, 'alive');
  assert.ok(sandboxChildren(process.pid).includes(pid), 'the same sandbox process serves on');
});
