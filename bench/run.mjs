#!/usr/bin/env node
// codemode-native benchmarks vs. a node:vm worker-pool peer.
//
//   node bench/run.mjs                 full run (~60–90 s on 2 cores), then bench/suspend.mjs (~30 s)
//   node bench/run.mjs --quick         shortened run (~15 s), then bench/suspend.mjs --quick (~17 s)
//   node bench/run.mjs --no-suspend    this table only
//
// stdout: one markdown table + machine line + footnote, then suspend.mjs's table. stderr: progress.
// bench/results.json: every raw figure (per round, per side, plus failures); suspend.mjs adds
// its figures under the `suspend` key.
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { makeCatalog } from './catalog-fixture.mjs';

const require = createRequire(import.meta.url);
const QUICK = process.argv.includes('--quick');
const THREADS = os.availableParallelism();

const CFG = QUICK
  ? { rounds: 3, trivialSeq: 500, throughputCells: 1500, inflight: 256, seqNestedReps: 1, fanReps: 5, computeReps: 1, buildReps: 2, searchReps: 1 }
  : { rounds: 5, trivialSeq: 2000, throughputCells: 4000, inflight: 256, seqNestedReps: 3, fanReps: 20, computeReps: 2, buildReps: 5, searchReps: 3 };
const ROUND_TIMEOUT_MS = 60_000;

const log = (...a) => process.stderr.write(a.join(' ') + '\n');
const nowNs = () => process.hrtime.bigint();
const msSince = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

class CellFailure extends Error {
  constructor(message, failedCells = 1) {
    super(message);
    this.failedCells = failedCells;
  }
}

