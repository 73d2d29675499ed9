// The measurements of bench/many.mjs, each run in a fresh child process per side so memory,
// threads, fds and CPU belong to that side alone. Every task answers one JSON object; a
// failure is data ({ ok: false, error } or { failedAt, error }), never a crash or a hang.
// Sides: "process" and "thread" (CodeModeSession with that `isolation`), "reference" (the
// quickjs-wasi worker pool of peers/quickjs-wasi-pool.mjs, suspension = snapshot).
import { createRequire } from 'node:module';
import os from 'node:os';
import { snapshot, cpuNow, hostPressure, fdSoftLimit } from './procfs.mjs';

const require = createRequire(import.meta.url);
const MiB = 2 ** 20;
const nowNs = () => process.hrtime.bigint();
const msSince = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length ? (s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2) : null;
};
const message = (err) => String(err?.message ?? err).split('\n')[0].slice(0, 200);
const describe = (r) => (r ? `${r.status}${r.code ? ` (${r.code})` : ''}${r.error ? `: ${r.error}` : ''}`.slice(0, 200) : 'no result');
function withTimeout(p, ms, what) {
  let timer;
  return Promise.race([p, new Promise((_, rej) => (timer = setTimeout(() => rej(new Error(`${what} did not finish within ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}
async function settleGc() {
  for (let i = 0; i < 3; i++) {
    global.gc?.();
    await sleep(100);
  }
}
// Runs fn(k) for k in [0, n) with at most `width` at once; stops starting new ones once
// fn throws or `stop()` answers a reason, and reports the first such failure (1-based session).
async function capped(n, width, fn, stop = () => null) {
  let next = 0;
  let failure = null;
  const lane = async () => {
    while (!failure && next < n) {
      const k = next++;
      const why = stop();
      if (why) failure ??= { failedAt: k + 1, error: why };
      else await fn(k).catch((err) => (failure ??= { failedAt: k + 1, error: message(err) }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, lane));
  return failure;
}

const addTool = {
  name: 'add',
  description: 'Add two numbers and return { sum }.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  execute: async ({ a, b }) => ({ sum: a + b }),
};
// A held tool: its promise settles when the bench calls release(k) (at once if that came first).
function holdTool() {
  const held = new Map();
  const released = new Set();
  const execute = ({ k }) => (released.has(k) ? Promise.resolve({ k }) : new Promise((resolve) => held.set(k, resolve)));
  const release = (k) => (released.add(k), held.get(k)?.({ k }), held.delete(k));
  return { tool: { name: 'hold', description: 'Answers when the bench releases it.', parameters: { type: 'object' }, execute }, release };
}
// The parked program: run.mjs's memory group's ~200-entry array and one held call. Ours parks
// at once with the call out (`yield_control`, so the default 10 s turn needs no waiting out);
// the reference cannot park with host work out, so `hold` itself suspends it and `wait`
// settles it with null. Both answer k + 200.
const small = (k) => `const small = Array.from({ length: 200 }, (_, i) => ({ i, s: "v" + i + "-${k}" }));`;
const parkCode = (k) => `${small(k)}\nconst held = hold({ k: ${k} });\nawait yield_control("held");\nreturn (await held).k + small.length`;
const referenceParkCode = (k) => `${small(k)}\nconst r = await hold({ k: ${k} });\nreturn (r === null ? ${k} : r.k) + small.length`;

let addon = null;
function loadAddon(maxSuspendedRuns) {
  addon ??= require('../index.js');
  // The only runtime setting changed: the default store holds 64 parked runs (at most 10,000).
  if (maxSuspendedRuns) addon.configureCodeModeRuntime({ maxSuspendedRuns: Math.min(10_000, Math.max(64, maxSuspendedRuns)) });
  return addon;
}
async function referencePool(tools, extra = {}) {
  const { QuickJsWasiPool, compileQuickJsModule } = await import('./peers/quickjs-wasi-pool.mjs');
  const pool = new QuickJsWasiPool({ module: await compileQuickJsModule(), tools, size: os.availableParallelism(), timeoutMs: 30_000, memoryLimit: 128 * MiB, fresh: 'create', ...extra });
  await withTimeout(pool.ready(), 30_000, 'quickjs-wasi pool start');
  return pool;
}

// A "conversation" on each side: park(k) → runId, resume(k, runId) → result, close().
async function conversations(side, n, grouped) {
  const hold = holdTool();
  if (side === 'reference') {
    const pool = await referencePool([hold.tool], { suspendTools: ['hold'] });
    return { park: (k) => pool.exec(referenceParkCode(k)), resume: (_k, runId) => pool.wait(runId), release: () => {}, closeAll: () => pool.close() };
  }
  const { CodeModeSession } = loadAddon(n + 1);
  const options = (k) => ({ sessionId: `many-${k}`, isolation: side, tools: [hold.tool], ...(grouped ? { sandboxGroup: `g${k % 100}` } : {}) });
  if (grouped) {
    try {
      await new CodeModeSession(options(0)).close();
    } catch (err) {
      if (/sandboxGroup/.test(message(err))) return { unsupported: `not supported yet: ${message(err)}` };
      throw err;
    }
  }
  const sessions = new Map();
  return {
    park: (k) => {
      const s = new CodeModeSession(options(k));
      sessions.set(k, s);
      return s.exec({ code: parkCode(k) });
    },
    resume: (k, runId) => sessions.get(k).wait({ runId }),
    release: hold.release,
    closeAll: () => Promise.all([...sessions.values()].map((s) => s.close().catch(() => {}))),
  };
}

export const TASKS = {
  // N conversations each park one run on the held tool, then all resume.
  async many(side, n, grouped, width) {
    const warm = await conversations(side, n, grouped === 1);
    if (warm.unsupported) return { ok: false, unsupported: warm.unsupported };
    // warm-up: the process-wide start (worker pool, the executable in the page cache)
    const w = await warm.park(0);
    if (w?.status !== 'waiting') return { ok: false, error: `warm-up did not park: ${describe(w)}` };
    warm.release(0);
    await warm.resume(0, w.runId);
    await warm.closeAll();
    await settleGc();
    await sleep(500); // the warm-up's sandbox exits
    const c = await conversations(side, n, grouped === 1);
    const before = snapshot();
    const runs = new Map();
    const parkMs = [];
    const t0 = nowNs();
    let failure = await capped(n, width, async (k) => {
      const t = nowNs();
      const r = await withTimeout(c.park(k), 60_000, `session ${k + 1}'s exec`);
      if (r?.status !== 'waiting') throw new Error(`expected waiting, got ${describe(r)}`);
      parkMs.push(msSince(t));
      runs.set(k, r.runId);
    }, () => hostPressure());
    const parkAllMs = msSince(t0);
    await settleGc();
    const parked = snapshot();
    const resumeMs = [];
    let wrong = 0;
    let firstWrong = null;
    const t1 = nowNs();
    for (const k of runs.keys()) c.release(k);
    await Promise.all([...runs].map(async ([k, runId]) => {
      const t = nowNs();
      const r = await withTimeout(c.resume(k, runId), 60_000, `session ${k + 1}'s wait`).catch((err) => ({ status: 'failed', error: message(err) }));
      resumeMs.push(msSince(t));
      if (r?.status !== 'completed' || r.value !== k + 200) (wrong++, (firstWrong ??= `session ${k + 1}: ${describe(r)}`));
    }));
    const resumeAllMs = msSince(t1);
    await withTimeout(c.closeAll(), 120_000, 'closing every session').catch((err) => (failure ??= { failedAt: 'close', error: message(err) }));
    // every sandbox gone again (at most 60 s): after close() nothing may be left behind
    const t2 = nowNs();
    let after = snapshot();
    while (after.sandboxes && msSince(t2) < 60_000) await sleep(250), (after = snapshot());
    const count = runs.size;
    return {
      ok: !failure && !wrong,
      ...(failure ?? {}),
      ...(wrong ? { error: `${wrong}/${count} runs resumed wrongly; first: ${firstWrong}` } : {}),
      n,
      parked: count,
      fdSoftLimit: fdSoftLimit(),
      figures: {
        // every sandbox process counts whole: a pool started before `before` serves these runs
        perSession: (parked.rss - before.rss + parked.sandboxPss) / count / MiB,
        gatewayKB: (parked.rss - before.rss) / count / 1024,
        sandboxKB: parked.sandboxPss / count / 1024,
        processes: parked.sandboxes,
        threads: parked.gatewayThreads + parked.sandboxThreads,
        sandboxThreads: parked.sandboxes ? parked.sandboxThreads / parked.sandboxes : null,
        fds: parked.fds,
        parkAll: parkAllMs / 1000,
        park: median(parkMs),
        resumeAll: resumeAllMs / 1000,
        resume: median(resumeMs),
      },
      before,
      parkedSnapshot: parked,
      afterClose: { sandboxes: after.sandboxes, fds: after.fds, drainMs: msSince(t2) },
    };
  },

  // Sequential awaited tool calls: wall per call and CPU per call of every thread and process.
  async cpu(side, calls, cells) {
    const per = Math.ceil(calls / cells);
    const code = `let s = 0;\nfor (let i = 0; i < ${per}; i++) s += (await add({ a: i, b: 1 })).sum;\nreturn s`;
    const want = (per * (per + 1)) / 2;
    let exec;
    let close;
    if (side === 'reference') {
      const pool = await referencePool([addTool]);
      (exec = (src) => pool.exec(src)), (close = () => pool.close());
    } else {
      const s = new (loadAddon().CodeModeSession)({ sessionId: 'cpu', isolation: side, tools: [addTool], limits: { timeoutMs: 60_000 } });
      (exec = (src) => s.exec({ code: src })), (close = () => s.close());
    }
    const warm = await exec(code.replace(String(per), '500'));
    if (warm?.status !== 'completed') return { ok: false, error: `warm-up: ${describe(warm)}` };
    const walls = [];
    const c0 = cpuNow();
    for (let i = 0; i < cells; i++) {
      const t = nowNs();
      const r = await exec(code);
      walls.push((msSince(t) * 1000) / per);
      if (r?.status !== 'completed' || r.value !== want) return { ok: false, error: `cell ${i + 1}: ${describe(r)}` };
    }
    const c1 = cpuNow();
    await close();
    const total = per * cells;
    const main = c1.main == null ? null : (c1.main - c0.main) / total;
    const gateway = (c1.gateway - c0.gateway) / total;
    const sandbox = (c1.sandboxes - c0.sandboxes) / total;
    return { ok: true, calls: total, figures: { wall: median(walls), cpu: gateway + sandbox, main, others: main == null ? null : gateway - main, sandbox } };
  },

  // `count` new conversations' first cells at once, each calling one tool once.
  async burst(side, count) {
    let called = new Set(); // the k of every cell whose call reached the tool
    const tool = { ...addTool, execute: async (x) => (called.add(x.a), addTool.execute(x)) };
    const code = (k) => `return (await add({ a: ${k}, b: 1 })).sum`;
    let first;
    let closeAll;
    if (side === 'reference') {
      const pool = await referencePool([tool], { timeoutMs: 3000 });
      (first = (k) => pool.exec(code(k))), (closeAll = () => pool.close());
    } else {
      const { CodeModeSession } = loadAddon();
      const mk = (k) => new CodeModeSession({ sessionId: `burst-${k}`, isolation: side, tools: [tool], limits: { timeoutMs: 3000 } });
      const warm = mk('warm');
      await warm.exec({ code: code(0) });
      await warm.close();
      await sleep(300);
      const sessions = Array.from({ length: count }, (_, k) => mk(k));
      (first = (k) => sessions[k].exec({ code: code(k) })), (closeAll = () => Promise.all(sessions.map((s) => s.close().catch(() => {}))));
    }
    called = new Set();
    const t0 = nowNs();
    const rs = await Promise.all(Array.from({ length: count }, (_, k) => first(k).catch((err) => ({ status: 'failed', error: message(err) }))));
    const allMs = msSince(t0);
    await withTimeout(closeAll(), 60_000, 'closing every session').catch(() => {});
    const right = (r, k) => r?.status === 'completed' && r.value === k + 1;
    const timeouts = rs.map((r, k) => (r?.code === 'timeout' ? k : -1)).filter((k) => k >= 0);
    const waiting = rs.filter((r) => r?.status === 'waiting').length;
    const other = rs.filter((r, k) => !right(r, k) && r?.code !== 'timeout' && r?.status !== 'waiting');
    const figures = { completed: rs.filter(right).length, timeouts: timeouts.length, timeoutsNoCall: timeouts.filter((k) => !called.has(k)).length, waiting, failed: other.length, calls: called.size, allMs };
    return { ok: true, figures, firstOther: other[0] ? describe(other[0]) : null };
  },
};
