#!/usr/bin/env node
// codemode-native suspension / memory / concurrency benchmarks (the second table of `npm run bench`).
//
//   node bench/suspend.mjs            full run (~30 s on 2 cores)
//   node bench/suspend.mjs --quick    shortened run (~17 s)
//
// stdout: one markdown table + footnotes. stderr: progress.
// bench/results.json: every raw figure goes under the `suspend` key. Other keys are kept.
//
// The memory and thread figures come from fresh child processes, one per round and side
// (`node --expose-gc bench/suspend.mjs --child <task>`). That way RSS and thread counts are not
// affected by the other workloads, by the other side, or by memory the allocator kept from earlier work.
// The timing workloads run in this process.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import os from 'node:os';
import { makeCatalog } from './catalog-fixture.mjs';

const require = createRequire(import.meta.url);
const SELF = fileURLToPath(import.meta.url);
const RESULTS_FILE = fileURLToPath(new URL('./results.json', import.meta.url));
const QUICK = process.argv.includes('--quick');
const CHILD = process.argv.includes('--child') ? process.argv[process.argv.indexOf('--child') + 1] : null;
const THREADS = os.availableParallelism();
const MiB = 1024 * 1024;

const CFG = QUICK
  ? { rounds: 3, yields: 20, heapsMiB: [1, 8, 32], parked: 60, idleSessions: 200, toolsPerSession: 10, concurrent: 1000, toolDelayMs: 200, jsonReps: 5, jsonTargetBytes: MiB }
  : { rounds: 5, yields: 50, heapsMiB: [1, 8, 32], parked: 60, idleSessions: 200, toolsPerSession: 10, concurrent: 1000, toolDelayMs: 200, jsonReps: 10, jsonTargetBytes: MiB };
const ROUND_TIMEOUT_MS = 120_000;
const WAIT_TIMEOUT_MS = 15_000; // a single wait() that never answers fails its cell, not the whole round
const HEAP_LIMITS = { memoryLimitBytes: 128 * MiB, maxSnapshotBytes: 256 * MiB };
const REFERENCE_32MIB_MS = 37; // documented figure of the reference architecture (quickjs-wasi snapshot/restore)

const log = (...a) => process.stderr.write(a.join(' ') + '\n');
const nowNs = () => process.hrtime.bigint();
const msSince = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
function threadNames() {
  try {
    const counts = {};
    for (const tid of readdirSync('/proc/self/task')) {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      counts[name] = (counts[name] ?? 0) + 1;
    }
    return counts;
  } catch {
    return null;
  }
}
function threadsNow() {
  try {
    return Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
  } catch {
    return null; // no procfs (not Linux)
  }
}
async function settle() {
  // Let worker threads finish dropping VMs, then collect host garbage before reading RSS.
  for (let i = 0; i < 3; i++) {
    global.gc?.();
    await sleep(50);
  }
}
const rssNow = () => process.memoryUsage.rss();

