// Soak: many mixed cells (tools, timers, suspensions and waits, aborts, cancels, failures,
// timeouts, memory bombs) across sessions that are replaced as they go. Prints RSS every
// `every` cells and checks that it levels off: growth over the last half of the run must
// stay within `maxGrowthMb`. `npm run soak` runs 100,000 cells; __test__/soak.test.mjs
// runs a short version through `runSoak`.
//
//   node --expose-gc scripts/soak.mjs [cells] [maxGrowthMb]
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { seededRandom as random } from './seeded-random.mjs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const native = require(path.join(root, 'index.js'));
const { CodeModeSession } = native;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const tools = [
  { name: 'echo', execute: (input) => input },
  { name: 'slow', execute: async ({ ms }) => { await sleep(ms); return { ms }; } },
  { name: 'fail', execute: () => { throw new Error('soak tool failure'); } },
  {
    name: 'never',
    execute: (input, ctx) => {
      onNeverCall.get(input?.call)?.();
      return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(null)));
    },
  },
];

// `never({ call })` tells the cell that registered `call` that the guest is now waiting on
// the host, so the abort below comes mid-call whatever the machine's speed (a fixed delay
// could come after timeoutMs, when the cell has parked instead).
const onNeverCall = new Map();
let neverCalls = 0;
/** Runs `start()` and aborts `controller` once `never({ call })` is called (or it settled). */
async function abortWhenWaiting(controller, call, start) {
  const called = new Promise((resolve) => onNeverCall.set(call, resolve));
  const pending = start();
  try {
    await Promise.race([called, pending]);
  } finally {
    onNeverCall.delete(call);
  }
  controller.abort();
  return pending;
}

/**
 * [name, weight, run(session) → Promise<string | null>, deadline]: null when the outcome is
 * right. Cells whose outcome needs the deadline run in a lane's `strict` session (500 ms);
 * the rest in its `patient` one, whose deadline a loaded machine cannot reach with the few
 * milliseconds of work a cell does, so their outcome never depends on the machine's speed.
 */
const mix = [
  ['tool', 30, async (s) => expectValue(await s.exec({ code: 'return (await echo({ n: 1 })).n + 1' }), 2)],
  ['async tools', 14, async (s) => expectValue(await s.exec({ code: 'const [a, b] = await Promise.all([slow({ ms: 1 }), echo({ v: 2 })]); return a.ms + b.v' }), 3)],
  ['timers', 10, async (s) => expectValue(await s.exec({ code: 'const t = setTimeout(() => {}, 1000); clearTimeout(t); await new Promise((r) => setTimeout(r, 1)); text("t"); return 1' }), 1)],
  ['output', 5, async (s) => expectValue(await s.exec({ code: 'for (let i = 0; i < 50; i++) text("line " + i); json({ big: "x".repeat(2000) }); return [1, 2, 3]' }), [1, 2, 3])],
  ['yield + wait', 8, async (s) => {
    const first = await s.exec({ code: 'text("a"); const y = await yield_control("soak"); return y.status' });
    if (first.status !== 'waiting') return `yield: ${first.status}`;
    return expectValue(await drain(s, await s.wait({ runId: first.runId })), 'yielded');
  }],
  ['park + wait', 4, async (s) => {
    const first = await s.exec({ code: 'return (await slow({ ms: 600 })).ms' });
    // Waiting is the expected path. A starved guest that had not yet made the call when the
    // deadline came fails with timeout, as documented for a cell that is still computing.
    if (first.status === 'failed' && first.code === 'timeout') return null;
    return expectValue(await drain(s, first), 600);
  }, 'strict'],
  ['abort', 8, async (s) => {
    const controller = new AbortController();
    const call = ++neverCalls;
    const r = await abortWhenWaiting(controller, call, () => s.exec({ code: `await never({ call: ${call} }); return 1` }, { signal: controller.signal }));
    return expectAborted(s, r, controller);
  }],
  ['abort a wait', 2, async (s) => {
    const call = ++neverCalls;
    const first = await s.exec({ code: `await yield_control(); await never({ call: ${call} }); return 1` });
    if (first.status !== 'waiting') return `abort-wait: ${first.status}`;
    const controller = new AbortController();
    const r = await abortWhenWaiting(controller, call, () => s.wait({ runId: first.runId }, { signal: controller.signal }));
    return expectAborted(s, r, controller);
  }],
  ['cancelRun', 2, async (s) => {
    const first = await s.exec({ code: 'setTimeout(() => {}, 60000); await yield_control(); return 1' });
    if (first.status !== 'waiting') return `cancel: ${first.status}`;
    return s.cancelRun(first.runId) ? null : 'cancelRun returned false';
  }],
  ['guest failure', 8, async (s) => expectCode(await s.exec({ code: 'throw new Error("soak failure")' }), 'guest_error')],
  ['tool failure', 5, async (s) => expectCode(await s.exec({ code: 'await fail({})' }), 'tool_error')],
  ['rejection', 3, async (s) => expectCode(await s.exec({ code: 'Promise.reject(new Error("lost")); await echo({}); return 1' }), 'guest_error')],
  ['syntax', 1, async (s) => expectCode(await s.exec({ code: 'return (' }), 'invalid_input')],
  // Calls that never answer: an answered call leaves its slot, and in process mode an
  // answer can come while the guest is still making calls.
  ['queue overflow', 0.5, async (s) => expectCode(await s.exec({ code: 'for (let i = 0; i < 200; i++) never({ i })' }), 'invalid_input')],
  ['timeout', 0.1, async (s) => expectCode(await s.exec({ code: 'for (;;) {}' }), 'timeout'), 'strict'],
  ['memory', 0.1, async (s) => expectCode(await s.exec({ code: 'let s = "x"; for (;;) s += s' }), 'memory_limit_exceeded')],
];

