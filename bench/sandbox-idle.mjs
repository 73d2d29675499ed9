// What an idle sandbox process costs: N sessions in process mode, each parking one run on a
// tool that never answers; after an idle pause, each sandbox's PSS, RSS and threads
// (medians), the gateway's RSS growth per session, and how long new sessions' first cells
// take (one at a time, then a burst). Linux only.
//
//   node bench/sandbox-idle.mjs [addon path]     # BENCH_SESSIONS=200 BENCH_IDLE_MS=6000 BENCH_BURST=100
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { descendants } from './procfs.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const addon = path.resolve(process.argv[2] ?? path.join(here, '..', 'index.js'));
const { CodeModeSession, configureCodeModeRuntime } = createRequire(import.meta.url)(addon);
const sessions = Number(process.env.BENCH_SESSIONS ?? 200);
const idleMs = Number(process.env.BENCH_IDLE_MS ?? 6000);
const burst = Number(process.env.BENCH_BURST ?? 100);
configureCodeModeRuntime({ maxSuspendedRuns: sessions + 16 });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN;
};
const kb = (text, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);

// The gateway's sandboxes are the only processes below it here.
const sandboxes = () => descendants();

function figures(pid) {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { pss: kb(rollup, 'Pss'), anon: kb(rollup, 'Pss_Anon'), rss: kb(status, 'VmRSS'), threads: Number(/^Threads:\s+(\d+)/m.exec(status)[1]) };
}

const neverAnswers = { name: 'held', execute: () => new Promise(() => {}) };
const open = (i, limits) =>
  new CodeModeSession({ sessionId: `idle-${process.pid}-${i}`, tools: [neverAnswers], limits, isolation: 'process' });

// New sessions' first cells, one at a time: start-up of a fresh sandbox included.
const firstCell = [];
for (let i = 0; i < 20; i++) {
  const session = open(`first-${i}`, { timeoutMs: 3000 });
  const started = performance.now();
  const result = await session.exec({ code: 'return 1' });
  firstCell.push(performance.now() - started);
  if (result.status !== 'completed') throw new Error(`first cell: ${JSON.stringify(result)}`);
  await session.close();
}

// A burst of new sessions' first cells at once.
const burstSessions = Array.from({ length: burst }, (_, i) => open(`burst-${i}`, { timeoutMs: 3000 }));
const burstStarted = performance.now();
const burstTimes = await Promise.all(
  burstSessions.map(async (session) => {
    const result = await session.exec({ code: 'return 1' });
    return { ms: performance.now() - burstStarted, ok: result.status === 'completed' };
  }),
);
await Promise.all(burstSessions.map((session) => session.close()));
await sleep(500);

globalThis.gc?.();
const rssBefore = process.memoryUsage().rss;
const parked = [];
let failed = 0;
const parkStarted = performance.now();
// In batches: a park takes the session's timeoutMs.
for (let i = 0; i < sessions; i += 20) {
  const batch = Array.from({ length: Math.min(20, sessions - i) }, (_, j) => open(i + j, { timeoutMs: 3000 }));
  const results = await Promise.all(batch.map((session) => session.exec({ code: 'await held({}); return 1' })));
  results.forEach((result, j) => {
    if (result.status === 'waiting') return parked.push(batch[j]);
    if (!failed++) console.error(`first failure: ${result.code}: ${result.error}`);
  });
}
const parkMs = performance.now() - parkStarted;
await sleep(idleMs);
const pids = sandboxes();
const seen = pids.map(figures);
globalThis.gc?.();
const gatewayKb = (process.memoryUsage().rss - rssBefore) / 1024 / sessions;
const row = (name, value) => console.log(`| ${name} | ${value} |`);
console.log(`addon: ${addon}\n`);
console.log('| figure | value |\n|---|---|');
row('sessions parked (failed) / sandbox processes', `${parked.length} (${failed}) / ${pids.length}`);
row(`sandbox PSS after ${idleMs} ms idle, median (max)`, `${median(seen.map((s) => s.pss))} kB (${Math.max(...seen.map((s) => s.pss))})`);
row('of which private (Pss_Anon), median', `${median(seen.map((s) => s.anon))} kB`);
row('sandbox RSS, median', `${median(seen.map((s) => s.rss))} kB`);
row('sandbox threads, median (max)', `${median(seen.map((s) => s.threads))} (${Math.max(...seen.map((s) => s.threads))})`);
row('gateway RSS growth per session', `${gatewayKb.toFixed(0)} kB`);
row('total per session (PSS + gateway)', `${(median(seen.map((s) => s.pss)) + gatewayKb).toFixed(0)} kB`);
row('time to park all, batches of 20 (timeoutMs 3000)', `${(parkMs / 1000).toFixed(1)} s`);
row('new session first cell, median (max) of 20', `${median(firstCell).toFixed(1)} ms (${Math.max(...firstCell).toFixed(1)})`);
row(`burst of ${burst} new sessions: completed, median / max`, `${burstTimes.filter((t) => t.ok).length}, ${median(burstTimes.map((t) => t.ms)).toFixed(0)} / ${Math.max(...burstTimes.map((t) => t.ms)).toFixed(0)} ms`);
await Promise.all(parked.map((session) => session.close()));
process.exit(0);