class CellFailure extends Error {}
function describe(r) {
  return r ? `${r.status}${r.code ? ` (${r.code})` : ''}${r.reason ? ` reason=${r.reason}` : ''}${r.error ? `: ${r.error}` : ''}` : 'no result';
}
function expectStatus(r, what, status, extra) {
  if (!r || r.status !== status) throw new CellFailure(`${what}: expected ${status}, got ${describe(r)}`.slice(0, 300));
  if (extra) {
    const problem = extra(r);
    if (problem) throw new CellFailure(`${what}: ${problem}`.slice(0, 300));
  }
  return r;
}
function withTimeout(p, ms, what) {
  let timer;
  return Promise.race([
    p,
    new Promise((_, rej) => {
      timer = setTimeout(() => rej(new CellFailure(`${what} did not finish within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function loadAddon() {
  const addon = require('../index.js');
  let configured;
  try {
    addon.configureCodeModeRuntime({ workerThreads: THREADS });
    configured = { workerThreads: THREADS };
  } catch (err) {
    configured = { error: String(err?.message ?? err) };
    log(`configureCodeModeRuntime failed (using defaults): ${configured.error}`);
  }
  return { ...addon, configured };
}

// ---------------------------------------------------------------- cell sources
const heapCode = (n, yields) =>
  `const big = [];\nfor (let i = 0; i < ${n}; i++) big.push("x".repeat(1024) + i);\n` +
  `for (let i = 0; i < ${yields}; i++) await yield_control("tick");\nreturn big.length`;

// The ~1 MB object of workload 4: the same statement runs in the guest and (to size it) in the host.
const buildSource = (n) =>
  `const x = { items: [] };\nfor (let i = 0; i < ${n}; i++) x.items.push({ id: i, name: "item-" + i, tags: ["alpha", "beta", "gamma"], ` +
  `score: i * 0.25, active: i % 2 === 0, note: "lorem ipsum dolor sit amet, consectetur adipiscing elit " + i });\n`;
function sizeJsonObject(target) {
  const bytesFor = (n) => new Function(`${buildSource(n)}return JSON.stringify(x).length`)();
  let n = Math.max(1, Math.round(target / (bytesFor(1000) / 1000)));
  for (let i = 0; i < 3; i++) n = Math.max(1, Math.round((n * target) / bytesFor(n)));
  return { n, bytes: bytesFor(n) };
}

// ---------------------------------------------------------------- child tasks (fresh processes)
// Each prints one JSON line to stdout: { ok, figures: { key: number | { error } }, ...detail }.
const CHILD_TASKS = {
  // Workload 2a: memory of parked runs.
  async park() {
    const { CodeModeSession, configured } = loadAddon();
    let aborted = 0;
    const never = {
      name: 'never',
      description: 'Never settles.',
      parameters: { type: 'object' },
      execute: (_input, ctx) =>
        new Promise(() => {
          ctx?.signal?.addEventListener?.('abort', () => aborted++, { once: true });
        }),
    };
    const parkCode = (k) =>
      `const small = Array.from({ length: 200 }, (_, i) => ({ i, s: "v" + i + "-${k}" }));\nawait never({});\nreturn small.length`;
    const isParked = (r) => (r.reason !== 'pending_tools' ? `reason ${r.reason}` : r.pendingToolCalls?.length !== 1 ? `pendingToolCalls ${JSON.stringify(r.pendingToolCalls)}` : null);

    // warm-up: start the worker pool and park/close one run, so the baseline has the runtime up
    const warm = new CodeModeSession({ sessionId: 'park-warm', tools: [never], limits: { timeoutMs: 100 } });
    expectStatus(await warm.exec({ code: 'return 1' }), 'warm-up trivial cell', 'completed');
    expectStatus(await warm.exec({ code: parkCode('w') }), 'warm-up parked cell', 'waiting', isParked);
    await warm.close();
    await settle();
    aborted = 0;

    const s = new CodeModeSession({ sessionId: 'park', tools: [never], limits: { timeoutMs: 100 } });
    const rssBefore = rssNow();
    const t0 = nowNs();
    const rs = await Promise.all(Array.from({ length: CFG.parked }, (_, k) => s.exec({ code: parkCode(k) })));
    const parkWallMs = msSince(t0);
    const bad = [];
    rs.forEach((r, k) => {
      try {
        expectStatus(r, `parked cell ${k}`, 'waiting', isParked);
      } catch (err) {
        bad.push(err.message);
      }
    });
    await settle();
    const rssParked = rssNow();
    const runs = s.runs();
    const peakHeap = rs.map((r) => r.telemetry?.run?.peakHeapBytes).filter((x) => typeof x === 'number');
    await s.close();
    const runsAfterClose = s.runs().length;
    await settle();
    const rssClosed = rssNow();
    const abortSignalsFired = aborted;
    // A second park + close cycle: if RSS stays flat the allocator is reusing the freed memory; if it
    // grows by about as much again, something is not freed.
    const s2 = new CodeModeSession({ sessionId: 'park-2', tools: [never], limits: { timeoutMs: 100 } });
    const rs2 = await Promise.all(Array.from({ length: CFG.parked }, (_, k) => s2.exec({ code: parkCode(k) })));
    const secondParked = rs2.filter((r) => r?.status === 'waiting').length;
    await s2.close();
    await settle();
    const rssSecond = rssNow();
    const detail = {
      configured,
      parkWallMs,
      parkedOk: CFG.parked - bad.length,
      runsListed: runs.length,
      runsAfterClose,
      abortSignalsFired,
      secondCycleParked: secondParked,
      peakHeapBytesMedian: peakHeap.length ? median(peakHeap) : null,
      runsBytes: runs.map((r) => r.bytes),
      rssBytes: { before: rssBefore, parked: rssParked, closed: rssClosed, afterSecondCycle: rssSecond },
    };
    if (bad.length) return { ok: false, error: `${bad.length}/${CFG.parked} cells did not park; first: ${bad[0]}`, ...detail };
    const fail = (error) => ({ error });
    return {
      ok: true,
      figures: {
        rssPerRunKB: (rssParked - rssBefore) / CFG.parked / 1024,
        runsBytesKB: runs.length === CFG.parked ? median(runs.map((r) => r.bytes)) / 1024 : fail(`runs() listed ${runs.length} runs, expected ${CFG.parked}`),
        rssBeforeMB: rssBefore / MiB,
        rssParkedMB: rssParked / MiB,
        rssClosedMB: runsAfterClose === 0 ? rssClosed / MiB : fail(`runs() still lists ${runsAfterClose} runs after close()`),
        rssSecondCycleMB: secondParked === CFG.parked ? rssSecond / MiB : fail(`second cycle: only ${secondParked}/${CFG.parked} cells parked`),
      },
      ...detail,
    };
  },

  // Workload 2b: memory of idle sessions.
  async sessions() {
    const { CodeModeSession, configured } = loadAddon();
    const warm = new CodeModeSession({ sessionId: 'idle-warm', tools: makeCatalog(CFG.toolsPerSession) });
    expectStatus(await warm.exec({ code: 'return 1' }), 'warm-up cell', 'completed');
    await settle();
    const rssBefore = rssNow();
    const heapBefore = process.memoryUsage().heapUsed;
    const sessions = [];
    for (let i = 0; i < CFG.idleSessions; i++) sessions.push(new CodeModeSession({ sessionId: `idle-${i}`, tools: makeCatalog(CFG.toolsPerSession) }));
    const wrong = sessions.filter((s) => s.telemetry().catalogSize !== CFG.toolsPerSession).length;
    await settle();
    const rssAfter = rssNow();
    const heapAfter = process.memoryUsage().heapUsed;
    await Promise.all(sessions.map((s) => s.close()));
    await warm.close();
    await settle();
    const detail = { configured, rssBytes: { before: rssBefore, sessions: rssAfter, closed: rssNow() }, jsHeapPerSessionKB: (heapAfter - heapBefore) / CFG.idleSessions / 1024 };
    if (wrong) return { ok: false, error: `${wrong} sessions report a catalogSize other than ${CFG.toolsPerSession}`, ...detail };
    return { ok: true, figures: { perSessionKB: (rssAfter - rssBefore) / CFG.idleSessions / 1024 }, ...detail };
  },

  // Workload 3: many concurrent cells awaiting a slow host tool; wall time and OS threads.
  'concurrency-ours': () => childConcurrency('ours'),
  'concurrency-peer': () => childConcurrency('peer'),
};

async function childConcurrency(side) {
  const bareThreads = threadsNow();
  const slow = {
    name: 'slow',
    description: `Resolves after ${CFG.toolDelayMs} ms.`,
    parameters: { type: 'object' },
    execute: () => new Promise((resolve) => setTimeout(() => resolve({ ok: true }), CFG.toolDelayMs)),
  };
  const code = 'const r = await slow({});\nreturn r.ok === true ? 1 : 0';
  let exec;
  let close;
  let configured = null;
  if (side === 'ours') {
    const addon = loadAddon();
    configured = addon.configured;
    const s = new addon.CodeModeSession({ sessionId: 'concurrency', tools: [slow] });
    exec = (c) => s.exec({ code: c });
    close = () => s.close();
  } else {
    const { NodeVmPool } = await import('./peers/node-vm-pool.mjs');
    const pool = new NodeVmPool({ tools: [slow], size: THREADS, timeoutMs: 10_000 });
    await withTimeout(pool.ready(), 20_000, 'peer pool start');
    exec = (c) => pool.exec(c);
    close = () => pool.close();
  }
  const batch = async (n) => {
    const lat = [];
    const rs = await Promise.all(
      Array.from({ length: n }, async () => {
        const t = nowNs();
        const r = await exec(code);
        lat.push(msSince(t));
        return r;
      }),
    );
    const bad = rs.filter((r) => r?.status !== 'completed' || r.value !== 1);
    return { lat, bad };
  };
  const warm = await batch(100);
  if (warm.bad.length) return { ok: false, error: `warm-up: ${warm.bad.length}/100 cells failed; first: ${describe(warm.bad[0])}`.slice(0, 300) };
  await sleep(100);
  const idleThreads = threadsNow();
  const idleThreadNames = threadNames();
  let peakThreads = idleThreads;
  let peakRss = rssNow();
  const sample = () => {
    const t = threadsNow();
    if (t != null && t > peakThreads) peakThreads = t;
    const m = rssNow();
    if (m > peakRss) peakRss = m;
  };
  const timer = setInterval(sample, 20);
  const t0 = nowNs();
  const { lat, bad } = await batch(CFG.concurrent);
  const wallMs = msSince(t0);
  clearInterval(timer);
  sample();
  await close();
  const detail = { side, configured, bareThreads, idleThreads, idleThreadNames, peakRssMB: peakRss / MiB, latencyMs: { p50: median(lat), p99: pct(lat, 99), max: Math.max(...lat) } };
  if (bad.length) return { ok: false, error: `${bad.length}/${CFG.concurrent} cells failed; first: ${describe(bad[0])}`.slice(0, 300), ...detail };
  return { ok: true, figures: { wallMs, peakThreads: peakThreads ?? { error: 'no /proc/self/status on this platform' } }, ...detail };
}

function runChild(task, timeoutMs = ROUND_TIMEOUT_MS) {
  return new Promise((resolve) => {
    const t0 = nowNs();
    const args = ['--expose-gc', SELF, '--child', task, ...(QUICK ? ['--quick'] : [])];
    const cp = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    cp.stdout.on('data', (d) => (out += d));
    const timer = setTimeout(() => cp.kill('SIGKILL'), timeoutMs);
    cp.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').pop() ?? '';
      let r;
      try {
        r = JSON.parse(line);
      } catch {
        r = { ok: false, error: `child "${task}" exited (${signal ?? code}) without a result${signal === 'SIGKILL' ? ` (killed after ${timeoutMs} ms)` : ''}` };
      }
      resolve({ ...r, roundMs: msSince(t0) });
    });
  });
}

// ---------------------------------------------------------------- in-process measurements
// Workload 1: suspend + resume at several guest heap sizes.
async function calibrateHeaps(CodeModeSession) {
  const s = new CodeModeSession({ sessionId: 'heap-calibration', limits: HEAP_LIMITS });
  // peakHeapBytes is sampled when a call ends (park or finish), after the guest's locals are gone,
  // so a cell that completes reports its post-return heap. Calibrate on the parked heap instead:
  // one yield, read the waiting result's figure, then let it complete.
  const peak = async (n) => {
    const w = expectStatus(await s.exec({ code: heapCode(n, 1) }), `heap calibration n=${n}`, 'waiting', (r) => (r.reason !== 'yield' ? `reason ${r.reason}` : null));
    const p = w.telemetry?.run?.peakHeapBytes;
    expectStatus(await s.wait({ runId: w.runId }), `heap calibration n=${n} (wait)`, 'completed', (r) => (r.value !== n ? `value ${r.value}` : null));
    if (typeof p !== 'number') throw new CellFailure('telemetry.run.peakHeapBytes missing');
    return p;
  };
  try {
    const base = await peak(0);
    const slope = ((await peak(8192)) - base) / 8192;
    const sizes = [];
    for (const mib of CFG.heapsMiB) {
      const target = mib * MiB;
      let n = Math.max(1, Math.round((target - base) / slope));
      let p = await peak(n);
      n = Math.max(1, Math.round((n * (target - base)) / (p - base))); // one secant step
      p = await peak(n);
      sizes.push({ mib, target, n, calibratedPeakHeapBytes: p });
    }
    return { baseHeapBytes: base, bytesPerEntry: slope, sizes };
  } finally {
    await s.close();
  }
}

async function heapRound(CodeModeSession, sizes, yields, roundIndex) {
  const s = new CodeModeSession({ sessionId: `heap-round-${roundIndex}`, limits: HEAP_LIMITS });
  const figures = {};
  const detail = [];
  // rotate the heap-size order every round so machine drift is spread across sizes
  const order = sizes.map((_, i) => sizes[(i + roundIndex) % sizes.length]);
  try {
    for (const size of order) {
      const key = `${size.mib}`;
      try {
        const t0 = nowNs();
        let r = expectStatus(await s.exec({ code: heapCode(size.n, yields) }), `${size.mib} MiB exec`, 'waiting', (r) => (r.reason !== 'yield' ? `reason ${r.reason}` : null));
        const execMs = msSince(t0);
        const runId = r.runId;
        const parkedPeak = r.telemetry?.run?.peakHeapBytes ?? null;
        const parkedBytes = s.runs().find((x) => x.runId === runId)?.bytes ?? null;
        const waits = [];
        let finalMs = null;
        for (let k = 1; k <= yields; k++) {
          const t = nowNs();
          r = await withTimeout(s.wait({ runId }), WAIT_TIMEOUT_MS, `${size.mib} MiB wait ${k}`);
          const dt = msSince(t);
          if (k < yields) {
            expectStatus(r, `${size.mib} MiB wait ${k}`, 'waiting', (r) => (r.runId !== runId ? `runId changed to ${r.runId}` : r.reason !== 'yield' ? `reason ${r.reason}` : null));
            waits.push(dt);
          } else {
            expectStatus(r, `${size.mib} MiB final wait`, 'completed', (r) => (r.value !== size.n ? `value ${JSON.stringify(r.value)}` : null));
            finalMs = dt;
          }
        }
        figures[`wait_${key}`] = median(waits);
        figures[`exec_${key}`] = execMs;
        detail.push({ mib: size.mib, n: size.n, execMs, waitsMs: waits, waitP90Ms: pct(waits, 90), finalWaitMs: finalMs, peakHeapBytes: parkedPeak, finalPeakHeapBytes: r.telemetry?.run?.peakHeapBytes ?? null, runsBytes: parkedBytes });
      } catch (err) {
        figures[`wait_${key}`] = { error: String(err?.message ?? err) };
        figures[`exec_${key}`] = { error: String(err?.message ?? err) };
        for (const x of s.runs()) s.cancelRun(x.runId);
      }
    }
  } finally {
    await s.close();
  }
  return { ok: true, figures, heaps: detail };
}

// Workload 4: ~1 MB JSON inside the guest, and a ~1 MB return value.
function jsonCases(obj) {
  const build = buildSource(obj.n);
  return {
    build: {
      code: `${build}return x.items.length`,
      check: (v) => (v === obj.n ? null : `value ${JSON.stringify(v)?.slice(0, 80)}`),
    },
    json: {
      code: `${build}const s = JSON.stringify(x);\nconst y = JSON.parse(s);\nreturn { bytes: s.length, n: y.items.length, last: y.items[y.items.length - 1].note }`,
      check: (v) =>
        v && v.bytes === obj.bytes && v.n === obj.n && v.last === `lorem ipsum dolor sit amet, consectetur adipiscing elit ${obj.n - 1}` ? null : `value ${JSON.stringify(v)?.slice(0, 120)} (expected bytes ${obj.bytes})`,
    },
    ret: {
      code: `${build}return x`,
      check: (v) => (v && Array.isArray(v.items) && v.items.length === obj.n && JSON.stringify(v).length === obj.bytes ? null : `returned value is not the ${obj.bytes}-byte object`),
    },
  };
}

async function jsonRound(exec, cases, reps) {
  const figures = {};
  const walls = {};
  for (const [key, c] of Object.entries(cases)) {
    try {
      const ws = [];
      for (let i = 0; i < reps; i++) {
        const t = nowNs();
        const r = await exec(c.code);
        const dt = msSince(t);
        expectStatus(r, `json/${key}`, 'completed', (r) => c.check(r.value)); // checked after the clock stops
        ws.push(dt);
      }
      figures[key] = median(ws);
      walls[key] = ws;
    } catch (err) {
      figures[key] = { error: String(err?.message ?? err) };
    }
  }
  return { ok: true, figures, wallsMs: walls };
}

// ---------------------------------------------------------------- driver
async function measure(fn) {
  const t0 = nowNs();
  try {
    const r = await withTimeout(fn(), ROUND_TIMEOUT_MS, 'round');
    return { roundMs: msSince(t0), ...r };
  } catch (err) {
    return { ok: false, error: String(err?.message ?? err), roundMs: msSince(t0) };
  }
}

function fmt(x) {
  const a = Math.abs(x);
  const d = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}
const oneLine = (msg) => String(msg).replace(/\s+/g, ' ').replace(/\|/g, '\\|').slice(0, 300);
const fmtStat = (s) => `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})${s.okRounds < s.rounds ? ` ⚠ ${s.rounds - s.okRounds}/${s.rounds} rounds failed` : ''}`;

function summarizeRow(rounds, key) {
  const xs = [];
  const errors = [];
  rounds.forEach((r, i) => {
    const f = r.ok ? r.figures?.[key] : { error: r.error };
    if (typeof f === 'number' && Number.isFinite(f)) xs.push(f);
    else errors.push({ round: i + 1, error: f?.error ?? 'no figure' });
  });
  const summary = xs.length ? { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), okRounds: xs.length, rounds: rounds.length } : null;
  return { summary, values: xs, errors };
}

async function main() {
  const started = nowNs();
  const machine = {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    availableParallelism: THREADS,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
  };
  const bareThreads = threadsNow();
  const addon = loadAddon(); // a failure here is a real failure: let it crash loudly
  const { CodeModeSession } = addon;
  const groups = {}; // id -> { ours: { warmup, rounds }, peer: { warmup, rounds } | { missing } | { notApplicable } }
  const problems = [];

  // 1. suspend + resume vs heap size (ours only; the reference peer is not installed)
  log('\n## suspend + resume vs guest heap size');
  let calibration = null;
  try {
    calibration = await calibrateHeaps(CodeModeSession);
    log(`  heap sizes: ${calibration.sizes.map((s) => `${s.mib} MiB → ${s.n} strings, peakHeapBytes ${(s.calibratedPeakHeapBytes / MiB).toFixed(2)} MiB`).join('; ')}`);
  } catch (err) {
    problems.push(`heap calibration failed, workload 1 skipped: ${oneLine(err?.message ?? err)}`);
  }
  groups.heap = { ours: { warmup: null, rounds: [] }, peer: { notInstalled: 'quickjs-wasi snapshot/restore reference' } };
  if (calibration) {
    groups.heap.ours.warmup = await measure(() => heapRound(CodeModeSession, calibration.sizes, Math.min(10, CFG.yields), 0));
    for (let r = 0; r < CFG.rounds; r++) {
      const m = await measure(() => heapRound(CodeModeSession, calibration.sizes, CFG.yields, r));
      groups.heap.ours.rounds.push(m);
      log(`  round ${r + 1}/${CFG.rounds} ours ${m.ok ? CFG.heapsMiB.map((mib) => `${mib} MiB ${typeof m.figures[`wait_${mib}`] === 'number' ? fmt(m.figures[`wait_${mib}`]) + ' ms/wait' : 'FAILED'}`).join(', ') : `FAILED: ${m.error}`}  (${Math.round(m.roundMs)} ms)`);
    }
  }

  // 2. memory: parked runs and idle sessions (fresh child process per round)
  for (const [id, task, label] of [['park', 'park', `${CFG.parked} parked runs`], ['sessions', 'sessions', `${CFG.idleSessions} idle sessions`]]) {
    log(`\n## memory: ${label}`);
    groups[id] = { ours: { warmup: null, rounds: [] }, peer: { notApplicable: true } };
    for (let r = 0; r < CFG.rounds; r++) {
      const m = await runChild(task);
      groups[id].ours.rounds.push(m);
      log(`  round ${r + 1}/${CFG.rounds} ours ${m.ok ? Object.entries(m.figures).map(([k, v]) => `${k} ${typeof v === 'number' ? fmt(v) : 'FAILED'}`).join(', ') : `FAILED: ${m.error}`}  (${Math.round(m.roundMs)} ms)`);
    }
  }

  // 3. concurrency: fresh child process per round and side, sides alternating
  log(`\n## ${CFG.concurrent} concurrent cells awaiting a ${CFG.toolDelayMs} ms tool`);
  groups.concurrency = { ours: { warmup: null, rounds: [] }, peer: { warmup: null, rounds: [] } };
  for (let r = 0; r < CFG.rounds; r++) {
    for (const who of r % 2 === 0 ? ['ours', 'peer'] : ['peer', 'ours']) {
      const m = await runChild(`concurrency-${who}`);
      groups.concurrency[who].rounds.push(m);
      log(`  round ${r + 1}/${CFG.rounds} ${who.padEnd(4)} ${m.ok ? `${fmt(m.figures.wallMs)} ms, peak ${m.figures.peakThreads} threads (idle ${m.idleThreads}, bare node ${m.bareThreads})` : `FAILED: ${m.error}`}  (${Math.round(m.roundMs)} ms)`);
    }
  }

  // 4. ~1 MB JSON in the guest and ~1 MB return value, ours vs the node:vm pool
  log('\n## ~1 MB JSON round trip in the guest / ~1 MB return value');
  const jsonObj = sizeJsonObject(CFG.jsonTargetBytes);
  const cases = jsonCases(jsonObj);
  const jsonSession = new CodeModeSession({ sessionId: 'json', limits: { maxOutputBytes: 4 * MiB } });
  const oursJson = (code) => jsonSession.exec({ code });
  let peer = null;
  let peerMissing = null;
  try {
    const { NodeVmPool } = await import('./peers/node-vm-pool.mjs');
    const pool = new NodeVmPool({ tools: [], size: THREADS, timeoutMs: 10_000 });
    await withTimeout(pool.ready(), 20_000, 'peer pool start');
    peer = pool;
  } catch (err) {
    peerMissing = String(err?.message ?? err);
    log(`peer unavailable: ${peerMissing}`);
  }
  const peerJson = (code) => peer.exec(code);
  groups.json = { ours: { warmup: null, rounds: [] }, peer: peer ? { warmup: null, rounds: [] } : { missing: peerMissing } };
  groups.json.ours.warmup = await measure(() => jsonRound(oursJson, cases, 2));
  if (peer) groups.json.peer.warmup = await measure(() => jsonRound(peerJson, cases, 2));
  for (let r = 0; r < CFG.rounds; r++) {
    for (const who of peer ? (r % 2 === 0 ? ['ours', 'peer'] : ['peer', 'ours']) : ['ours']) {
      const m = await measure(() => jsonRound(who === 'ours' ? oursJson : peerJson, cases, CFG.jsonReps));
      groups.json[who].rounds.push(m);
      log(`  round ${r + 1}/${CFG.rounds} ${who.padEnd(4)} ${m.ok ? Object.entries(m.figures).map(([k, v]) => `${k} ${typeof v === 'number' ? fmt(v) : 'FAILED'}`).join(', ') : `FAILED: ${m.error}`}  (${Math.round(m.roundMs)} ms)`);
    }
  }
  await jsonSession.close();
  if (peer) await peer.close().catch(() => {});

  // ---------------------------------------------------------------- report
  const heapPeaks = {};
  for (const mib of CFG.heapsMiB) {
    const xs = groups.heap.ours.rounds.flatMap((r) => r.heaps ?? []).filter((h) => h.mib === mib && typeof h.peakHeapBytes === 'number').map((h) => h.peakHeapBytes);
    heapPeaks[mib] = xs.length ? median(xs) : null;
  }
  const heapLabel = (mib) => `${mib} MiB${heapPeaks[mib] ? ` (peakHeapBytes ${(heapPeaks[mib] / MiB).toFixed(2)} MiB)` : ''}`;
  const K = CFG.yields;
  const ROWS = [
    ...CFG.heapsMiB.map((mib) => ({ group: 'heap', key: `wait_${mib}`, kind: 'time', name: `suspend + resume: one \`wait()\` round trip (resume + park), guest heap ${heapLabel(mib)} (ms/wait)` })),
    ...CFG.heapsMiB.map((mib) => ({ group: 'heap', key: `exec_${mib}`, kind: 'time', name: `\`exec\` to first \`waiting\` incl. building the heap, ${mib} MiB (ms, one-time)` })),
    { group: 'park', key: 'rssPerRunKB', kind: 'memory', name: `memory per parked run: RSS delta of parking ${CFG.parked} runs / ${CFG.parked} (KB/run)` },
    { group: 'park', key: 'runsBytesKB', kind: 'memory', name: 'memory per parked run: `session.runs()[].bytes`, median (KB/run)' },
    { group: 'park', key: 'rssBeforeMB', kind: 'memory', name: `process RSS before parking (MB)` },
    { group: 'park', key: 'rssParkedMB', kind: 'memory', name: `process RSS with ${CFG.parked} runs parked (MB)` },
    { group: 'park', key: 'rssClosedMB', kind: 'memory', name: `process RSS after \`close()\` dropped them (MB)` },
    { group: 'park', key: 'rssSecondCycleMB', kind: 'memory', name: `process RSS after a second park ${CFG.parked} + \`close()\` cycle (MB)` },
    { group: 'sessions', key: 'perSessionKB', kind: 'memory', name: `memory per idle session with ${CFG.toolsPerSession} tools: RSS delta of ${CFG.idleSessions} sessions / ${CFG.idleSessions} (KB/session)` },
    { group: 'concurrency', key: 'wallMs', kind: 'time', name: `${CFG.concurrent.toLocaleString('en-US')} concurrent cells, each awaiting a ${CFG.toolDelayMs} ms async tool: total wall (ms)` },
    { group: 'concurrency', key: 'peakThreads', kind: 'count', name: `… peak OS threads of the whole process during that run` },
    { group: 'json', key: 'build', kind: 'time', name: `build the ~1 MB object in the guest, baseline for the next two rows (ms/cell)` },
    { group: 'json', key: 'json', kind: 'time', name: `\`JSON.parse(JSON.stringify(x))\` of the ~1 MB object in the guest, incl. build (ms/cell)` },
    { group: 'json', key: 'ret', kind: 'time', name: `return the ~1 MB object to the host, incl. build, \`maxOutputBytes\` 4 MiB (ms/cell)` },
  ];

  const lines = [];
  lines.push('| workload | codemode-native median (min–max) | peer median (min–max) | ratio |');
  lines.push('|---|---|---|---|');
  const rowsOut = [];
  for (const row of ROWS) {
    const g = groups[row.group];
    const ours = summarizeRow(g.ours.rounds, row.key);
    const peerSide = g.peer.rounds ? summarizeRow(g.peer.rounds, row.key) : null;
    const o = ours.summary;
    const p = peerSide?.summary;
    let peerCell;
    let ratio = '—';
    if (g.peer.notInstalled) (peerCell = 'n/a (not installed)'), (ratio = 'n/a');
    else if (g.peer.notApplicable) (peerCell = 'n/a'), (ratio = 'n/a');
    else if (g.peer.missing) peerCell = 'missing (peer unavailable)';
    else if (!p) peerCell = 'missing (failed, see below)';
    else peerCell = fmtStat(p);
    let ratioValue = null;
    if (o && p) {
      ratioValue = p.median / o.median;
      ratio = `${ratioValue >= 10 ? ratioValue.toFixed(1) : ratioValue.toFixed(2)}×`;
    }
    lines.push(`| ${row.name} | ${o ? fmtStat(o) : 'FAILED (see below)'} | ${peerCell} | ${ratio} |`);
    for (const [who, side] of [['codemode-native', ours], ['peer', peerSide]]) for (const e of side?.errors ?? []) problems.push(`${who} / ${row.group}.${row.key} round ${e.round}: ${oneLine(e.error)}`);
    rowsOut.push({ ...row, ours: ours, peer: peerSide ?? g.peer, ratio: ratioValue });
  }
  for (const [id, g] of Object.entries(groups))
    for (const [who, side] of [['codemode-native', g.ours], ['peer', g.peer]])
      if (side?.warmup && !side.warmup.ok) problems.push(`${who} / ${id} (warm-up): ${oneLine(side.warmup.error)}`);

  // footnotes
  const row = (key, group = 'heap') => rowsOut.find((r) => r.group === group && r.key === key);
  const w1 = row(`wait_${CFG.heapsMiB[0]}`)?.ours.summary;
  const wN = row(`wait_${CFG.heapsMiB.at(-1)}`)?.ours.summary;
  const flatness = w1 && wN ? wN.median / w1.median : null;
  const roundFlatness = groups.heap.ours.rounds
    .map((r) => r.figures?.[`wait_${CFG.heapsMiB.at(-1)}`] / r.figures?.[`wait_${CFG.heapsMiB[0]}`])
    .filter((x) => Number.isFinite(x));
  const conc = groups.concurrency;
  const thr = (side) => {
    const rs = (side.rounds ?? []).filter((r) => r.ok);
    return rs.length ? { bare: median(rs.map((r) => r.bareThreads)), idle: median(rs.map((r) => r.idleThreads)), peakRssMB: median(rs.map((r) => r.peakRssMB)) } : null;
  };
  const tOurs = thr(conc.ours);
  const tPeer = thr(conc.peer);
  const parkRs = groups.park.ours.rounds.filter((r) => r.ok);
  const sessRs = groups.sessions.ours.rounds.filter((r) => r.ok);
  lines.push('');
  lines.push(
    `Machine: ${machine.cpu}, ${machine.cores} cores (availableParallelism ${THREADS}), Node ${machine.node}, ${machine.platform}, ${machine.date}` +
      (QUICK ? ' — **--quick run**' : ''),
  );
  lines.push(
    `Median (min–max) over ${CFG.rounds} rounds. Ratio = peer/ours, so > 1 means codemode-native is faster (or uses fewer threads). ` +
      `Suspend rows: ${K} \`yield_control()\` per cell, figure = median of the ${K - 1} \`wait()\` calls that resume and park again ` +
      `(the last one completes the cell and is kept in results.json). Limits: memoryLimitBytes 128 MiB, maxSnapshotBytes 256 MiB.`,
  );
  lines.push(
    `Flatness: 32 MiB / 1 MiB median \`wait()\` = ${flatness ? `${flatness.toFixed(2)}×` : 'n/a (a heap size failed)'}` +
      (roundFlatness.length ? ` (per round ${fmt(Math.min(...roundFlatness))}–${fmt(Math.max(...roundFlatness))}×; 1.00× = independent of heap size)` : '') +
      '. ' +
      `The reference architecture (quickjs-wasi, heap snapshot + restore per suspension) is documented at ~${REFERENCE_32MIB_MS} ms per resume at 32 MB. ` +
      `It is not installed here, so it was not measured${wN ? `; ours was ${fmt(wN.median)} ms at 32 MiB` : ''}.`,
  );
  lines.push(
    `Memory rows: a fresh \`node --expose-gc\` child per round, RSS read after GC. A parked cell builds a ~200-entry array, awaits a tool that never settles, and parks at \`timeoutMs: 100\`` +
      (parkRs.length ? ` (guest peakHeapBytes ≈ ${(median(parkRs.map((r) => r.peakHeapBytesMedian)) / 1024).toFixed(0)} KB; ${median(parkRs.map((r) => r.abortSignalsFired))}/${CFG.parked} tool signals aborted by \`close()\`)` : '') +
      `. Idle session = \`new CodeModeSession\` with ${CFG.toolsPerSession} fresh fixture tools, no cell run` +
      (sessRs.length ? ` (of which JS heap ≈ ${fmt(median(sessRs.map((r) => r.jsHeapPerSessionKB)))} KB/session)` : '') +
      '. The peer has no suspension and no sessions.',
  );
  lines.push(
    `Concurrency rows: a fresh child process per round and side, sides alternating. There is a 100-cell warm-up, then all ${CFG.concurrent} \`exec\`s start at once. The tool is a main-thread \`setTimeout\`. ` +
      `Threads = \`/proc/self/status\` \`Threads:\`, sampled every 20 ms` +
      (tOurs ? `; ours: bare node ${tOurs.bare}, idle after warm-up ${tOurs.idle}, peak RSS ${fmt(tOurs.peakRssMB)} MB` : '') +
      (tPeer ? `; peer (${THREADS} worker_threads, a fresh node:vm context per cell): bare node ${tPeer.bare}, idle ${tPeer.idle}, peak RSS ${fmt(tPeer.peakRssMB)} MB` : '') +
      '.',
  );
  lines.push(
    `JSON rows: ${jsonObj.n.toLocaleString('en-US')} items, \`JSON.stringify(x).length\` = ${jsonObj.bytes.toLocaleString('en-US')}. Each round runs ${CFG.jsonReps} sequential cells per case, and the figure is the median host wall per cell. ` +
      'The peer returns its value by structured clone (postMessage).',
  );
  if (problems.length) {
    lines.push('');
    lines.push('Failures (failed cells are excluded from the figures):');
    for (const p of problems) lines.push(`- ${p}`);
  }
  process.stdout.write(lines.join('\n') + '\n');

  const out = {
    machine,
    quick: QUICK,
    config: { ...CFG, roundTimeoutMs: ROUND_TIMEOUT_MS, heapLimits: HEAP_LIMITS, runtime: addon.configured, peerPoolSize: THREADS, bareThreadsThisProcess: bareThreads },
    totalSeconds: msSince(started) / 1000,
    calibration: { heaps: calibration, jsonObject: jsonObj },
    flatness32over1: flatness,
    flatness32over1PerRound: roundFlatness,
    referenceDocumented32MiBMs: REFERENCE_32MIB_MS,
    rows: rowsOut.map(({ group, key, name, kind, ours, peer, ratio }) => ({ group, key, name, kind, ours, peer, ratio })),
    groups,
    problems,
    table: lines.join('\n'),
  };
  let all = {};
  if (existsSync(RESULTS_FILE)) {
    try {
      all = JSON.parse(readFileSync(RESULTS_FILE, 'utf8'));
    } catch (err) {
      log(`results.json was not valid JSON (${err.message}); starting a new file`);
    }
  }
  all.suspend = out;
  writeFileSync(RESULTS_FILE, JSON.stringify(all, null, 2) + '\n');
  log(`\nwrote ${RESULTS_FILE} (suspend key, ${out.totalSeconds.toFixed(1)} s)`);
  return 0; // like run.mjs: failures are reported in the table, not through the exit code
}

if (CHILD) {
  const task = CHILD_TASKS[CHILD];
  (task ? Promise.resolve().then(task) : Promise.reject(new Error(`unknown child task ${CHILD}`)))
    .catch((err) => ({ ok: false, error: String(err?.message ?? err) }))
    .then((r) => {
      process.stdout.write(JSON.stringify(r) + '\n');
      process.exit(0);
    });
} else {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