// ---------------------------------------------------------------- tools & code
const addTool = {
  name: 'add',
  description: 'Add two numbers and return { sum }.',
  parameters: {
    type: 'object',
    properties: { a: { type: 'number', description: 'first addend' }, b: { type: 'number', description: 'second addend' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  execute: async ({ a, b }) => ({ sum: a + b }),
};

let computeRef = 0;
for (let i = 0; i < 5e6; i++) computeRef += Math.sqrt(i);

const CODE = {
  trivial: 'return 1 + 1',
  nested: 'return await add({ a: 1, b: 2 })',
  seqNested: 'let s = 0;\nfor (let i = 0; i < 1000; i++) s += (await add({ a: i, b: 1 })).sum;\nreturn s',
  fanOut: 'const r = await Promise.all(Array.from({ length: 100 }, (_, i) => add({ a: i, b: 1 })));\nreturn r.reduce((s, x) => s + x.sum, 0)',
  compute: 'let s = 0; for (let i = 0; i < 5e6; i++) s += Math.sqrt(i); return s',
  search:
    'let hits = 0, first = null;\nfor (let i = 0; i < 1000; i++) { const h = await catalog.search("send email"); hits += h.length; first = h[0] ? h[0].toolName : null; }\nreturn { hits, first }',
};
const EXPECT = {
  trivial: (v) => v === 2,
  nested: (v) => v && v.sum === 3,
  seqNested: (v) => v === 500500,
  fanOut: (v) => v === 5050,
  compute: (v) => typeof v === 'number' && Math.abs(v - computeRef) <= 1e-9 * computeRef,
  search: (v) => v && v.hits > 0 && typeof v.first === 'string' && v.first.startsWith('email_'),
};

// ---------------------------------------------------------------- measurement primitives
// Each returns { figure, ...detail } for one round or throws CellFailure.
function check(r, key) {
  if (!r || r.status !== 'completed') {
    const why = r ? `${r.status}${r.code ? ` (${r.code})` : ''}: ${r.error ?? r.reason ?? ''}` : 'no result';
    throw new CellFailure(`cell ${key} ${why}`.slice(0, 300));
  }
  if (!EXPECT[key](r.value)) throw new CellFailure(`cell ${key} returned unexpected value ${JSON.stringify(r.value)?.slice(0, 120)}`);
  return r;
}

async function seqLatencyUs(exec, key, n) {
  const lat = new Float64Array(n);
  const t0 = nowNs();
  for (let i = 0; i < n; i++) {
    const t = nowNs();
    check(await exec(CODE[key]), key);
    lat[i] = Number(nowNs() - t) / 1e3;
  }
  const total = msSince(t0);
  const xs = Array.from(lat);
  return { figure: median(xs), meanUs: (total * 1e3) / n, p99Us: pct(xs, 99), maxUs: Math.max(...xs), n };
}

async function throughputCps(exec, key, total, inflight) {
  let next = 0;
  let failed = 0;
  let firstError = null;
  const t0 = nowNs();
  const runner = async () => {
    while (next < total) {
      next++;
      try {
        check(await exec(CODE[key]), key);
      } catch (err) {
        failed++;
        firstError ??= String(err?.message ?? err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(inflight, total) }, runner));
  const ms = msSince(t0);
  if (failed) throw new CellFailure(`${failed}/${total} cells failed; first: ${firstError}`, failed);
  return { figure: total / (ms / 1000), totalMs: ms, cells: total, inflight };
}

// Wall time of whole cells run one after another; figure = median(wall) / divisor.
async function cellWall(exec, key, reps, { divisor = 1, unit = 'ms' } = {}) {
  const walls = [];
  const telemetry = [];
  for (let i = 0; i < reps; i++) {
    const t = nowNs();
    const r = check(await exec(CODE[key]), key);
    walls.push(msSince(t));
    if (r.telemetry?.run) telemetry.push(r.telemetry.run);
  }
  const scale = unit === 'us' ? 1000 : 1;
  return { figure: (median(walls) * scale) / divisor, wallsMs: walls, telemetry: telemetry.length ? telemetry : undefined };
}

// ---------------------------------------------------------------- the two sides
async function makeOurs() {
  const { CodeModeSession, configureCodeModeRuntime } = require('../index.js');
  let configured = null;
  try {
    configureCodeModeRuntime({ workerThreads: THREADS });
    configured = { workerThreads: THREADS };
  } catch (err) {
    configured = { error: String(err?.message ?? err) };
    log(`configureCodeModeRuntime failed (using defaults): ${configured.error}`);
  }
  const basic = new CodeModeSession({ sessionId: 'bench-basic', tools: [addTool] });
  const fan = new CodeModeSession({ sessionId: 'bench-fanout', tools: [addTool], limits: { maxPendingToolCalls: 128 } });
  const catalogTools = makeCatalog(1000);
  const catalogSession = new CodeModeSession({ sessionId: 'bench-catalog', tools: catalogTools });
  let buildSeq = 0;
  return {
    configured,
    exec: (code) => basic.exec({ code }),
    execFan: (code) => fan.exec({ code }),
    execCatalog: (code) => catalogSession.exec({ code }),
    async buildCatalog(reps) {
      const totals = [];
      const ctor = [];
      const model = [];
      for (let i = 0; i < reps; i++) {
        const t0 = nowNs();
        const s = new CodeModeSession({ sessionId: `bench-build-${buildSeq++}`, tools: catalogTools });
        const t1 = nowNs();
        const mt = s.modelTools();
        const t2 = nowNs();
        if (!Array.isArray(mt) || mt[0]?.name !== 'exec' || mt[1]?.name !== 'wait')
          throw new CellFailure(`modelTools() returned ${JSON.stringify(mt?.map?.((t) => t.name))}`);
        totals.push(Number(t2 - t0) / 1e6);
        ctor.push(Number(t1 - t0) / 1e6);
        model.push(Number(t2 - t1) / 1e6);
        await s.close();
      }
      return { figure: median(totals), totalsMs: totals, constructorMs: ctor, modelToolsMs: model, tools: catalogTools.length };
    },
    async searchUs(reps) {
      const perSearchUs = [];
      const guestCpuUs = [];
      const hostWallUs = [];
      for (let i = 0; i < reps; i++) {
        const t = nowNs();
        const r = check(await catalogSession.exec({ code: CODE.search }), 'search');
        const host = msSince(t);
        const run = r.telemetry?.run;
        // ms per 1000 searches == µs per search
        perSearchUs.push(run ? run.wallMs : host);
        guestCpuUs.push(run ? run.guestCpuMs : null);
        hostWallUs.push(host);
      }
      return { figure: median(perSearchUs), telemetryWallUsPerSearch: perSearchUs, guestCpuUsPerSearch: guestCpuUs, hostWallUsPerSearch: hostWallUs };
    },
    async close() {
      await Promise.allSettled([basic.close(), fan.close(), catalogSession.close()]);
    },
  };
}

async function makePeer() {
  const { NodeVmPool } = await import('./peers/node-vm-pool.mjs');
  const pool = new NodeVmPool({ tools: [addTool], size: THREADS, timeoutMs: 10_000 });
  await withTimeout(pool.ready(), 20_000, 'peer pool start');
  const exec = (code) => pool.exec(code);
  return { exec, execFan: exec, size: THREADS, close: () => pool.close() };
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

// ---------------------------------------------------------------- workloads
const warm = (n, min = 1) => Math.max(min, Math.ceil(n / 4));
const WORKLOADS = [
  {
    id: 'trivial_seq', name: 'trivial cell `return 1 + 1`, sequential latency (µs/exec)', kind: 'time',
    run: (s, w) => seqLatencyUs(s.exec, 'trivial', w ? warm(CFG.trivialSeq, 50) : CFG.trivialSeq),
    note: () => `median of ${CFG.trivialSeq} execs per round`,
  },
  {
    id: 'trivial_tput', name: `trivial cell, throughput with ${CFG.inflight} in flight (cells/s)`, kind: 'throughput',
    run: (s, w) => throughputCps(s.exec, 'trivial', w ? warm(CFG.throughputCells, 256) : CFG.throughputCells, CFG.inflight),
    note: () => `${CFG.throughputCells} execs per round`,
  },
  {
    id: 'nested_tput', name: `1 nested tool call per cell, throughput with ${CFG.inflight} in flight (cells/s)`, kind: 'throughput',
    run: (s, w) => throughputCps(s.exec, 'nested', w ? warm(CFG.throughputCells, 256) : CFG.throughputCells, CFG.inflight),
    note: () => `${CFG.throughputCells} execs per round`,
  },
  {
    id: 'nested_seq', name: '1,000 sequential awaited tool calls in one cell (µs/call)', kind: 'time',
    run: (s, w) => cellWall(s.exec, 'seqNested', w ? 1 : CFG.seqNestedReps, { divisor: 1000, unit: 'us' }),
    note: () => `host wall of the cell / 1000, median of ${CFG.seqNestedReps} cells per round`,
  },
  {
    id: 'fanout', name: 'fan-out: `Promise.all` of 100 tool calls in one cell (ms/cell)', kind: 'time',
    run: (s, w) => cellWall(s.execFan, 'fanOut', w ? warm(CFG.fanReps) : CFG.fanReps),
    note: () => `maxPendingToolCalls 128, median of ${CFG.fanReps} cells per round`,
  },
  {
    id: 'compute', name: 'compute: 5e6 × `Math.sqrt` loop (ms/cell)', kind: 'time',
    run: (s, w) => cellWall(s.exec, 'compute', w ? 1 : CFG.computeReps),
    note: () => `median of ${CFG.computeReps} cells per round`,
  },
  {
    id: 'catalog_build', name: 'catalog: new session with 1,000 tools + `modelTools()` (ms)', kind: 'time', oursOnly: true,
    run: (s, w) => s.buildCatalog(w ? 1 : CFG.buildReps),
    note: () => `median of ${CFG.buildReps} builds per round`,
  },
  {
    id: 'catalog_search', name: 'catalog: `catalog.search("send email")` over 1,000 tools (µs/search)', kind: 'time', oursOnly: true,
    run: (s, w) => s.searchUs(w ? 1 : CFG.searchReps),
    note: () => `telemetry.run.wallMs of a 1,000-search cell / 1000, median of ${CFG.searchReps} cells per round`,
  },
];

// ---------------------------------------------------------------- driver
async function measure(side, wl, warmup) {
  const t0 = nowNs();
  try {
    const r = await withTimeout(wl.run(side, warmup), ROUND_TIMEOUT_MS, `${wl.id} round`);
    return { ok: true, ...r, roundMs: msSince(t0) };
  } catch (err) {
    return { ok: false, error: String(err?.message ?? err), failedCells: err?.failedCells ?? null, roundMs: msSince(t0) };
  }
}

function summarize(rounds) {
  const ok = rounds.filter((r) => r.ok).map((r) => r.figure);
  if (!ok.length) return null;
  return { median: median(ok), min: Math.min(...ok), max: Math.max(...ok), okRounds: ok.length, rounds: rounds.length };
}

function fmt(x) {
  const a = Math.abs(x);
  const d = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}
const oneLine = (msg) => String(msg).replace(/\s+/g, ' ').replace(/\|/g, '\\|').slice(0, 300);
const fmtStat = (s) => `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})${s.okRounds < s.rounds ? ` ⚠ ${s.rounds - s.okRounds}/${s.rounds} rounds failed` : ''}`;

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

  const ours = await makeOurs(); // a failure here is a real failure: let it crash loudly
  let peer = null;
  let peerMissing = null;
  try {
    peer = await makePeer();
  } catch (err) {
    peerMissing = String(err?.message ?? err);
    log(`peer unavailable: ${peerMissing}`);
  }

  const results = [];
  for (const wl of WORKLOADS) {
    const usePeer = !wl.oursOnly && peer;
    const entry = { id: wl.id, name: wl.name, kind: wl.kind, note: wl.note(), ours: { warmup: null, rounds: [] }, peer: null };
    if (usePeer) entry.peer = { warmup: null, rounds: [] };
    else entry.peer = wl.oursOnly ? { notApplicable: true } : { missing: peerMissing };

    log(`\n## ${wl.name}`);
    entry.ours.warmup = await measure(ours, wl, true);
    if (usePeer) entry.peer.warmup = await measure(peer, wl, true);
    for (let r = 0; r < CFG.rounds; r++) {
      const order = usePeer ? (r % 2 === 0 ? ['ours', 'peer'] : ['peer', 'ours']) : ['ours'];
      for (const who of order) {
        const m = await measure(who === 'ours' ? ours : peer, wl, false);
        entry[who].rounds.push(m);
        log(`  round ${r + 1}/${CFG.rounds} ${who.padEnd(4)} ${m.ok ? fmt(m.figure) : `FAILED: ${m.error}`}  (${Math.round(m.roundMs)} ms)`);
      }
    }
    entry.ours.summary = summarize(entry.ours.rounds);
    if (entry.peer.rounds) entry.peer.summary = summarize(entry.peer.rounds);
    results.push(entry);
  }

  await ours.close();
  if (peer) await peer.close().catch(() => {});

  // ---------------------------------------------------------------- report
  const lines = [];
  lines.push('| workload | codemode-native median (min–max) | peer median (min–max) | ratio |');
  lines.push('|---|---|---|---|');
  const problems = [];
  for (const e of results) {
    const o = e.ours.summary;
    const p = e.peer.summary;
    const oursCell = o ? fmtStat(o) : 'FAILED (see below)';
    let peerCell;
    if (e.peer.notApplicable) peerCell = 'n/a';
    else if (!p) peerCell = e.peer.missing ? 'missing (peer unavailable)' : 'missing (failed, see below)';
    else peerCell = fmtStat(p);
    let ratio = '—';
    if (o && p) {
      const x = e.kind === 'throughput' ? o.median / p.median : p.median / o.median;
      e.ratio = x;
      ratio = `${x >= 10 ? x.toFixed(1) : x.toFixed(2)}×`;
    } else if (e.peer.notApplicable) ratio = 'n/a';
    lines.push(`| ${e.name} | ${oursCell} | ${peerCell} | ${ratio} |`);
    for (const who of ['ours', 'peer']) {
      for (const r of [e[who].warmup, ...(e[who].rounds ?? [])]) {
        if (r && !r.ok) problems.push(`${who === 'ours' ? 'codemode-native' : 'peer'} / ${e.id}${r === e[who].warmup ? ' (warm-up)' : ''}: ${oneLine(r.error)}`);
      }
    }
  }
  lines.push('');
  lines.push(
    `Machine: ${machine.cpu}, ${machine.cores} cores (availableParallelism ${THREADS}), Node ${machine.node}, ${machine.platform}, ${machine.date}` +
      (QUICK ? ' — **--quick run**' : ''),
  );
  lines.push(
    `Ratio = peer/ours for times and ours/peer for throughputs, so > 1 means codemode-native is faster. ` +
      `Median (min–max) over ${CFG.rounds} rounds after one warm-up round, ours and peer alternating round by round. ` +
      `Peer = worker_threads pool (${THREADS} workers), a fresh node:vm context per cell, tools via postMessage to the main thread.`,
  );
  if (peerMissing) problems.unshift(`peer unavailable for every workload: ${oneLine(peerMissing)}`);
  if (problems.length) {
    lines.push('');
    lines.push('Failures (failed rounds are excluded from the figures):');
    for (const p of problems) lines.push(`- ${p}`);
  }
  process.stdout.write(lines.join('\n') + '\n');

  const out = {
    machine,
    quick: QUICK,
    config: { ...CFG, roundTimeoutMs: ROUND_TIMEOUT_MS, runtime: ours.configured, peerPoolSize: peer?.size ?? null },
    totalSeconds: msSince(started) / 1000,
    workloads: results,
    table: lines.join('\n'),
  };
  const file = fileURLToPath(new URL('./results.json', import.meta.url));
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  log(`\nwrote ${file} (${out.totalSeconds.toFixed(1)} s)`);

  // Second table: suspension, memory and concurrency. It runs in its own process so that its RSS and
  // thread figures, and the process-wide parked-run cap, start clean. It merges into results.json.
  if (!process.argv.includes('--no-suspend')) {
    process.stdout.write('\n');
    const script = fileURLToPath(new URL('./suspend.mjs', import.meta.url));
    const child = spawnSync(process.execPath, [script, ...(QUICK ? ['--quick'] : [])], { stdio: 'inherit' });
    if (child.error || child.status !== 0) {
      log(`bench/suspend.mjs failed: ${child.error?.message ?? `exit ${child.status ?? child.signal}`}`);
      process.exitCode = 1;
    }
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
