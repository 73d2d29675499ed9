// Each Node environment's event loop reads its sandboxes' sockets itself (issue 36, "a tool
// call wakes two threads"): a worker thread's loop serves its own sandboxes, terminating it
// leaves the gateway working, and a busy Node thread stalls no other thread's sandboxes and
// gets its own served meanwhile (the poller thread steps in), so their timeouts still hold.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { readdirSync, readFileSync } from 'node:fs';
import { ADDON_PATH, makeSession, closeAll, run, show } from './_helpers.mjs';
import { sandboxChildren, until } from './_processes.mjs';

const supported = process.platform === 'linux' || process.platform === 'darwin';
// The tests that read /proc.
const linux = process.platform === 'linux';
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

// A turn of the Node thread wakes the sessions whose letters it posted itself, without
// their threadsafe functions: several sessions' calls read in one turn each reach their
// own tool, and their cells' results settle.
test('tool calls several sessions\' sandboxes send at once each reach their own session\'s tool', { skip: !supported }, async () => {
  const who = (name) => ({ name: 'who', description: 'who', parameters: { type: 'object' }, execute: async ({ i }) => ({ name, i }) });
  // Three sessions share one sandbox process (their frames come over one socket), two have their own.
  const names = ['g1', 'g2', 'g3', 'own1', 'own2'];
  const sessions = names.map((name) => makeSession({ isolation: 'process', ...(name.startsWith('g') ? { sandboxGroup: `turn-${process.pid}` } : {}), tools: [who(name)] }));
  const code = 'const all = await Promise.all(Array.from({ length: 50 }, (_, i) => who({ i }))); return all.map((r) => r.name + ":" + r.i).join(",")';
  const results = await Promise.all(sessions.map((session) => run(session, code)));
  results.forEach((r, k) => {
    assert.equal(r.status, 'completed', show(r));
    assert.equal(r.value, Array.from({ length: 50 }, (_, i) => `${names[k]}:${i}`).join(','));
  });
});

// A named group's sandbox is served by the hub of the env that started it: a worker
// thread's session in it gets its letters through its own threadsafe function.
test('a worker thread\'s session in a sandbox group the main thread started gets its tool calls', { skip: !supported }, async () => {
  const group = `shared-env-${process.pid}`;
  const add = { name: 'add', description: 'add', parameters: { type: 'object' }, execute: async ({ a, b }) => ({ sum: a + b }) };
  const main = makeSession({ isolation: 'process', sandboxGroup: group, tools: [add] });
  const first = await run(main, ADD_LOOP);
  assert.equal(first.value, 20_100, show(first));
  const worker = new Worker(`
const { parentPort, workerData } = require('node:worker_threads');
const { CodeModeSession } = require(workerData.addon);
const session = new CodeModeSession({ sessionId: 'worker-in-group', isolation: 'process', sandboxGroup: workerData.group,
  tools: [{ name: 'add', description: 'add', parameters: { type: 'object' }, execute: async ({ a, b }) => ({ sum: a + b }) }] });
session.exec({ code: workerData.code }).then(async (r) => { await session.close(); parentPort.postMessage({ status: r.status, value: r.value }); });
`, { eval: true, workerData: { addon: ADDON_PATH, group, code: ADD_LOOP } });
  const answer = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  assert.deepEqual(answer, { status: 'completed', value: 20_100 });
  await worker.terminate();
  // Both envs' sessions go on working in the group.
  const again = await run(main, ADD_LOOP);
  assert.equal(again.value, 20_100, show(again));
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

// A worker whose one process-mode session floods the gateway with tool calls (50 at a
// time, 1 KB inputs, for ever) and says so once 100 have reached its tool.
const FLOODER = `
const { parentPort, workerData } = require('node:worker_threads');
const { CodeModeSession } = require(workerData.addon);
let calls = 0;
const session = new CodeModeSession({
  sessionId: 'flooder',
  isolation: 'process',
  limits: { timeoutMs: 600_000 },
  tools: [{ name: 'add', description: 'add', parameters: { type: 'object' }, execute: async ({ a, b }) => {
    if (++calls === 100) parentPort.postMessage('flooding');
    return { sum: a + b.length };
  } }],
});
session.exec({ code: 'for (;;) await Promise.all(Array.from({ length: 50 }, (_, i) => add({ a: i, b: "x".repeat(1000) })))' });
`;

/** This process's sandboxes that `before` did not hold, zombies included. */
const newSandboxes = (before) => sandboxChildren(process.pid).filter((pid) => !before.includes(pid));
const openFds = () => readdirSync('/proc/self/fd').length;
/** Each pid with its state letter (Z: a zombie, not reaped), for a failure's message. */
const states = (pids) =>
  pids.map((pid) => {
    try {
      return `${pid}:${readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0]}`;
    } catch {
      return `${pid}:gone`;
    }
  });

/** Starts a flooding worker, terminates it mid-flood, and waits until its sandbox is reaped. */
async function floodAndTerminate() {
  const before = sandboxChildren(process.pid);
  const worker = new Worker(FLOODER, { eval: true, workerData: { addon: ADDON_PATH } });
  const flooding = new Promise((resolve) => worker.once('message', resolve));
  assert.equal(await flooding, 'flooding');
  const its = newSandboxes(before);
  assert.equal(its.length, 1, `the worker's session runs in one sandbox: ${its}`);
  await worker.terminate();
  // Killed and reaped by the poller thread, which took the worker's hub over: no zombie.
  const reaped = await until(() => newSandboxes(before).length === 0);
  assert.ok(reaped, `the terminated worker's sandbox ${its} is still a child: ${states(newSandboxes(before))}`);
}

test('a worker terminated mid-flood hands its sandbox to the poller thread, which reaps it, and its hub\'s fds go', { skip: !linux }, async () => {
  // The first round starts what lives as long as the gateway (its poller, its threads).
  await floodAndTerminate();
  const fds = openFds();
  for (let round = 0; round < 3; round++) await floodAndTerminate();
  const released = await until(() => openFds() <= fds);
  assert.ok(released, `open fds grew from ${fds} to ${openFds()} over three workers`);
  // The main thread's sandboxes are served as before.
  const session = makeSession({ isolation: 'process', tools: [{ name: 'add', description: 'add', parameters: { type: 'object' }, execute: async ({ a, b }) => ({ sum: a + b }) }] });
  assert.equal((await run(session, ADD_LOOP)).value, 20_100);
});

test('a worker whose session is idle ends by itself, and its sandbox is reaped', { skip: !linux }, async () => {
  const before = sandboxChildren(process.pid);
  // Nothing keeps its loop alive once the cell has answered: not the session, not the poll
  // handle on its hub (unreferenced).
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const { CodeModeSession } = require(workerData.addon);
     const session = new CodeModeSession({ sessionId: 'idle', isolation: 'process' });
     session.exec({ code: 'return 7' }).then((r) => parentPort.postMessage(r.value));`,
    { eval: true, workerData: { addon: ADDON_PATH } },
  );
  const answered = new Promise((resolve) => worker.once('message', resolve));
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  assert.equal(await answered, 7);
  assert.equal(await exited, 0);
  const reaped = await until(() => newSandboxes(before).length === 0);
  assert.ok(reaped, `the ended worker's sandbox is still a child: ${states(newSandboxes(before))}`);
});
