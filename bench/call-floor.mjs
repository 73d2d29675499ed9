// The tool-call floor beside the real call, in one process and alternating rounds:
// `node bench/call-floor.mjs [rounds] [calls]` prints wall and CPU µs per sequential
// awaited call for the floor (bench/floor), thread mode, process mode and, when asked, the
// quickjs-wasi reference and another build's two modes (bench/README.md).
import { createRequire } from 'node:module';
import os from 'node:os';
import { measureRounds } from './procfs.mjs';

const require = createRequire(import.meta.url);
const ROUNDS = Number(process.argv[2]) || 5;
const CALLS = Number(process.argv[3]) || 5000;
const SIDES = (process.env.FLOOR_SIDES ?? 'floor,thread,process').split(',');
const add = async ({ a, b }) => ({ sum: a + b });
const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];

// CALL_FLOOR_ADDON: another build's `index.js` in place of this one; CALL_FLOOR_BEFORE:
// another build's, loaded beside this one for the sides `thread@before` and `process@before`
// (two builds of the addon load side by side: each `.node` keeps its own state).
function session(isolation, addon = process.env.CALL_FLOOR_ADDON ?? '../index.js') {
  const { CodeModeSession } = require(addon);
  const s = new CodeModeSession({ sessionId: isolation, isolation, tools: [{ name: 'add', description: 'add', parameters: { type: 'object' }, execute: add }], limits: { timeoutMs: 60_000 } });
  const code = (n) => `let s = 0;\nfor (let i = 0; i < ${n}; i++) s += (await add({ a: i, b: 1 })).sum;\nreturn s`;
  return {
    async run(n) {
      const r = await s.exec({ code: code(n) });
      if (r.status !== 'completed' || r.value !== (n * (n + 1)) / 2) throw new Error(JSON.stringify(r).slice(0, 300));
    },
    close: () => s.close(),
  };
}

// The floor is a separate build (bench/floor): loaded only when a side needs it.
const { runFloor } = SIDES.some((s) => s.startsWith('floor')) ? await import('./floor/floor.mjs') : {};
const make = {
  floor: () => floor('tsfn'),
  // The floor with Node woken by an uv_async_t instead of a threadsafe function.
  flooruv: () => floor('uv'),
  // A Rust thread's call as a frame over a socketpair, read by Node's loop through a uv poll handle.
  floorsock: () => floor('sock'),
  thread: () => session('thread'),
  process: () => session('process'),
  'thread@before': () => session('thread', before()),
  'process@before': () => session('process', before()),
  // The quickjs-wasi worker pool of bench/peers (one worker per core), the same loop.
  reference: async () => {
    const { QuickJsWasiPool, compileQuickJsModule } = await import('./peers/quickjs-wasi-pool.mjs');
    const pool = new QuickJsWasiPool({ module: await compileQuickJsModule(), tools: [{ name: 'add', execute: add }], size: os.availableParallelism(), timeoutMs: 60_000, fresh: 'create' });
    await pool.ready();
    const code = (n) => `let s = 0;\nfor (let i = 0; i < ${n}; i++) s += (await add({ a: i, b: 1 })).sum;\nreturn s`;
    return {
      async run(n) {
        const r = await pool.exec(code(n));
        if (r?.status !== 'completed' || r.value !== (n * (n + 1)) / 2) throw new Error(JSON.stringify(r).slice(0, 300));
      },
      close: () => pool.close(),
    };
  },
};
// Loaded only when asked for: the floor addon is built on its own (bench/README.md).
async function floor(how) {
  const { runFloor } = await import('./floor/floor.mjs');
  return { run: (n) => runFloor(n, (input) => add({ a: input.value, b: 1 }), how), close() {} };
}
function before() {
  if (!process.env.CALL_FLOOR_BEFORE) throw new Error('the @before sides need CALL_FLOOR_BEFORE=<another build>/index.js');
  return process.env.CALL_FLOOR_BEFORE;
}
const runners = {};
for (const side of SIDES) runners[side] = await make[side]();
for (const side of SIDES) await runners[side].run(500);
const figures = await measureRounds(runners, SIDES, ROUNDS, CALLS);
for (const side of SIDES) await runners[side].close();
console.log(`${'side'.padEnd(15)} wall µs/call  CPU µs/call (all)  Node main thread`);
for (const side of SIDES) {
  const f = figures[side];
  console.log(`${side.padEnd(15)} ${median(f.wall).toFixed(1).padStart(12)}  ${median(f.cpu).toFixed(1).padStart(17)}  ${median(f.main).toFixed(1).padStart(16)}   walls ${f.wall.map((x) => x.toFixed(0)).join(' ')}`);
}