function expectValue(result, value) {
  if (result.status !== 'completed') return `expected completed, got ${result.status}: ${result.error ?? ''}`;
  return JSON.stringify(result.value) === JSON.stringify(value) ? null : `value ${JSON.stringify(result.value)}`;
}

/**
 * An exec or wait aborted mid-call fails with `aborted`. On a loaded host it may instead
 * have parked at timeoutMs before the abort landed: a wait with the (now aborted) signal
 * then fails with `aborted` and leaves the run, which cancelRun drops.
 */
async function expectAborted(s, result, controller) {
  if (result.status !== 'waiting') return expectCode(result, 'aborted');
  const late = await s.wait({ runId: result.runId }, { signal: controller.signal });
  if (!s.cancelRun(result.runId)) return 'cancelRun after an aborted wait returned false';
  return expectCode(late, 'aborted');
}

function expectCode(result, code) {
  if (result.status !== 'failed') return `expected failed/${code}, got ${result.status}`;
  return result.code === code ? null : `expected ${code}, got ${result.code}: ${result.error}`;
}

/** The session with exec resolving only once any suspension was waited to its end. */
function drainingSession(session) {
  return {
    exec: async (input, options) => {
      const r = await session.exec(input, options);
      if (r.status !== 'waiting' || /yield_control|slow\(\{ ms: 130 \}\)|never\(\{ call/.test(input.code)) return r;
      return drain(session, r);
    },
    wait: (input, options) => session.wait(input, options),
    cancelRun: (id) => session.cancelRun(id),
  };
}

/** Waits while the result is `waiting`; the 600-wait cap only guards a hang. */
async function drain(session, result) {
  let r = result;
  for (let i = 0; i < 600 && r.status === 'waiting'; i++) r = await session.wait({ runId: r.runId });
  return r;
}

const rssMb = () => process.memoryUsage().rss / (1024 * 1024);

function sample() {
  if (typeof globalThis.gc === 'function') globalThis.gc();
  return rssMb();
}

let sessionCounter = 0;
function newSession(timeoutMs) {
  return new CodeModeSession({
    sessionId: `soak-${process.pid}-${++sessionCounter}`,
    tools,
    limits: { timeoutMs, memoryLimitBytes: 4 * 1024 * 1024, maxOutputBytes: 8192 },
  });
}

/** A lane's two sessions: `slow({ ms: 600 })` parks under the strict deadline. */
function newSessions() {
  return { patient: newSession(10_000), strict: newSession(500) };
}

/** Closes a lane's sessions, noting any parked run they still hold. */
async function closeSessions(sessions, wrong) {
  for (const session of Object.values(sessions)) {
    if (session.runs().length !== 0) wrong.push(`session left parked runs: ${JSON.stringify(session.runs())}`);
    await session.close();
  }
}

/**
 * Runs `cells` mixed cells on `lanes` concurrent lanes; each lane replaces its session
 * every `cellsPerSession` cells. Returns the RSS samples and the wrong outcomes.
 */
export async function runSoak({ cells = 100_000, every = 10_000, lanes = 24, cellsPerSession = 500, seed = 8, log = console.log } = {}) {
  const next = random(seed);
  const total = mix.reduce((sum, [, weight]) => sum + weight, 0);
  const pick = () => {
    let x = next() * total;
    for (const entry of mix) {
      x -= entry[1];
      if (x < 0) return entry;
    }
    return mix[0];
  };
  const counts = Object.fromEntries(mix.map(([name]) => [name, 0]));
  const wrong = [];
  const samples = [{ cells: 0, rssMb: sample() }];
  log(`soak: ${cells} cells on ${lanes} lanes, RSS at start ${samples[0].rssMb.toFixed(1)} MB`);
  let started = 0;
  let done = 0;
  const begun = Date.now();
  async function lane() {
    let sessions = newSessions();
    let used = 0;
    while (started < cells) {
      started++;
      const [name, , runCell, deadline] = pick();
      counts[name]++;
      let problem;
      try {
        problem = await runCell(drainingSession(deadline === 'strict' ? sessions.strict : sessions.patient));
      } catch (error) {
        problem = `rejected: ${error && error.message}`;
      }
      if (problem) wrong.push(`${name}: ${problem}`);
      done++;
      if (done % every === 0) {
        const rss = sample();
        samples.push({ cells: done, rssMb: rss });
        const stats = native.codeModeRuntimeStats ? JSON.stringify(native.codeModeRuntimeStats()) : '';
        log(`${String(done).padStart(7)} cells  RSS ${rss.toFixed(1)} MB  ${((Date.now() - begun) / 1000).toFixed(1)} s  ${stats}`);
      }
      if (++used >= cellsPerSession) {
        await closeSessions(sessions, wrong);
        sessions = newSessions();
        used = 0;
      }
    }
    await closeSessions(sessions, wrong);
  }
  await Promise.all(Array.from({ length: lanes }, lane));
  return { samples, wrong, counts, seconds: (Date.now() - begun) / 1000 };
}

/** Growth over the last half of the run, from the sample nearest the middle to the end. */
export function lastHalfGrowth(samples) {
  const end = samples[samples.length - 1];
  const middle = samples.reduce((best, s) => (Math.abs(s.cells - end.cells / 2) < Math.abs(best.cells - end.cells / 2) ? s : best));
  return end.rssMb - middle.rssMb;
}

async function main() {
  const cells = Number(process.argv[2] ?? 100_000);
  const maxGrowthMb = Number(process.argv[3] ?? 10);
  const { samples, wrong, counts, seconds } = await runSoak({ cells, every: Math.max(1, Math.floor(cells / 10)) });
  await sleep(200);
  const growth = lastHalfGrowth(samples);
  console.log(`mix: ${JSON.stringify(counts)}`);
  console.log(`${cells} cells in ${seconds.toFixed(1)} s; RSS growth over the last half ${growth.toFixed(1)} MB (limit ${maxGrowthMb} MB)`);
  if (native.codeModeRuntimeStats) console.log(`runtime after close: ${JSON.stringify(native.codeModeRuntimeStats())}`);
  if (wrong.length > 0) {
    console.error(`${wrong.length} wrong outcomes, first ones:\n  ${wrong.slice(0, 10).join('\n  ')}`);
    process.exitCode = 1;
  }
  if (growth > maxGrowthMb) {
    console.error(`RSS did not level off: +${growth.toFixed(1)} MB over the last half`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
