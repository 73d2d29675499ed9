#!/usr/bin/env node
// codemode-native vs. the stacks a gateway author would pick instead, in one run on one machine.
//
//   npm run bench                     full run (a few minutes on 2 cores)
//   BENCH_QUICK=1 npm run bench       shortened run for development (also `--quick`)
//   BENCH_ROUNDS=3                    override the number of measured rounds
//   BENCH_ONLY=trivial,compute        only these workload groups (ids: trivial nested compute suspend
//                                     memory ts catalog concurrency prompt mcp startup; many cpu burst
//                                     are bench/many.mjs's, run after this file by `npm run bench`)
//   BENCH_SIDES=ours,process,reference  only these sides (ours, process, reference, ivm, nodevm)
//   BENCH_NO_INSTALL=1                do not try to install isolated-vm into bench/.peers/
//
// stdout: ONE markdown table plus a machine line and notes. stderr: progress.
// bench/results.json: every raw figure (each round of each side, warm-ups, failures, config).
//
// Sides (see bench/README.md):
//   ours       CodeModeSession.exec / wait on the native addon, isolation: "thread" (worker threads)
//   process    the same with isolation: "process" (a codemode-sandbox process per session)
//   reference  peers/quickjs-wasi-pool.mjs: worker_threads × fresh quickjs-wasi VM, snapshot/restore
//   ivm        peers/isolated-vm-pool.mjs: isolated-vm isolates × fresh context per cell
//   nodevm     peers/node-vm-pool.mjs: worker_threads × fresh node:vm context per cell
// Memory and thread figures come from fresh child processes (`--child <task> <side>`).
import { createRequire } from 'node:module';
import { writeFileSync, readFileSync, readdirSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { makeCatalog } from './catalog-fixture.mjs';
import { makeTsCell } from './ts-fixture.mjs';

const require = createRequire(import.meta.url);
const SELF = fileURLToPath(import.meta.url);
const QUICK = process.argv.includes('--quick') || !!process.env.BENCH_QUICK;
const CHILD = process.argv.includes('--child') ? process.argv.slice(process.argv.indexOf('--child') + 1, process.argv.indexOf('--child') + 3) : null;
const THREADS = os.availableParallelism();
const MiB = 1024 * 1024;
const ALL_SIDES = ['ours', 'process', 'reference', 'ivm', 'nodevm'];
// Our two isolation modes: `ours` keeps its id (thread mode, what it measured before process
// isolation existed) so old BENCH_SIDES lines and results.json readers keep working.
const OURS = ['ours', 'process'];
const ISOLATION = { ours: 'thread', process: 'process' };
const SIDE_LABEL = { ours: 'codemode-native (thread)', process: 'codemode-native (process)', reference: 'quickjs-wasi pool (reference)', ivm: 'isolated-vm', nodevm: 'node:vm pool' };
const WANT_SIDES = (process.env.BENCH_SIDES ?? ALL_SIDES.join(',')).split(',').filter((s) => ALL_SIDES.includes(s));
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null;

const CFG = QUICK
  ? { rounds: 2, trivialSeq: 200, tputCells: 600, inflight: 256, seqNested: 1, fan: 3, compute: 1, json: 2, yields: 8, ts: 10, build: 2, search: 1, parked: 100, sessions: 200, concurrent: 1000, toolDelayMs: 200, mcpCalls: 300, mcpReps: 1, startupReps: 5 }
  : { rounds: 5, trivialSeq: 1000, tputCells: 3000, inflight: 256, seqNested: 2, fan: 10, compute: 1, json: 4, yields: 20, ts: 40, build: 4, search: 2, parked: 100, sessions: 200, concurrent: 1000, toolDelayMs: 200, mcpCalls: 1000, mcpReps: 7, startupReps: 15 };
if (process.env.BENCH_ROUNDS) CFG.rounds = Math.max(1, Number(process.env.BENCH_ROUNDS) | 0);
const ROUND_TIMEOUT_MS = 120_000;
const HEAP_LIMITS = { memoryLimitBytes: 128 * MiB, maxSnapshotBytes: 256 * MiB, timeoutMs: 30_000 };

const log = (...a) => process.stderr.write(a.join(' ') + '\n');
const nowNs = () => process.hrtime.bigint();
const msSince = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
class CellFailure extends Error {}
const describe = (r) => (r ? `${r.status}${r.code ? ` (${r.code})` : ''}${r.reason ? ` reason=${r.reason}` : ''}${r.error ? `: ${r.error}` : ''}` : 'no result');
function expect(r, what, status = 'completed', check) {
  if (!r || r.status !== status) throw new CellFailure(`${what}: expected ${status}, got ${describe(r)}`.slice(0, 300));
  const problem = check?.(r);
  if (problem) throw new CellFailure(`${what}: ${problem}`.slice(0, 300));
  return r;
}
function withTimeout(p, ms, what) {
  let timer;
  return Promise.race([p, new Promise((_, rej) => (timer = setTimeout(() => rej(new CellFailure(`${what} did not finish within ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}
function threadsNow() {
  try {
    return Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
  } catch {
    return null;
  }
}
// Sandbox processes of `isolation: "process"` (Linux): children of this process whose
// /proc/<pid>/stat comm is `codemode-sandbox` (the kernel keeps 15 characters of it).
function sandboxPids() {
  const pids = [];
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('('), close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      if (ppid === process.pid && comm === '(codemode-sandbo') pids.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
function procStatus(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
// RSS in bytes of this process plus its sandbox processes (parked runs of process mode live
// there), with the sandboxes' share apart.
function rssTree() {
  const self = process.memoryUsage.rss();
  let sandboxes = 0;
  const pids = sandboxPids();
  for (const pid of pids) sandboxes += (procStatus(pid, 'VmRSS') ?? 0) * 1024;
  return { total: self + sandboxes, self, sandboxes, sandboxCount: pids.length };
}
// OS threads of this process plus its sandbox processes.
function threadsTree() {
  const self = threadsNow();
  if (self == null) return null;
  return self + sandboxPids().reduce((n, pid) => n + (procStatus(pid, 'Threads') ?? 0), 0);
}
// Reads the version from the package's own package.json: some packages (the MCP SDK) map
// `<name>/package.json` in their exports to a different file.
function readPackageVersion(name) {
  try {
    return JSON.parse(readFileSync(fileURLToPath(new URL(`../node_modules/${name}/package.json`, import.meta.url)), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}
async function settleGc() {
  for (let i = 0; i < 3; i++) {
    global.gc?.();
    await sleep(50);
  }
}

// ---------------------------------------------------------------- tools and cell sources
const addTool = {
  name: 'add',
  description: 'Add two numbers and return { sum }.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
  execute: async ({ a, b }) => ({ sum: a + b }),
};
const slowTool = (ms) => ({ name: 'slow', description: `Resolves after ${ms} ms.`, parameters: { type: 'object' }, execute: () => new Promise((r) => setTimeout(() => r({ ok: true }), ms)) });
const neverTool = (onCall) => ({ name: 'never', description: 'Never settles.', parameters: { type: 'object' }, execute: () => (onCall?.(), new Promise(() => {})) });

let computeRef = 0;
for (let i = 0; i < 5e6; i++) computeRef += Math.sqrt(i);
const jsonItems = (() => {
  // ~1 MB of JSON: size the item count on the host with the same statement the guest runs
  const src = (n) => `const x = { items: [] };\nfor (let i = 0; i < ${n}; i++) x.items.push({ id: i, name: "item-" + i, tags: ["alpha", "beta", "gamma"], score: i * 0.25, active: i % 2 === 0, note: "lorem ipsum dolor sit amet, consectetur adipiscing elit " + i });\n`;
  const bytes = (n) => new Function(`${src(n)}return JSON.stringify(x).length`)();
  let n = Math.round(MiB / (bytes(1000) / 1000));
  for (let i = 0; i < 3; i++) n = Math.round((n * MiB) / bytes(n));
  return { n, bytes: bytes(n), src: src(n) };
})();
const CELLS = {
  trivial: { code: 'return 1 + 1', check: (v) => v === 2 },
  nested: { code: 'return await add({ a: 1, b: 2 })', check: (v) => v?.sum === 3 },
  seqNested: { code: 'let s = 0;\nfor (let i = 0; i < 1000; i++) s += (await add({ a: i, b: 1 })).sum;\nreturn s', check: (v) => v === 500500 },
  fanOut: { code: 'const r = await Promise.all(Array.from({ length: 100 }, (_, i) => add({ a: i, b: 1 })));\nreturn r.reduce((s, x) => s + x.sum, 0)', check: (v) => v === 5050 },
  compute: { code: 'let s = 0; for (let i = 0; i < 5e6; i++) s += Math.sqrt(i); return s', check: (v) => Math.abs(v - computeRef) <= 1e-9 * computeRef },
  jsonBuild: { code: `${jsonItems.src}return x.items.length`, check: (v) => v === jsonItems.n },
  jsonRound: { code: `${jsonItems.src}const s = JSON.stringify(x);\nconst y = JSON.parse(s);\nreturn y.items.length + s.length`, check: (v) => v === jsonItems.n + jsonItems.bytes },
  jsonReturn: { code: `${jsonItems.src}return x`, check: (v) => v?.items?.length === jsonItems.n && v.items[jsonItems.n - 1].id === jsonItems.n - 1 },
};
const heapCode = (n, yields) => `const big = [];\nfor (let i = 0; i < ${n}; i++) big.push("x".repeat(1024) + i);\nfor (let i = 0; i < ${yields}; i++) await yield_control("tick");\nreturn big.length`;

// ---------------------------------------------------------------- sides
// A side: { name, exec(cellKey | code), wait(runId)?, close(), ... }. Missing sides carry { missing }.
let addonConfigured = false;
function loadAddon() {
  const addon = require('../index.js');
  if (!addonConfigured) {
    addonConfigured = true;
    try {
      // maxSuspendedRuns above the 100 parked runs of workload 5
      addon.configureCodeModeRuntime({ workerThreads: THREADS, maxSuspendedRuns: 256 });
    } catch (err) {
      log(`configureCodeModeRuntime failed (defaults kept): ${err?.message ?? err}`);
    }
  }
  return addon;
}

// isolation: 'thread' for the `ours` side, 'process' for the `process` side.
async function makeOurs(tools = [addTool], limits = {}, isolation = 'thread') {
  const { CodeModeSession } = loadAddon();
  const s = new CodeModeSession({ sessionId: `bench-${Math.random().toString(36).slice(2)}`, isolation, tools, limits: { maxPendingToolCalls: 128, maxOutputBytes: 4 * MiB, ...limits } });
  return { exec: (code) => s.exec({ code }), wait: (runId) => s.wait({ runId }), session: s, close: () => s.close() };
}

let wasmModule = null;
async function makeReference(tools = [addTool], extra = {}) {
  const { QuickJsWasiPool, compileQuickJsModule } = await import('./peers/quickjs-wasi-pool.mjs');
  wasmModule ??= await compileQuickJsModule();
  const pool = new QuickJsWasiPool({ module: wasmModule, tools, size: THREADS, timeoutMs: 30_000, memoryLimit: 128 * MiB, fresh: process.env.BENCH_QJS_FRESH ?? 'create', ...extra });
  await withTimeout(pool.ready(), 30_000, 'quickjs-wasi pool start');
  return { exec: (code) => pool.exec(code), wait: (runId) => pool.wait(runId), pool, close: () => pool.close() };
}

async function makeIvm(tools = [addTool]) {
  const { IsolatedVmPool, loadIsolatedVm } = await import('./peers/isolated-vm-pool.mjs');
  const ivm = loadIsolatedVm();
  // One isolate hosts every in-flight context on its core (up to ~128 at 256 in flight), so
  // its limit is a multiple of the per-cell 128 MB the other sides get.
  const pool = new IsolatedVmPool({ ivm, tools, size: THREADS, timeoutMs: 30_000, memoryLimitMb: 1024 });
  await withTimeout(pool.ready(), 30_000, 'isolated-vm pool start');
  return { exec: (code) => pool.exec(code), pool, close: () => pool.close() };
}

async function makeNodeVm(tools = [addTool]) {
  const { NodeVmPool } = await import('./peers/node-vm-pool.mjs');
  const pool = new NodeVmPool({ tools, size: THREADS, timeoutMs: 30_000 });
  await withTimeout(pool.ready(), 30_000, 'node:vm pool start');
  return { exec: (code) => pool.exec(code), pool, close: () => pool.close() };
}
const makeProcess = (tools = [addTool], limits = {}) => makeOurs(tools, limits, 'process');
const MAKERS = { ours: makeOurs, process: makeProcess, reference: makeReference, ivm: makeIvm, nodevm: makeNodeVm };

// ---------------------------------------------------------------- measurement primitives
async function runCell(side, key) {
  const c = CELLS[key];
  return expect(await side.exec(c.code), key, 'completed', (r) => (c.check(r.value) ? null : `unexpected value ${JSON.stringify(r.value)?.slice(0, 100)}`));
}
async function seqLatencyUs(side, key, n) {
  const lat = [];
  for (let i = 0; i < n; i++) {
    const t = nowNs();
    await runCell(side, key);
    lat.push(Number(nowNs() - t) / 1e3);
  }
  return { figure: median(lat), n };
}
async function throughput(side, key, total, inflight) {
  let next = 0;
  let failed = 0;
  let first = null;
  const t0 = nowNs();
  const worker = async () => {
    while (next < total) {
      next++;
      try {
        await runCell(side, key);
      } catch (err) {
        failed++;
        first ??= err.message;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(inflight, total) }, worker));
  const ms = msSince(t0);
  if (failed) throw new CellFailure(`${failed}/${total} cells failed; first: ${first}`);
  return { figure: total / (ms / 1000), ms, total };
}
async function cellWall(side, key, reps, divisor = 1, scale = 1) {
  const walls = [];
  for (let i = 0; i < reps; i++) {
    const t = nowNs();
    await runCell(side, key);
    walls.push(msSince(t));
  }
  return { figure: (median(walls) * scale) / divisor, wallsMs: walls };
}
// One suspended cell per heap size: exec to the first yield, then `yields` wait() round trips.
async function suspendRound(side, n, yields) {
  let r = expect(await side.exec(heapCode(n, yields)), 'heap exec', 'waiting');
  const runId = r.runId;
  const waits = [];
  for (let k = 1; k <= yields; k++) {
    const t = nowNs();
    r = await withTimeout(side.wait(runId), 30_000, `wait ${k}`);
    const dt = msSince(t);
    if (k < yields) {
      expect(r, `wait ${k}`, 'waiting');
      waits.push(dt);
    } else expect(r, 'final wait', 'completed', (x) => (x.value === n ? null : `value ${x.value}`));
  }
  return { figure: median(waits), waitsMs: waits, snapshotBytes: r.snapshotBytes };
}

// ---------------------------------------------------------------- child tasks (fresh processes)
const CHILD_TASKS = {
  // Workload 5a: RSS per parked run. ours: waiting runs; reference: stored snapshots;
  // ivm / node:vm: live contexts awaiting a tool that never settles (they cannot suspend).
  async park(sideName) {
    let calls = 0;
    const tools = [neverTool(() => calls++)];
    const code = (k) => `const small = Array.from({ length: 200 }, (_, i) => ({ i, s: "v" + i + "-${k}" }));\nawait never({});\nreturn small.length`;
    let side;
    const ours = OURS.includes(sideName);
    if (ours) side = await makeOurs(tools, { timeoutMs: 100 }, ISOLATION[sideName]);
    else if (sideName === 'reference') side = await makeReference(tools, { suspendTools: ['never'] });
    else side = await MAKERS[sideName](tools);
    const parkOne = (k) => side.exec(code(k));
    // warm-up: one parked run, dropped again
    const w = parkOne('w');
    if (ours || sideName === 'reference') {
      expect(await w, 'warm-up park', 'waiting');
      if (ours) for (const x of side.session.runs()) side.session.cancelRun(x.runId);
      else await side.pool.dropRuns();
    } else {
      while (calls < 1) await sleep(5);
    }
    await settleGc();
    calls = 0;
    // The process side's sandbox started with the warm-up park, so the delta is the runs only.
    const before = rssTree();
    const ps = Array.from({ length: CFG.parked }, (_, k) => parkOne(k));
    if (ours || sideName === 'reference') {
      const rs = await Promise.all(ps);
      const bad = rs.filter((r) => r?.status !== 'waiting');
      if (bad.length) return { ok: false, error: `${bad.length}/${CFG.parked} did not park; first: ${describe(bad[0])}` };
    } else {
      const t0 = Date.now();
      while (calls < CFG.parked && Date.now() - t0 < 30_000) await sleep(10);
      if (calls < CFG.parked) return { ok: false, error: `only ${calls}/${CFG.parked} cells reached the tool` };
    }
    await settleGc();
    const after = rssTree();
    const detail = ours ? { runsBytesMedian: median(side.session.runs().map((r) => r.bytes)) } : {};
    return {
      ok: true,
      figure: (after.total - before.total) / CFG.parked / 1024,
      rssBeforeMB: before.total / MiB,
      rssAfterMB: after.total / MiB,
      gatewayDeltaKBPerRun: (after.self - before.self) / CFG.parked / 1024,
      sandboxDeltaKBPerRun: (after.sandboxes - before.sandboxes) / CFG.parked / 1024,
      sandboxCount: after.sandboxCount,
      ...detail,
    };
  },
  // Workload 5b: RSS per idle session (ours only: the peers have no session object).
  async sessions() {
    const { CodeModeSession } = loadAddon();
    const warm = new CodeModeSession({ sessionId: 'idle-warm', tools: makeCatalog(10) });
    expect(await warm.exec({ code: 'return 1' }), 'warm-up');
    await settleGc();
    const before = process.memoryUsage.rss();
    const ss = Array.from({ length: CFG.sessions }, (_, i) => new CodeModeSession({ sessionId: `idle-${i}`, tools: makeCatalog(10) }));
    await settleGc();
    const after = process.memoryUsage.rss();
    const ok = ss.every((s) => s.telemetry().catalogSize === 10);
    await Promise.all(ss.map((s) => s.close()));
    return ok ? { ok: true, figure: (after - before) / CFG.sessions / 1024 } : { ok: false, error: 'catalogSize mismatch' };
  },
  // Workload 11: start-up of a fresh session's first cell (in process mode: spawning its
  // sandbox) and the idle sandbox's RSS. A warm-up session first pays the process-wide
  // start (worker pool; in process mode the first spawn, loading the executable into the
  // page cache), so every measured session starts like a gateway's N-th session.
  async startup(sideName) {
    const { CodeModeSession } = loadAddon();
    const isolation = ISOLATION[sideName];
    const mk = (i) => new CodeModeSession({ sessionId: `startup-${i}`, isolation, tools: [addTool] });
    const trivial = async (s, what) => expect(await s.exec({ code: 'return 1' }), what, 'completed', (r) => (r.value === 1 ? null : `value ${r.value}`));
    const warm = mk('warm');
    for (let i = 0; i < 5; i++) await trivial(warm, 'warm-up');
    const firsts = [];
    const warms = [];
    const rssKB = [];
    for (let i = 0; i < CFG.startupReps; i++) {
      const known = new Set(sandboxPids());
      const s = mk(i);
      let t = nowNs();
      await trivial(s, 'first cell');
      firsts.push(msSince(t));
      if (isolation === 'process') {
        const fresh = sandboxPids().filter((p) => !known.has(p));
        if (fresh.length !== 1) return { ok: false, error: `expected one new sandbox process after the first cell, found ${fresh.length}` };
        rssKB.push(procStatus(fresh[0], 'VmRSS'));
      }
      const ws = [];
      for (let k = 0; k < 5; k++) {
        t = nowNs();
        await trivial(s, 'warm cell');
        ws.push(msSince(t));
      }
      warms.push(median(ws));
      await s.close();
      await sleep(20); // let the closed session's sandbox exit before the next spawn
    }
    await warm.close();
    const first = median(firsts);
    const figures = { first, startup: first - median(warms) };
    if (rssKB.length) figures.idleRss = median(rssKB);
    return { ok: true, figure: first, figures, firstMs: firsts, warmMs: warms, idleRssKB: rssKB };
  },
  // Workload 8: 1,000 concurrent cells each awaiting a 200 ms tool; wall time and peak threads.
  async concurrency(sideName) {
    // process side: the sandbox's threads count too (sampling /proc only for that side)
    const threads = sideName === 'process' ? threadsTree : threadsNow;
    const bare = threads();
    const side = await MAKERS[sideName]([slowTool(CFG.toolDelayMs)]);
    const code = 'const r = await slow({});\nreturn r.ok === true ? 1 : 0';
    const batch = (n) => Promise.all(Array.from({ length: n }, () => side.exec(code)));
    const warm = await batch(100);
    if (warm.some((r) => r?.status !== 'completed')) return { ok: false, error: `warm-up failed: ${describe(warm.find((r) => r?.status !== 'completed'))}` };
    await sleep(100);
    const idle = threads();
    let peak = idle;
    const timer = setInterval(() => (peak = Math.max(peak, threads() ?? 0)), 20);
    const t0 = nowNs();
    const rs = await batch(CFG.concurrent);
    const wallMs = msSince(t0);
    clearInterval(timer);
    peak = Math.max(peak, threads() ?? 0);
    await side.close();
    const bad = rs.filter((r) => r?.status !== 'completed' || r.value !== 1);
    if (bad.length) return { ok: false, error: `${bad.length}/${CFG.concurrent} failed; first: ${describe(bad[0])}` };
    return { ok: true, figure: wallMs, figures: { wallMs, peakThreads: bare == null ? null : peak }, bareThreads: bare, idleThreads: idle };
  },
};

function runChild(task, side) {
  return new Promise((resolve) => {
    const t0 = nowNs();
    const cp = spawn(process.execPath, ['--expose-gc', SELF, '--child', task, side ?? '-', ...(QUICK ? ['--quick'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    cp.stdout.on('data', (d) => (out += d));
    const timer = setTimeout(() => cp.kill('SIGKILL'), ROUND_TIMEOUT_MS);
    cp.on('close', (code, signal) => {
      clearTimeout(timer);
      let r;
      try {
        r = JSON.parse(out.trim().split('\n').pop() ?? '');
      } catch {
        r = { ok: false, error: `child ${task}/${side} exited (${signal ?? code}) without a result` };
      }
      resolve({ ...r, roundMs: msSince(t0) });
    });
  });
}

// ---------------------------------------------------------------- workloads
// Each group: { id, rows: [{ key, name, kind }], sides, setup?, round(sideName, ctx, warmup) → { figures: { key: n } } }
// ownSides: the group measures each side with objects of its own (from setup), not the shared pools.
// kind: 'time' | 'memory' | 'count' | 'bytes' (lower is better), 'rate' (higher is better).
const inProc = (fn) => async (sideName, ctx, warmup) => fn(ctx.sides[sideName], warmup, sideName, ctx);
const GROUPS = [
  {
    id: 'trivial',
    rows: [
      { key: 'lat', kind: 'time', name: '1. trivial cell `return 1 + 1`: sequential latency (µs/cell)' },
      { key: 'tput', kind: 'rate', name: `1. trivial cell: throughput, ${CFG.inflight} in flight (cells/s)` },
    ],
    round: inProc(async (s, w) => ({
      lat: (await seqLatencyUs(s, 'trivial', w ? 50 : CFG.trivialSeq)).figure,
      tput: (await throughput(s, 'trivial', w ? 300 : CFG.tputCells, CFG.inflight)).figure,
    })),
  },
  {
    id: 'nested',
    rows: [
      { key: 'tput', kind: 'rate', name: `2. one async tool call per cell: throughput, ${CFG.inflight} in flight (cells/s)` },
      { key: 'seq', kind: 'time', name: '2. 1,000 sequential awaited tool calls in one cell (µs/call)' },
      { key: 'fan', kind: 'time', name: '2. fan-out: `Promise.all` of 100 tool calls in one cell (ms/cell)' },
    ],
    round: inProc(async (s, w) => ({
      tput: (await throughput(s, 'nested', w ? 300 : CFG.tputCells, CFG.inflight)).figure,
      seq: (await cellWall(s, 'seqNested', CFG.seqNested, 1000, 1000)).figure,
      fan: (await cellWall(s, 'fanOut', w ? 2 : CFG.fan)).figure,
    })),
  },
  {
    id: 'compute',
    rows: [
      { key: 'sqrt', kind: 'time', name: '3. compute: 5e6 × `Math.sqrt` loop (ms/cell)' },
      { key: 'build', kind: 'time', name: `3. build a ~1 MB object in the guest (ms/cell, baseline of the next two)` },
      { key: 'json', kind: 'time', name: '3. build + `JSON.parse(JSON.stringify(x))` of it in the guest (ms/cell)' },
      { key: 'ret', kind: 'time', name: '3. build + return it to the host (ms/cell)' },
    ],
    round: inProc(async (s, w) => ({
      sqrt: (await cellWall(s, 'compute', CFG.compute)).figure,
      build: (await cellWall(s, 'jsonBuild', w ? 1 : CFG.json)).figure,
      json: (await cellWall(s, 'jsonRound', w ? 1 : CFG.json)).figure,
      ret: (await cellWall(s, 'jsonReturn', w ? 1 : CFG.json)).figure,
    })),
  },
  {
    id: 'suspend',
    sides: ['ours', 'process', 'reference'],
    rows: [1, 8, 32].map((mib) => ({ key: `w${mib}`, kind: 'time', name: `4. suspend + resume, guest heap ${mib} MB: one \`wait()\` round trip (ms)` })),
    async setup(ctx) {
      // Calibrate the string count per heap size on ours (same QuickJS engine family on every
      // side; thread mode when it runs, else process mode: the same engine, the same heap).
      const s = ctx.sides.ours ?? ctx.sides.process ?? (ctx.sides.ours = await makeOurs([addTool], HEAP_LIMITS));
      const heap = async (n) => {
        const w = expect(await s.exec(heapCode(n, 1)), 'calibration', 'waiting');
        expect(await s.wait(w.runId), 'calibration wait');
        return w.telemetry.run.peakHeapBytes;
      };
      const base = await heap(0);
      const slope = ((await heap(4096)) - base) / 4096;
      ctx.heapN = {};
      for (const mib of [1, 8, 32]) {
        let n = Math.max(1, Math.round((mib * MiB - base) / slope));
        n = Math.max(1, Math.round((n * (mib * MiB - base)) / ((await heap(n)) - base)));
        ctx.heapN[mib] = n;
      }
      log(`  heap sizes (strings of 1 KB): ${JSON.stringify(ctx.heapN)}`);
      return { heapN: ctx.heapN, baseHeapBytes: base };
    },
    round: inProc(async (s, w, _n, ctx) => {
      const out = {};
      const snap = {};
      for (const mib of [1, 8, 32]) {
        const r = await suspendRound(s, ctx.heapN[mib], w ? 3 : CFG.yields);
        out[`w${mib}`] = r.figure;
        if (r.snapshotBytes) snap[mib] = r.snapshotBytes;
      }
      return { ...out, detail: { snapshotBytes: snap } };
    }),
  },
  {
    id: 'memory',
    rows: [
      { key: 'park', kind: 'memory', name: `5. memory per parked run: RSS delta of ${CFG.parked} parked runs / ${CFG.parked} (KB/run); process mode: gateway + its sandbox process` },
      { key: 'session', kind: 'memory', sides: ['ours'], name: `5. memory per idle session with 10 tools: RSS delta / ${CFG.sessions} (KB/session)` },
    ],
    child: true,
    async round(sideName) {
      const p = await runChild('park', sideName);
      if (!p.ok) throw new CellFailure(p.error);
      const out = { park: p.figure, detail: { park: p } };
      if (sideName === 'ours') {
        const s = await runChild('sessions', sideName);
        out.session = s.ok ? s.figure : { error: s.error };
      }
      return out;
    },
  },
  {
    id: 'ts',
    sides: ['ours', 'reference'],
    ownSides: true,
    rows: [{ key: 'ts', kind: 'time', name: '6. TypeScript: transform a 200-line cell (µs); reference = `typescript.transpileModule`' }],
    async setup(ctx) {
      ctx.tsCell = makeTsCell(200);
      ctx.ts = require('typescript');
      const { transformTypeScript } = loadAddon();
      ctx.oxc = transformTypeScript;
      const a = transformTypeScript(ctx.tsCell);
      const b = ctx.ts.transpileModule(ctx.tsCell, { compilerOptions: { target: ctx.ts.ScriptTarget.ES2022, module: ctx.ts.ModuleKind.ESNext } });
      if (!a.code) throw new CellFailure(`oxc transform failed: ${JSON.stringify(a)}`);
      return { lines: ctx.tsCell.split('\n').length, bytes: ctx.tsCell.length, oxcOutBytes: a.code.length, tscOutBytes: b.outputText.length, typescript: ctx.ts.version };
    },
    async round(sideName, ctx, w) {
      const n = w ? 5 : CFG.ts;
      const xs = [];
      for (let i = 0; i < n; i++) {
        const src = ctx.tsCell + `\n// ${i}`; // defeat any caching
        const t = nowNs();
        if (sideName === 'ours') {
          if (!ctx.oxc(src).code) throw new CellFailure('oxc transform failed');
        } else ctx.ts.transpileModule(src, { compilerOptions: { target: ctx.ts.ScriptTarget.ES2022, module: ctx.ts.ModuleKind.ESNext } });
        xs.push(Number(nowNs() - t) / 1e3);
      }
      return { ts: median(xs) };
    },
  },
  {
    id: 'catalog',
    sides: ['ours'],
    ownSides: true,
    rows: [
      { key: 'build', kind: 'time', name: '7. catalog of 1,000 tools: `new CodeModeSession` + `modelTools()` (ms)' },
      { key: 'search', kind: 'time', name: '7. catalog of 1,000 tools: `catalog.search("send email")` in a cell (µs/search)' },
    ],
    async setup(ctx) {
      ctx.catalogTools = makeCatalog(1000);
      const { CodeModeSession } = loadAddon();
      ctx.catalogSession = new CodeModeSession({ sessionId: 'bench-catalog', tools: ctx.catalogTools });
      ctx.CodeModeSession = CodeModeSession;
    },
    async round(_side, ctx, w) {
      const builds = [];
      for (let i = 0; i < (w ? 1 : CFG.build); i++) {
        const t = nowNs();
        const s = new ctx.CodeModeSession({ sessionId: `bench-build-${Math.random()}`, tools: ctx.catalogTools });
        const mt = s.modelTools();
        builds.push(msSince(t));
        if (mt[0]?.name !== 'exec') throw new CellFailure('modelTools() did not list exec first');
        await s.close();
      }
      const code = 'let hits = 0;\nfor (let i = 0; i < 1000; i++) hits += (await catalog.search("send email")).length;\nreturn hits';
      const searches = [];
      for (let i = 0; i < (w ? 1 : CFG.search); i++) {
        const t = nowNs();
        const r = expect(await ctx.catalogSession.exec({ code }), 'search cell', 'completed', (x) => (x.value > 0 ? null : 'no hits'));
        searches.push(r.telemetry?.run?.wallMs ?? msSince(t)); // ms per 1,000 = µs per search
      }
      return { build: median(builds), search: median(searches) };
    },
  },
  {
    id: 'concurrency',
    rows: [
      { key: 'wallMs', kind: 'time', name: `8. ${CFG.concurrent.toLocaleString('en-US')} concurrent cells each awaiting a ${CFG.toolDelayMs} ms tool: wall (ms)` },
      { key: 'peakThreads', kind: 'count', name: '8. … peak OS threads of the process (`/proc/self/status`); process mode: + its sandbox process' },
    ],
    child: true,
    async round(sideName) {
      const r = await runChild('concurrency', sideName);
      if (!r.ok) throw new CellFailure(r.error);
      return { ...r.figures, detail: { bareThreads: r.bareThreads, idleThreads: r.idleThreads } };
    },
  },
  {
    id: 'prompt',
    sides: ['ours', 'reference'],
    ownSides: true,
    rows: [50, 200, 1000].map((n) => ({ key: `t${n}`, kind: 'bytes', name: `9. model-visible tool payload, ${n.toLocaleString('en-US')} tools (bytes); reference = every full schema` })),
    deterministic: true,
    async round(sideName) {
      const out = {};
      for (const n of [50, 200, 1000]) {
        const tools = makeCatalog(n);
        if (sideName === 'ours') {
          const s = new (loadAddon().CodeModeSession)({ sessionId: `prompt-${n}`, tools });
          out[`t${n}`] = Buffer.byteLength(JSON.stringify(s.modelTools()));
          await s.close();
        } else out[`t${n}`] = Buffer.byteLength(JSON.stringify(tools.map(({ name, description, parameters }) => ({ name, description, parameters }))));
      }
      return out;
    },
  },
  {
    id: 'mcp',
    sides: ['ours', 'process', 'reference'],
    ownSides: true,
    rows: [
      { key: 'call', kind: 'time', name: `10. MCP tool call over the SDK in-memory transport, ${CFG.mcpCalls.toLocaleString('en-US')} sequential awaited calls (µs/call); ours = \`await MCP.srv.echo(…)\` in one cell, reference = direct \`client.callTool\` from Node` },
      { key: 'overhead', kind: 'time', sides: OURS, name: '10. … overhead of the guest call over the direct call, same round (µs/call)' },
      { key: 'factor', kind: 'count', sides: OURS, name: '10. … guest call time / direct call time, same round (×)' },
      { key: 'direct', kind: 'time', sides: OURS, name: '10. … direct `client.callTool` from Node, same round (µs/call)' },
      { key: 'plain', kind: 'time', sides: OURS, name: '10. … a plain host tool of the same shape from the guest, `await echo(…)`, same round (µs/call)' },
      { key: 'excess', kind: 'time', sides: OURS, name: '10. … MCP call − (plain host tool call + direct call), same round (µs/call; the direct call timed in a hot loop)' },
      { key: 'tool', kind: 'time', sides: OURS, name: '10. … a plain host tool whose `execute` makes the same `client.callTool` (no options), from the guest, same round (µs/call)' },
      { key: 'excessTool', kind: 'time', sides: OURS, name: '10. … MCP call − that host tool call, same round (µs/call; target ≤ 10)' },
    ],
    // One in-memory SDK server and client serve both sides, so the only difference is the
    // path from guest code through the addon to `client.callTool` and back.
    async setup(ctx) {
      const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
      const { z } = await import('zod');
      const server = new McpServer({ name: 'bench', version: '1.0.0' });
      server.registerTool('echo', { description: 'Echo text and n.', inputSchema: { text: z.string(), n: z.number() } }, async ({ text, n }) => ({ content: [{ type: 'text', text: `${text}:${n}` }] }));
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(a);
      const client = new Client({ name: 'bench', version: '1' });
      await client.connect(b);
      const { CodeModeSession } = loadAddon();
      // One session per isolation mode, both on the same client.
      const sessions = Object.fromEntries(OURS.map((s) => [s, new CodeModeSession({ sessionId: `bench-mcp-${s}`, isolation: ISOLATION[s], mcpServers: [{ name: 'srv', client }], limits: { timeoutMs: 30_000 } })]));
      // The same call as a plain host tool (same input, same answer), the guest-side floor.
      const echoTool = {
        name: 'echo',
        description: 'Echo text and n.',
        parameters: { type: 'object', properties: { text: { type: 'string' }, n: { type: 'number' } }, required: ['text', 'n'] },
        execute: async ({ text, n }) => ({ content: [{ type: 'text', text: `${text}:${n}` }] }),
      };
      const plainSessions = Object.fromEntries(OURS.map((s) => [s, new CodeModeSession({ sessionId: `bench-mcp-plain-${s}`, isolation: ISOLATION[s], tools: [echoTool], limits: { timeoutMs: 30_000 } })]));
      // A host tool that is the SDK call: "a plain host tool call plus the SDK call itself"
      // timed as one, with the SDK called from the Node thread at the moment the guest asks,
      // as the MCP path calls it (a hot loop of direct calls runs it faster than that).
      const sdkTool = { ...echoTool, execute: (input) => client.callTool({ name: 'echo', arguments: input }) };
      const toolSessions = Object.fromEntries(OURS.map((s) => [s, new CodeModeSession({ sessionId: `bench-mcp-tool-${s}`, isolation: ISOLATION[s], tools: [sdkTool], limits: { timeoutMs: 30_000 } })]));
      const n = CFG.mcpCalls;
      ctx.mcp = { client, sessions, plainSessions, toolSessions, server, n };
      // Both sides check every answer, so neither can skip work the other does.
      ctx.mcp.direct = async () => {
        const t = nowNs();
        for (let i = 0; i < n; i++) {
          const r = await client.callTool({ name: 'echo', arguments: { text: 'hi', n: i } });
          if (r.content[0].text !== `hi:${i}`) throw new CellFailure(`direct call ${i}: ${JSON.stringify(r).slice(0, 100)}`);
        }
        return Number(nowNs() - t) / 1e3 / n;
      };
      // Host wall around exec: includes starting the cell (a trivial cell costs well under
      // 1 ms, under 1 µs per call at 1,000 calls).
      const cellOf = (callee) => `let ok = 0;\nfor (let i = 0; i < ${n}; i++) if ((await ${callee}({ text: "hi", n: i })).content[0].text === "hi:" + i) ok++;\nreturn ok`;
      const timedCell = async (session, code, what) => {
        const t = nowNs();
        const r = await session.exec({ code });
        const us = Number(nowNs() - t) / 1e3 / n;
        expect(r, what, 'completed', (x) => (x.value === n ? null : `${x.value}/${n} calls answered as expected`));
        return us;
      };
      ctx.mcp.guest = (sideName) => timedCell(sessions[sideName], cellOf('MCP.srv.echo'), 'MCP cell');
      ctx.mcp.plain = (sideName) => timedCell(plainSessions[sideName], cellOf('echo'), 'plain tool cell');
      ctx.mcp.tool = (sideName) => timedCell(toolSessions[sideName], cellOf('echo'), 'SDK host tool cell');
      return { calls: n, reps: CFG.mcpReps };
    },
    async round(sideName, ctx, w) {
      const reps = w ? 1 : CFG.mcpReps;
      const direct = [];
      const guest = [];
      const plain = [];
      const tool = [];
      for (let i = 0; i < reps; i++) {
        if (sideName === 'reference') {
          direct.push(await ctx.mcp.direct());
          continue;
        }
        // Paired with a direct and a plain-tool batch in the same round, rotating which goes
        // first, so the overhead is not skewed by drift between rounds.
        // The MCP batch and the SDK host tool batch stay adjacent (either order), and the
        // excess over that tool is the median of their per-pair differences: drift between
        // batches on a busy machine is larger than the excess itself.
        const pair = async () => {
          const both = [[ctx.mcp.guest, guest], [ctx.mcp.tool, tool]];
          for (const [batch, out] of i % 2 === 0 ? both : both.reverse()) out.push(await batch(sideName));
        };
        const batches = [() => ctx.mcp.direct().then((x) => direct.push(x)), () => ctx.mcp.plain(sideName).then((x) => plain.push(x)), pair];
        for (let k = 0; k < batches.length; k++) await batches[(i + k) % batches.length]();
      }
      if (sideName === 'reference') return { call: median(direct), detail: { directUs: direct } };
      const [g, d, p, t] = [median(guest), median(direct), median(plain), median(tool)];
      const excessTool = median(guest.map((x, k) => x - tool[k]));
      return { call: g, overhead: g - d, factor: g / d, direct: d, plain: p, excess: g - p - d, tool: t, excessTool, detail: { guestUs: guest, directUs: direct, plainUs: plain, toolUs: tool } };
    },
    async teardown(ctx) {
      for (const s of [...Object.values(ctx.mcp?.sessions ?? {}), ...Object.values(ctx.mcp?.plainSessions ?? {}), ...Object.values(ctx.mcp?.toolSessions ?? {})]) await s.close();
      await ctx.mcp?.client.close();
      await ctx.mcp?.server.close();
    },
  },
  {
    id: 'startup',
    sides: OURS,
    rows: [
      { key: 'first', kind: 'time', name: '11. fresh session: first `exec({ code: "return 1" })`, host wall (ms); process mode spawns the sandbox and answers its first cell' },
      { key: 'startup', kind: 'time', name: '11. … start-up cost: that first cell − a warm cell of the same session (ms)' },
      { key: 'idleRss', kind: 'memory', sides: ['process'], name: '11. idle sandbox process after one trivial cell: `VmRSS` of `/proc/<pid>/status` (KB)' },
    ],
    child: true,
    async round(sideName) {
      const r = await runChild('startup', sideName);
      if (!r.ok) throw new CellFailure(r.error);
      return { ...r.figures, detail: { firstMs: r.firstMs, warmMs: r.warmMs, idleRssKB: r.idleRssKB } };
    },
  },
];

// ---------------------------------------------------------------- driver
async function measure(fn) {
  const t0 = nowNs();
  try {
    const r = await withTimeout(fn(), ROUND_TIMEOUT_MS, 'round');
    return { ok: true, ...r, roundMs: msSince(t0) };
  } catch (err) {
    return { ok: false, error: String(err?.message ?? err), roundMs: msSince(t0) };
  }
}

function fmt(x) {
  const a = Math.abs(x);
  const d = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}
const fmtRatio = (x) => `${x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)}×`;
const oneLine = (m) => String(m).replace(/\s+/g, ' ').replace(/\|/g, '\\|').slice(0, 300);

function summarize(rounds, key) {
  const xs = rounds.filter((r) => r.ok && typeof r[key] === 'number').map((r) => r[key]);
  const errors = rounds.filter((r) => !r.ok || (r[key] && typeof r[key] === 'object')).map((r) => r.error ?? r[key]?.error);
  if (!xs.length) return { errors };
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length, rounds: rounds.length, errors };
}

async function main() {
  const started = nowNs();
  const machine = {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    availableParallelism: THREADS,
    memGB: +(os.totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
    loadavg: os.loadavg(),
  };
  const versions = { quickjsWasi: require('quickjs-wasi/package.json').version, typescript: require('typescript/package.json').version, mcpSdk: readPackageVersion('@modelcontextprotocol/sdk') };

  // Only what the selected groups use is installed and started: `BENCH_ONLY=ts` needs no
  // isolated-vm build and no worker pools.
  const selected = GROUPS.filter((g) => !ONLY || ONLY.has(g.id));
  if (!selected.length) {
    log('bench/run.mjs: none of its groups selected (BENCH_ONLY); many, cpu and burst run in bench/many.mjs');
    return;
  }
  const usedSides = new Set(selected.flatMap((g) => g.sides ?? ALL_SIDES));
  const sharedSides = new Set(selected.filter((g) => !g.child && !g.ownSides).flatMap((g) => g.sides ?? ALL_SIDES));

  // Peers that cannot load are "missing", never a crash.
  const missing = {};
  if (WANT_SIDES.includes('ivm') && usedSides.has('ivm')) {
    if (!process.env.BENCH_NO_INSTALL) {
      log('isolated-vm: checking bench/.peers/ (first run installs and builds it, ~2–5 min)…');
      const { ensureIsolatedVm } = await import('./peers/ensure-isolated-vm.mjs');
      const r = ensureIsolatedVm();
      if (!r.ok) missing.ivm = r.error;
      else versions.isolatedVm = r.version;
    }
    if (!missing.ivm) {
      try {
        const { loadIsolatedVm } = await import('./peers/isolated-vm-pool.mjs');
        loadIsolatedVm();
        versions.isolatedVm ??= require(fileURLToPath(new URL('./.peers/node_modules/isolated-vm/package.json', import.meta.url))).version;
      } catch (err) {
        missing.ivm = `cannot load: ${String(err?.message ?? err).split('\n')[0]}`;
      }
    }
  }
  for (const s of ALL_SIDES) if (!WANT_SIDES.includes(s)) missing[s] ??= 'not selected (BENCH_SIDES)';

  const ctx = { sides: {} };
  for (const s of WANT_SIDES) {
    if (missing[s] || !sharedSides.has(s)) continue;
    try {
      ctx.sides[s] = await MAKERS[s]();
    } catch (err) {
      if (OURS.includes(s)) throw err; // ours failing is a real failure
      missing[s] = String(err?.message ?? err).split('\n')[0];
      log(`${s} unavailable: ${missing[s]}`);
    }
  }

  const results = [];
  for (const g of selected) {
    const sides = (g.sides ?? ALL_SIDES).filter((s) => WANT_SIDES.includes(s) && !missing[s] && (g.child || g.ownSides || ctx.sides[s]));
    const entry = { id: g.id, rows: g.rows, sides: {}, setup: null };
    log(`\n## ${g.id} (${sides.join(', ')})`);
    const gctx = { sides: { ...ctx.sides } };
    if (g.id === 'suspend') for (const s of OURS) if (sides.includes(s)) gctx.sides[s] = await MAKERS[s]([addTool], HEAP_LIMITS);
    if (g.setup) {
      try {
        entry.setup = (await g.setup(gctx)) ?? null;
      } catch (err) {
        entry.setupError = String(err?.message ?? err);
        log(`  setup failed: ${entry.setupError}`);
        results.push(entry);
        continue;
      }
    }
    for (const s of sides) entry.sides[s] = { warmup: null, rounds: [] };
    if (!g.child && !g.deterministic) for (const s of sides) entry.sides[s].warmup = await measure(() => g.round(s, gctx, true));
    const rounds = g.deterministic ? 1 : g.child ? Math.min(CFG.rounds, 3) : CFG.rounds;
    for (let r = 0; r < rounds; r++) {
      const order = sides.map((_, i) => sides[(i + r) % sides.length]); // rotate who goes first
      for (const s of order) {
        const m = await measure(() => g.round(s, gctx, false));
        entry.sides[s].rounds.push(m);
        const figs = g.rows.map((row) => `${row.key} ${typeof m[row.key] === 'number' ? fmt(m[row.key]) : '—'}`).join(', ');
        log(`  round ${r + 1}/${rounds} ${s.padEnd(9)} ${m.ok ? figs : `FAILED: ${m.error}`}  (${Math.round(m.roundMs)} ms)`);
      }
    }
    if (g.id === 'suspend') for (const s of OURS) if (gctx.sides[s] && gctx.sides[s] !== ctx.sides[s]) await gctx.sides[s].close();
    if (g.teardown) await g.teardown(gctx).catch((err) => log(`  teardown failed: ${err?.message ?? err}`));
    results.push(entry);
  }
  for (const s of Object.values(ctx.sides)) await s.close().catch(() => {});

  // ---------------------------------------------------------------- the table
  const peers = ['reference', 'ivm', 'nodevm'];
  const lines = [];
  // Both of our modes get a column and a ratio vs the reference; isolated-vm and node:vm
  // show their ratio vs thread mode (as before process mode existed).
  lines.push(
    `| workload | ${SIDE_LABEL.ours} median (min–max) | ${SIDE_LABEL.process} median (min–max) | ${SIDE_LABEL.reference} median (min–max) | thread ratio vs reference | process ratio vs reference | ${SIDE_LABEL.ivm} median (ratio vs thread) | ${SIDE_LABEL.nodevm} median (ratio vs thread) |`,
  );
  lines.push('|---|---|---|---|---|---|---|---|');
  const problems = [];
  const rowsOut = [];
  for (const e of results) {
    for (const row of e.rows) {
      const sum = {};
      for (const s of ALL_SIDES) if (e.sides[s]) sum[s] = summarize(e.sides[s].rounds, row.key);
      // > 1: `o` (one of our modes) is better than `p`
      const ratioOf = (p, o = sum.ours) => (o?.median != null && p?.median != null ? (row.kind === 'rate' ? o.median / p.median : p.median / o.median) : null);
      const stat = (x) => (x.n === 1 || x.min === x.max ? fmt(x.median) : `${fmt(x.median)} (${fmt(x.min)}–${fmt(x.max)})`) + (x.n < x.rounds ? ` ⚠ ${x.rounds - x.n}/${x.rounds} failed` : '');
      const cell = (s) => {
        if (e.setupError) return 'FAILED (setup)';
        if (row.sides && !row.sides.includes(s)) return 'n/a';
        if (!e.sides[s]) {
          if (!missing[s] || !(GROUPS.find((g) => g.id === e.id).sides ?? ALL_SIDES).includes(s)) return 'n/a';
          return missing[s].startsWith('not selected') ? 'not run' : 'missing';
        }
        const x = sum[s];
        return x.median == null ? 'FAILED' : stat(x);
      };
      const ratios = {};
      for (const p of peers) ratios[p] = ratioOf(sum[p]);
      ratios.processVsReference = ratioOf(sum.reference, sum.process);
      const bold = (x) => (x != null ? `**${fmtRatio(x)}**` : '—');
      const short = (p) => {
        const c = cell(p);
        return sum[p]?.median != null && ratios[p] != null ? `${fmt(sum[p].median)} (${fmtRatio(ratios[p])})` : c;
      };
      lines.push(`| ${row.name} | ${cell('ours')} | ${cell('process')} | ${cell('reference')} | ${bold(ratios.reference)} | ${bold(ratios.processVsReference)} | ${short('ivm')} | ${short('nodevm')} |`);
      for (const s of ALL_SIDES) for (const err of sum[s]?.errors ?? []) if (err) problems.push(`${SIDE_LABEL[s]} / ${row.name.slice(0, 60)}: ${oneLine(err)}`);
      rowsOut.push({ group: e.id, key: row.key, name: row.name, kind: row.kind, summary: sum, ratios });
    }
    if (e.setupError) problems.push(`${e.id} setup: ${oneLine(e.setupError)}`);
    for (const [s, side] of Object.entries(e.sides)) if (side.warmup && !side.warmup.ok) problems.push(`${SIDE_LABEL[s]} / ${e.id} warm-up: ${oneLine(side.warmup.error)}`);
  }
  lines.push('');
  lines.push(
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memGB} GB, Node ${machine.node}, ${machine.platform}, ${machine.date} (load average at start ${machine.loadavg.map((x) => x.toFixed(1)).join(' ')})` +
      (QUICK ? ' — **quick run**' : ''),
  );
  lines.push(
    `Median (min–max) over ${CFG.rounds} rounds after a warm-up (memory, concurrency and start-up: ${Math.min(CFG.rounds, 3)} fresh child processes per side); the sides take turns within each round and the order rotates. ` +
      `Ratio = peer / ours for times, memory, threads and bytes, ours / peer for cells/s: > 1 means codemode-native is better; thread and process mode each against the reference, isolated-vm and node:vm against thread mode. ` +
      `Process mode: memory per parked run counts the sandbox process's RSS too, peak threads count its threads. ` +
      `Peers: quickjs-wasi ${versions.quickjsWasi} in ${THREADS} worker_threads (fresh VM per cell from a module compiled once, tools via postMessage, suspension = snapshot + restore); ` +
      `isolated-vm ${versions.isolatedVm ?? (usedSides.has('ivm') && WANT_SIDES.includes('ivm') ? '(missing)' : '(not run)')} (${THREADS} isolates, fresh context per cell, no suspension); node:vm pool (${THREADS} worker_threads, fresh context per cell, no suspension); typescript ${versions.typescript}; MCP SDK ${versions.mcpSdk} (in-memory transport).`,
  );
  for (const [s, why] of Object.entries(missing)) if (!why.startsWith('not selected')) problems.unshift(`${SIDE_LABEL[s]} missing: ${oneLine(why)}`);
  if (problems.length) {
    lines.push('');
    lines.push('Failures (left out of the figures):');
    for (const p of problems) lines.push(`- ${p}`);
  }
  process.stdout.write(lines.join('\n') + '\n');
  const out = { machine, versions, quick: QUICK, config: { ...CFG, threads: THREADS, jsonItems: { n: jsonItems.n, bytes: jsonItems.bytes } }, missing, totalSeconds: msSince(started) / 1000, rows: rowsOut, groups: results, problems, table: lines.join('\n') };
  const file = fileURLToPath(new URL('./results.json', import.meta.url));
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  log(`\nwrote ${file} (${out.totalSeconds.toFixed(0)} s)`);
}

if (CHILD) {
  const [task, side] = CHILD;
  (CHILD_TASKS[task] ? Promise.resolve().then(() => CHILD_TASKS[task](side)) : Promise.reject(new Error(`unknown child task ${task}`)))
    .catch((err) => ({ ok: false, error: String(err?.message ?? err) }))
    .then((r) => {
      process.stdout.write(JSON.stringify(r) + '\n');
      process.exit(0);
    });
} else {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
