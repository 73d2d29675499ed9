#!/usr/bin/env node
// Durable runs (group "durable"; docs/durable-runs.md), both isolation modes, medians:
//   resume     a run with N recorded calls, parked and closed, resumed by a new session
//              (a replay in a fresh VM), store round trips timed apart and left out
//   wait       a same-process wait (the live VM) with durableRuns, against one without
//   ledger     bytes per ledger entry before sealing, from records of 16 and 256 calls,
//              and the bytes of a catalog read (a handle's metadata, a search)
//   writes     store writes per park and per call that is not replaySafe
//
//   node bench/durable.mjs [rounds]      (default 15)
//   BENCH_SIDES=thread,process           only these modes
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const { CodeModeSession, sqliteRunStore } = require('../index.js');
const ROUNDS = Number(process.argv[2] ?? 15);
const SIDES = (process.env.BENCH_SIDES ?? 'thread,process').split(',');
const N = [1, 16, 64, 256];
const keys = [{ id: 'k1', key: Buffer.alloc(32, 1) }];
const dir = mkdtempSync(join(tmpdir(), 'durable-bench-'));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** A store that times its round trips and counts its writes. */
function timed(store) {
  const stats = { ms: 0, puts: 0, gets: 0, lastBytes: 0 };
  const time = async (work) => {
    const t = performance.now();
    try {
      return await work();
    } finally {
      stats.ms += performance.now() - t;
    }
  };
  return {
    stats,
    get: (id) => time(() => ((stats.gets += 1), store.get(id))),
    put: (id, bytes, options) => time(() => ((stats.puts += 1), (stats.lastBytes = bytes.length), store.put(id, bytes, options))),
    delete: (id, version) => time(() => store.delete(id, version)),
  };
}

const tools = [
  { name: 'echo', description: 'Echoes.', execute: (input) => ({ echo: input }) },
  { name: 'ask', description: 'Asks.', execute: (input, ctx) => ctx.suspend({ q: 1 }) },
  { name: 'read', description: 'Reads.', replaySafe: true, execute: (input) => ({ read: input }) },
];
const session = (isolation, store, durable = true) =>
  new CodeModeSession({
    sessionId: `bench-durable-${isolation}`,
    isolation,
    // One warm sandbox process for every session: a resume is measured, not a process start.
    ...(isolation === 'process' ? { sandboxGroup: 'bench-durable' } : {}),
    tools,
    limits: { timeoutMs: 60_000 },
    ...(durable ? { durableRuns: { store, keys } } : {}),
  });

/** Resume of a run that made `n` calls, in a new session: ms without store time. */
async function resume(isolation, n, store) {
  const code = `for (let i = 0; i < ${n}; i++) await read({ i }); const ok = await ask({}); return ok;`;
  const a = session(isolation, store);
  const parked = await a.exec({ code });
  await a.close();
  const b = session(isolation, store);
  await b.resolveCall({ runId: parked.runId, callId: parked.pendingToolCalls[0].id, value: 1 });
  store.stats.ms = 0;
  const t = performance.now();
  const done = await b.wait({ runId: parked.runId });
  const ms = performance.now() - t - store.stats.ms;
  if (done.status !== 'completed') throw new Error(JSON.stringify(done));
  await b.close();
  return { ms, storeMs: store.stats.ms };
}

/** One wait of a run that yields each time it resumes, in the process that parked it. */
async function sameProcessWaits(isolation, store, durable) {
  const s = session(isolation, store, durable);
  let r = await s.exec({ code: 'for (;;) await yield_control("again");' });
  const times = [];
  for (let i = 0; i < ROUNDS * 4; i++) {
    store.stats.ms = 0;
    const t = performance.now();
    r = await s.wait({ runId: r.runId });
    times.push(performance.now() - t - (durable ? store.stats.ms : 0));
  }
  await s.close();
  return median(times);
}

const rows = [];
for (const isolation of SIDES) {
  const store = timed(sqliteRunStore(join(dir, `${isolation}.db`)));
  await resume(isolation, 1, store); // warm-up: the sandbox, the file
  for (const n of N) {
    const runs = [];
    for (let i = 0; i < ROUNDS; i++) runs.push(await resume(isolation, n, store));
    const ms = median(runs.map((r) => r.ms));
    const target = 1 + 0.01 * n;
    rows.push([`${isolation}: resume, ${n} recorded calls`, `${ms.toFixed(2)} ms`, `≤ ${target.toFixed(2)} ms`, `store ${median(runs.map((r) => r.storeMs)).toFixed(2)} ms apart`]);
  }
  const plain = await sameProcessWaits(isolation, store, false);
  const durable = await sameProcessWaits(isolation, store, true);
  rows.push([`${isolation}: same-process wait`, `${durable.toFixed(3)} ms (without: ${plain.toFixed(3)})`, `≤ ${(plain + 0.1).toFixed(3)} ms`, 'store round trips left out']);

  // Bytes per entry: record sizes of 16 and 256 calls (each call and its delivery two entries).
  const size = async (n) => {
    const s = session(isolation, store);
    const parked = await s.exec({ code: `for (let i = 0; i < ${n}; i++) await read({ i }); await ask({});` });
    const bytes = (await store.get(parked.runId)).bytes.length;
    await s.close();
    return bytes;
  };
  const perEntry = ((await size(256)) - (await size(16))) / (240 * 2);
  rows.push([`${isolation}: bytes per ledger entry`, `${perEntry.toFixed(1)} B (sealed: the same, plus 33 B a record)`, '≤ 96 B', 'a call {i} and its answer']);
  // Catalog reads are entries too: a tool's first use reads its handle's metadata once.
  const parkedSize = async (code) => {
    const s = session(isolation, store);
    const bytes = (await store.get((await s.exec({ code })).runId)).bytes.length;
    await s.close();
    return bytes;
  };
  const bare = await parkedSize('await ask({});');
  const handle = (await parkedSize('read.description; await ask({});')) - bare;
  const search = (await parkedSize('await catalog.search("reads", { limit: 1 }); await ask({});')) - bare;
  rows.push([`${isolation}: catalog read entries`, `${handle} B a handle's metadata; ${search} B a search that found one tool, with its handle`, 'none', 'once per tool used; counted in maxSnapshotBytes']);

  // Writes: a park, and calls that are not replaySafe (three at once, then one).
  const w = session(isolation, store);
  store.stats.puts = 0;
  const parked = await w.exec({ code: 'await Promise.all([echo({}), echo({}), echo({})]); await echo({}); await ask({});' });
  const puts = store.stats.puts;
  await w.close();
  rows.push([`${isolation}: store writes`, `${puts} for a park after 4 unsafe calls (3 at once)`, '≤ 1 + 4', parked.status]);
}
rmSync(dir, { recursive: true, force: true });

console.log('| durable | median | target | note |');
console.log('|---|---|---|---|');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
