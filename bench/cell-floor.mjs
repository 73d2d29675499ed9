// The process-mode trivial cell beside its floor, in one process and alternating rounds:
// `node bench/cell-floor.mjs [rounds] [cells]` prints wall and CPU µs per sequential
// awaited `return 1 + 1` cell for the cell floor (bench/floor, `floor` or `floorfresh`),
// thread mode, process mode, the quickjs-wasi reference and, when asked, another build's
// two modes (`thread@before`, `process@before` with CALL_FLOOR_BEFORE) (bench/README.md).
import { createRequire } from 'node:module';
import os from 'node:os';
import { measureRounds } from './procfs.mjs';

const require = createRequire(import.meta.url);
const ROUNDS = Number(process.argv[2]) || 5;
const CELLS = Number(process.argv[3]) || 2000;
const SIDES = (process.env.FLOOR_SIDES ?? 'floor,thread,process,reference').split(',');
const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];

function session(isolation, addon = process.env.CALL_FLOOR_ADDON ?? '../index.js') {
  const { CodeModeSession } = require(addon);
  const s = new CodeModeSession({ sessionId: isolation, isolation, limits: { timeoutMs: 60_000 } });
  return {
    async run(n) {
      for (let i = 0; i < n; i++) {
        const r = await s.exec({ code: 'return 1 + 1' });
        if (r.status !== 'completed' || r.value !== 2) throw new Error(JSON.stringify(r).slice(0, 300));
      }
    },
    close: () => s.close(),
  };
}
function before() {
  if (!process.env.CALL_FLOOR_BEFORE) throw new Error('the @before sides need CALL_FLOOR_BEFORE=<another build>/index.js');
  return process.env.CALL_FLOOR_BEFORE;
}
const make = {
  // One frame each way with a VM made ahead and reused; `floorfresh` makes a new VM after each answer.
  floor: () => floor(false),
  floorfresh: () => floor(true),
  thread: () => session('thread'),
  process: () => session('process'),
  'thread@before': () => session('thread', before()),
  'process@before': () => session('process', before()),
  reference: async () => {
    const { QuickJsWasiPool, compileQuickJsModule } = await import('./peers/quickjs-wasi-pool.mjs');
    const pool = new QuickJsWasiPool({ module: await compileQuickJsModule(), tools: [], size: os.availableParallelism(), timeoutMs: 60_000, fresh: 'create' });
    await pool.ready();
    return {
      async run(n) {
        for (let i = 0; i < n; i++) {
          const r = await pool.exec('return 1 + 1');
          if (r?.status !== 'completed' || r.value !== 2) throw new Error(JSON.stringify(r).slice(0, 300));
        }
      },
      close: () => pool.close(),
    };
  },
};
async function floor(fresh) {
  const { runCellFloor } = await import('./floor/cell-floor.mjs');
  return { run: (n) => runCellFloor(n, fresh), close() {} };
}
const runners = {};
for (const side of SIDES) runners[side] = await make[side]();
for (const side of SIDES) await runners[side].run(200);
const load0 = os.loadavg()[0];
const figures = await measureRounds(runners, SIDES, ROUNDS, CELLS, { rotate: true });
for (const side of SIDES) await runners[side].close();
const ref = SIDES.includes('reference') ? median(figures.reference.wall) : null;
console.log(`load average ${load0.toFixed(2)} → ${os.loadavg()[0].toFixed(2)}`);
console.log(`${'side'.padEnd(15)} wall µs/cell  CPU µs/cell (all)  Node main thread  ref/side`);
for (const side of SIDES) {
  const f = figures[side];
  const ratio = ref ? (ref / median(f.wall)).toFixed(2) + '×' : '';
  console.log(`${side.padEnd(15)} ${median(f.wall).toFixed(1).padStart(12)}  ${median(f.cpu).toFixed(1).padStart(17)}  ${median(f.main).toFixed(1).padStart(16)}  ${ratio.padStart(8)}   walls ${f.wall.map((x) => x.toFixed(0)).join(' ')}`);
}
// The floor's poll handle keeps the loop open.
process.exit(0);
