// Stress (issue 8): 50 sessions × 20 concurrent cells with seeded random aborts, session
// closes and parked-run expiries. Every promise settles with a documented outcome, no
// run, cell or timer is left behind, the worker pool keeps its size, and the loop's p99
// delay stays under 20 ms. On runs the hypervisor did not interrupt (no CPU steal), no
// call into the addon blocks the loop for more than 20 ms either (nor does anything
// else under CODEMODE_STRICT_EVENT_LOOP=1; see the end of the test).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { native, CodeModeSession, sleep } from './_helpers.mjs';
import { seededRandom as random } from '../scripts/seeded-random.mjs';

const SESSIONS = 50;
const CELLS_PER_SESSION = 20;
const MAX_DELAY_MS = 20;

// Every cell here may park at once; the default cap of 64 would turn most of the
// expiry cases into cap failures (that cap has its own test in suspension.test.mjs).
native.configureCodeModeRuntime({ maxSuspendedRuns: 2000 });

const tools = [
  { name: 'echo', execute: (input) => input },
  { name: 'slow', execute: ({ ms }) => new Promise((resolve) => setTimeout(() => resolve({ ms }), ms)) },
  { name: 'never', execute: (_input, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(null))) },
];

const kinds = [
  ['quick', (r) => `return (await echo({ i: ${Math.floor(r() * 1000)} })).i`],
  ['slow tool', (r) => `return (await slow({ ms: ${5 + Math.floor(r() * 150)} })).ms`],
  ['timer', (r) => `await new Promise((res) => setTimeout(res, ${Math.floor(r() * 40)})); return "timer"`],
  ['compute', () => 'let x = 0; for (let i = 0; i < 200000; i++) x += i % 7; return x'],
  ['yield and wait', () => 'const y = await yield_control("stress"); return y.status'],
  ['yield and expire', () => 'await yield_control("left to expire"); return "resumed"'],
  ['never', () => 'await never({}); return "unreachable"'],
  ['fan-out', () => 'const r = await Promise.all(Array.from({ length: 24 }, (_, i) => echo({ i }))); return r.length'],
];

// The longest synchronous call into the addon, per method: the addon's own share of any
// event-loop block (results and tool calls reach JS in 4 ms slices, scheduler.js).
const longestCallMs = { exec: 0, wait: 0, cancelRun: 0, close: 0 };
function timed(session) {
  const wrap = (name) => (...args) => {
    const started = performance.now();
    try {
      return session[name](...args);
    } finally {
      longestCallMs[name] = Math.max(longestCallMs[name], performance.now() - started);
    }
  };
  return { exec: wrap('exec'), wait: wrap('wait'), cancelRun: wrap('cancelRun'), close: wrap('close') };
}

/**
 * CPU time the hypervisor gave to other guests instead of this VM (the `steal` column of
 * Linux's /proc/stat, in ticks of 10 ms; 0 where there is no such count). While it grows
 * every thread of the VM stands still, whatever the process does: measured on the 2-vCPU
 * CI machine, runs with steal had event-loop maxima of 25-130 ms and single addon calls
 * of 23-70 ms, runs without it at most 7.6 ms per call.
 */
function stolenTicks() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/);
    return Number(fields[8]) || 0;
  } catch {
    return 0;
  }
}

const outcomes = new Map();
function count(label) {
  outcomes.set(label, (outcomes.get(label) ?? 0) + 1);
}

/** Runs one cell to its end as a gateway would; returns the label of how it ended. */
async function driveCell(session, rnd, closed) {
  const [kind, makeCode] = kinds[Math.floor(rnd() * kinds.length)];
  const abortAfter = rnd() < 0.15 ? Math.floor(rnd() * 60) : -1;
  const controller = new AbortController();
  if (abortAfter >= 0) setTimeout(() => controller.abort(), abortAfter);
  const options = { signal: controller.signal };
  let result;
  try {
    result = await session.exec({ code: makeCode(rnd) }, options);
    for (let i = 0; i < 20 && result.status === 'waiting'; i++) {
      if (kind === 'yield and expire') {
        // Left parked: the 1 s TTL drops it; a later wait finds it unavailable.
        await sleep(1300);
        const late = await session.wait({ runId: result.runId });
        assertDocumented(late, kind);
        return `${kind}: ${late.status}/${late.code ?? ''}`;
      }
      if (kind === 'never' && abortAfter < 0) {
        assert.equal(session.cancelRun(result.runId), true);
        return `${kind}: cancelled`;
      }
      result = await session.wait({ runId: result.runId }, options);
    }
  } catch (error) {
    // exec and wait throw only on a closed session.
    assert.ok(closed(), `a call threw on an open session: ${error && error.stack}`);
    assert.equal(error.code, 'invalid_input');
    return `${kind}: threw after close`;
  }
  assertDocumented(result, kind);
  if (result.status === 'waiting') assert.equal(session.cancelRun(result.runId), true);
  return `${kind}: ${result.status}/${result.code ?? ''}`;
}

const DOCUMENTED = new Set(['invalid_input', 'runtime_unavailable', 'aborted', 'timeout', 'internal_error']);
function assertDocumented(result, kind) {
  assert.ok(['completed', 'failed', 'waiting'].includes(result.status), `${kind}: ${JSON.stringify(result)}`);
  if (result.status === 'failed') {
    assert.ok(DOCUMENTED.has(result.code), `${kind}: undocumented failure ${JSON.stringify(result)}`);
    assert.ok(result.code !== 'internal_error' || kind === 'never', `${kind}: unexpected internal error ${result.error}`);
  }
}

