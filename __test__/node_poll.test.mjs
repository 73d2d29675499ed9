// Each Node environment's event loop reads its sandboxes' sockets itself (issue 36, "a tool
// call wakes two threads"): a worker thread's loop serves its own sandboxes, terminating it
// leaves the gateway working, and a busy Node thread stalls no other thread's sandboxes and
// gets its own served meanwhile (the poller thread steps in), so their timeouts still hold.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { ADDON_PATH, makeSession, closeAll, run, show } from './_helpers.mjs';

const supported = process.platform === 'linux' || process.platform === 'darwin';
after(closeAll);

// A worker that makes a process-mode session with an `add` tool and runs `code` in it
// for each message; `flag[0]` is set once it has answered `rounds` messages.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { CodeModeSession } = require(workerData.addon);
const session = new CodeModeSession({
  sessionId: 'worker',
  isolation: 'process',
  limits: { timeoutMs: workerData.timeoutMs },
  tools: [
    { name: 'add', description: 'add', parameters: { type: 'object' }, execute: async ({ a, b }) => ({ sum: a + b }) },
    { name: 'hang', description: 'hang', parameters: { type: 'object' }, execute: () => { parentPort.postMessage({ hanging: true }); return new Promise(() => {}); } },
  ],
});
const flag = new Int32Array(workerData.flag);
// One cell at a time, in the order sent.
let queue = Promise.resolve();
parentPort.on('message', ({ code }) => {
  queue = queue.then(async () => {
    const r = await session.exec({ code });
    parentPort.postMessage({ status: r.status, code: r.code, value: r.value });
    Atomics.add(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
});
`;

function startWorker(timeoutMs = 60_000) {
  const flag = new SharedArrayBuffer(4);
  const worker = new Worker(WORKER, { eval: true, workerData: { addon: ADDON_PATH, flag, timeoutMs } });
  const messages = [];
  const waiters = [];
  worker.on('message', (m) => (waiters.length ? waiters.shift()(m) : messages.push(m)));
  const next = () => (messages.length ? Promise.resolve(messages.shift()) : new Promise((r) => waiters.push(r)));
  return { worker, flag: new Int32Array(flag), next };
}

const ADD_LOOP = 'let s = 0; for (let i = 0; i < 200; i++) s += (await add({ a: i, b: 1 })).sum; return s';

test('a worker thread\'s loop serves its own sandboxes, and terminating it mid-call leaves the gateway working', { skip: !supported }, async () => {
  const { worker, next } = startWorker();
  worker.postMessage({ code: ADD_LOOP });
  const first = await next();
  assert.equal(first.status, 'completed', JSON.stringify(first));
  assert.equal(first.value, 20_100);
  // A call the worker never answers: its sandbox is mid-turn when the worker goes.
  worker.postMessage({ code: 'await hang({}); return 1' });
  assert.deepEqual(await next(), { hanging: true });
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  await worker.terminate();
  await exited;
  // The main thread's sandboxes are served as before.
  const session = makeSession({ isolation: 'process', tools: [{ name: 'add', description: 'add', parameters: { type: 'object' }, execute: async ({ a, b }) => ({ sum: a + b }) }] });
  const r = await run(session, ADD_LOOP);
  assert.equal(r.value, 20_100, show(r));
});

test('a busy main thread neither stalls a worker\'s sandboxes nor makes its own sandbox\'s timeout fail', { skip: !supported }, async () => {
  const { worker, flag, next } = startWorker(3_000);
  worker.postMessage({ code: 'return 1' });
  assert.equal((await next()).value, 1);
  // The main thread's own cell keeps asking for timers until its timeout: its frames must
  // be read while this thread is busy, or the sandbox looks stopped and is killed.
  const session = makeSession({ isolation: 'process', limits: { timeoutMs: 2_500 } });
  assert.equal((await run(session, 'return 1')).value, 1);
  const own = session.exec({ code: 'for (;;) await new Promise((r) => setTimeout(r, 1))' });
  // The worker's cells: tool calls, then one that runs into its timeout, which outlasts
  // the sandbox's stall judgement (2 s) while this thread spins.
  worker.postMessage({ code: ADD_LOOP });
  worker.postMessage({ code: 'for (;;) {}' });
  // Busy: a synchronous loop until the worker has answered both (a condition, not a time).
  while (Atomics.load(flag, 0) < 3) Atomics.wait(flag, 0, Atomics.load(flag, 0), 1000);
  const added = await next();
  assert.equal(added.status, 'completed', JSON.stringify(added));
  assert.equal(added.value, 20_100);
  const timedOut = await next();
  assert.equal(timedOut.code, 'timeout', JSON.stringify(timedOut));
  // Its timeout came with a timer pending, so the run parks: not killed as stalled.
  const mine = await own;
  assert.equal(mine.status, 'waiting', show(mine));
  assert.equal(mine.reason, 'pending_tools', show(mine));
  await worker.terminate();
  assert.equal((await run(session, 'return 2')).value, 2, 'the main thread\'s sandbox still works');
});
