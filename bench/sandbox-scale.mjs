#!/usr/bin/env node
// What each sandbox process costs the gateway (issue 36): threads and descriptors of the
// gateway process per parked process-mode session, and a sequential awaited tool call.
//
//   node bench/sandbox-scale.mjs [addon index.js] [sessions] [counts]   (Linux: reads /proc/self)
//   (`counts`: skip the timed cells)
//
// The addon argument lets the same script measure another build (a before/after pair).
// stdout: one JSON line. Times are medians of 5 cells of 1,000 calls each.
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const addonPath = path.resolve(process.argv[2] ?? path.join(here, '..', 'index.js'));
const sessions = Number(process.argv[3] ?? 200);
const countsOnly = process.argv[4] === 'counts';
const { CodeModeSession, configureCodeModeRuntime } = createRequire(import.meta.url)(addonPath);
// Parked runs are capped process-wide (64 by default).
configureCodeModeRuntime({ maxSuspendedRuns: 10_000 });

const threads = () => Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
const fds = () => readdirSync('/proc/self/fd').length;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const tools = [{ name: 'add', execute: async ({ a, b }) => ({ sum: a + b }) }];
const open = (i) => new CodeModeSession({ sessionId: `scale-${i}`, isolation: 'process', tools, limits: { timeoutMs: 60_000 } });

// Sequential awaited tool calls first, on a quiet gateway (one sandbox).
const timed = open('timed');
const seqCode = 'let s = 0;\nfor (let i = 0; i < 1000; i++) s += (await add({ a: i, b: 1 })).sum;\nreturn s';
const perCallUs = [];
for (let i = countsOnly ? 5 : -1; i < 5; i++) {
  const t = process.hrtime.bigint();
  const r = await timed.exec({ code: seqCode });
  if (r.value !== 500500) throw new Error(`seq cell: ${r.status} ${r.error ?? ''}`);
  if (i < 0) continue;
  perCallUs.push(Number(process.hrtime.bigint() - t) / 1e3 / 1000);
}

const before = { threads: threads(), fds: fds() };
const all = Array.from({ length: sessions }, (_, i) => open(i));
const parked = await Promise.all(all.map((s) => s.exec({ code: 'await yield_control("p"); return 1' })));
const unparked = parked.filter((r) => r.status !== 'waiting');
if (unparked.length) throw new Error(`${unparked.length} runs did not park: ${unparked[0].status} ${unparked[0].code} ${unparked[0].error}`);
const during = { threads: threads(), fds: fds() };
const resumed = await Promise.all(all.map((s, i) => s.wait({ runId: parked[i].runId })));
if (resumed.some((r) => r.value !== 1)) throw new Error('a run did not resume');
await Promise.all([...all, timed].map((s) => s.close()));

console.log(JSON.stringify({
  addon: addonPath,
  sessions,
  threadsPerSandbox: (during.threads - before.threads) / sessions,
  fdsPerSandbox: (during.fds - before.fds) / sessions,
  before,
  during,
  seqToolCallUs: countsOnly ? null : median(perCallUs),
  seqToolCallUsAll: perCallUs.map((x) => Math.round(x * 10) / 10),
}));
