// The stress test's shape (50 sessions × 20 concurrent cells, same seeded mix, aborts and
// waits) with a pure-JS stand-in for the session: tool calls and results are made on the
// Node thread and nothing else computes. It shows what the event loop's delay is on this
// machine without the addon, for bench/event-loop.mjs. Prints one JSON line.
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { seededRandom as random } from '../../scripts/seeded-random.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let runs = 0;

/** Answers like a session: tool calls through `echo`, waits for the guest's time, parks. */
class StandInSession {
  constructor() {
    this.parked = new Set();
  }

  async exec({ code }, options = {}) {
    const calls = code.includes('length: 24') ? 24 : code.includes('echo') ? 1 : 0;
    const out = await Promise.all(Array.from({ length: calls }, (_, i) => Promise.resolve({ i })));
    const ms = code.includes('slow') ? 5 + (code.length % 150) : code.includes('200000') ? 100 : code.includes('setTimeout') ? code.length % 40 : 0;
    await sleep(ms);
    if (options.signal?.aborted) return { status: 'failed', code: 'aborted', error: 'code mode execution aborted', telemetry: { callCount: calls } };
    if (code.includes('yield_control') || code.includes('never')) {
      const runId = `r${++runs}`;
      this.parked.add(runId);
      return { status: 'waiting', runId, reason: 'yield', telemetry: {} };
    }
    return {
      status: 'completed',
      value: out.length,
      telemetry: { callCount: calls, run: { wallMs: ms } },
      nestedCalls: out.map((o, i) => ({ callId: `c${i}`, toolName: 'echo', status: 'ok', outputPreview: JSON.stringify(o) })),
    };
  }

  async wait({ runId }) {
    await sleep(1);
    if (!this.parked.delete(runId)) return { status: 'failed', code: 'invalid_input', error: 'unavailable', telemetry: {} };
    return { status: 'completed', value: 'ok', telemetry: {} };
  }
}

const kinds = [
  'return (await echo({ i: 1 })).i',
  'return (await slow({ ms: 50 })).ms',
  'await new Promise((res) => setTimeout(res, 20)); return "timer"',
  'let x = 0; for (let i = 0; i < 200000; i++) x += i % 7; return x',
  'const y = await yield_control("stress"); return y.status',
  'await never({}); return "unreachable"',
  'const r = await Promise.all(Array.from({ length: 24 }, (_, i) => echo({ i }))); return r.length',
];

async function driveCell(session, rnd) {
  const code = kinds[Math.floor(rnd() * kinds.length)];
  const controller = new AbortController();
  if (rnd() < 0.15) setTimeout(() => controller.abort(), Math.floor(rnd() * 60));
  let result = await session.exec({ code }, { signal: controller.signal });
  for (let i = 0; i < 20 && result.status === 'waiting'; i++) result = await session.wait({ runId: result.runId });
  return result.status;
}

const delay = monitorEventLoopDelay({ resolution: 1 });
let longestGc = 0;
const collections = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) longestGc = Math.max(longestGc, entry.duration);
});
collections.observe({ entryTypes: ['gc'] });
delay.enable();
const rnd = random(20261202);
const cells = [];
for (let s = 0; s < 50; s++) {
  const session = new StandInSession();
  for (let c = 0; c < 20; c++) cells.push(driveCell(session, rnd));
  await new Promise((resolve) => setImmediate(resolve));
}
await Promise.allSettled(cells);
delay.disable();
collections.disconnect();
const ms = (ns) => Number((ns / 1e6).toFixed(2));
console.log(JSON.stringify({ p99: ms(delay.percentile(99)), max: ms(delay.max), longestGc: Number(longestGc.toFixed(2)) }));