const sessions = [];
after(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});

test('50 sessions × 20 concurrent cells with aborts, closes and expiries all settle and leave nothing behind', { timeout: 120000 }, async (t) => {
  // Process start-up (worker threads, the first VMs, the glue) is a one-time cost, not
  // load: one cell runs before the event loop is measured.
  const warm = new CodeModeSession({ sessionId: `stress-warm-${process.pid}`, tools });
  assert.equal((await warm.exec({ code: 'return (await echo({ ok: 1 })).ok' })).value, 1);
  await warm.close();
  const before = native.codeModeRuntimeStats();
  const delay = monitorEventLoopDelay({ resolution: 1 });
  // V8's own pauses, reported beside the loop's delay: most steal-free maxima are one.
  let longestGcMs = 0;
  const collections = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longestGcMs = Math.max(longestGcMs, entry.duration);
  });
  collections.observe({ entryTypes: ['gc'] });
  const stolenBefore = stolenTicks();
  delay.enable();
  const rnd = random(20261202);
  const cells = [];
  let closes = 0;
  for (let s = 0; s < SESSIONS; s++) {
    const session = new CodeModeSession({
      sessionId: `stress-${process.pid}-${s}`,
      tools,
      limits: { timeoutMs: 100, snapshotTtlSeconds: 1, memoryLimitBytes: 8 * 1024 * 1024 },
    });
    sessions.push(session);
    const calls = timed(session);
    let isClosed = false;
    if (rnd() < 0.12) {
      closes++;
      setTimeout(() => {
        isClosed = true;
        calls.close();
      }, Math.floor(rnd() * 400));
    }
    for (let c = 0; c < CELLS_PER_SESSION; c++) cells.push(driveCell(calls, rnd, () => isClosed));
    // A gateway starts cells as requests arrive, not 1,000 in one synchronous tick.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const settled = await Promise.allSettled(cells);
  const rejected = settled.filter((s) => s.status === 'rejected');
  assert.deepEqual(rejected.map((s) => String(s.reason && s.reason.stack)), [], 'every cell settles with a documented outcome');
  for (const s of settled) count(s.value);
  delay.disable();
  collections.disconnect();
  const stolen = stolenTicks() - stolenBefore;

  // Nothing left: no parked run anywhere, every cell and its timers dropped.
  for (const session of sessions) assert.deepEqual(session.runs(), []);
  let stats = native.codeModeRuntimeStats();
  for (let i = 0; i < 100 && (stats.liveCells > 0 || stats.parkedRuns > 0 || stats.pendingTimers > before.pendingTimers); i++) {
    await sleep(20);
    stats = native.codeModeRuntimeStats();
  }
  assert.equal(stats.parkedRuns, 0, JSON.stringify(stats));
  assert.equal(stats.liveCells, 0, JSON.stringify(stats));
  assert.ok(stats.pendingTimers <= before.pendingTimers, JSON.stringify(stats));
  assert.ok(stats.workers >= 2 && (before.workers === 0 || stats.workers === before.workers), JSON.stringify(stats));

  const ms = (ns) => (ns / 1e6).toFixed(2);
  const longest = Object.entries(longestCallMs).map(([name, t]) => `${name} ${t.toFixed(2)}`).join(', ');
  const summary = `event-loop delay p50 ${ms(delay.percentile(50))} ms, p99 ${ms(delay.percentile(99))} ms, max ${ms(delay.max)} ms; ` +
    `longest addon call (ms): ${longest}; longest V8 collection ${longestGcMs.toFixed(2)} ms; ` +
    `hypervisor steal during the run: ${stolen} ticks; ` +
    `${settled.length} cells settled (${closes} sessions closed): ${JSON.stringify(Object.fromEntries([...outcomes].sort()))}`;
  t.diagnostic(summary);
  console.log(summary);
  assert.equal(settled.length, SESSIONS * CELLS_PER_SESSION);
  assert.ok(delay.percentile(99) / 1e6 <= MAX_DELAY_MS, `p99 event-loop delay ${ms(delay.percentile(99))} ms`);
  // Single stalls are bounded only while the VM actually ran: a tick of steal stops the
  // Node thread for up to 10 ms wherever it is, including inside a call.
  if (stolen > 0) {
    t.diagnostic(`the hypervisor stole ${stolen} ticks of CPU time during the run: single stalls not asserted`);
    return;
  }
  for (const [name, t] of Object.entries(longestCallMs)) {
    assert.ok(t <= MAX_DELAY_MS, `${name}() blocked the event loop for ${t.toFixed(2)} ms`);
  }
  // The maximum itself is reported, and asserted only in strict mode: on the 2-vCPU CI
  // machine, 25 runs without counted steal had a median of 9 ms and a worst of 15.4 ms
  // (p99 1.9-6.9 ms over 120 runs), but the counter only sees whole 10 ms ticks of steal,
  // and a few hidden milliseconds must not fail CI. What is left is V8's collections (4-10
  // ms; the Node thread also waits behind the collector's helper threads). Causes found
  // and removed: lock waits (mimalloc, mailbox.rs), completion bursts (scheduler.js), 4 ms
  // turns of guest threads (nice 19, yields in engine/priority.rs), heaps freed on the Node
  // thread (engine/reaper.rs), huge-page zeroing on the timer thread (no_thp, lib.rs).
  if (process.env.CODEMODE_STRICT_EVENT_LOOP === '1') {
    assert.ok(delay.max / 1e6 <= MAX_DELAY_MS, `the event loop was blocked for ${ms(delay.max)} ms`);
  }
});
