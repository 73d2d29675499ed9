// The tool-call floor beside the real call, in one process and alternating rounds:
// `node bench/call-floor.mjs [rounds] [calls]` prints wall and CPU µs per sequential
// awaited call for the floor (bench/floor), thread mode and process mode (bench/README.md).
import { createRequire } from 'node:module';
import { cpuNow } from './procfs.mjs';

const require = createRequire(import.meta.url);
const ROUNDS = Number(process.argv[2]) || 5;
const CALLS = Number(process.argv[3]) || 5000;
const SIDES = (process.env.FLOOR_SIDES ?? 'floor,thread,process').split(',');
const add = async ({ a, b }) => ({ sum: a + b });
const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];

function session(isolation) {
  // CALL_FLOOR_ADDON: another build's `.node`, for before/after runs of one script.
  const { CodeModeSession } = require(process.env.CALL_FLOOR_ADDON ?? '../index.js');
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
  floor: () => ({ run: (n) => runFloor(n, (input) => add({ a: input.value, b: 1 })), close() {} }),
  // The floor with Node woken by an uv_async_t instead of a threadsafe function.
  flooruv: () => ({ run: (n) => runFloor(n, (input) => add({ a: input.value, b: 1 }), true), close() {} }),
  thread: () => session('thread'),
  process: () => session('process'),
};
const runners = Object.fromEntries(SIDES.map((s) => [s, make[s]()]));
const figures = Object.fromEntries(SIDES.map((s) => [s, { wall: [], cpu: [], main: [] }]));
for (const side of SIDES) await runners[side].run(500);
for (let round = 0; round < ROUNDS; round++) {
  for (const side of SIDES) {
    const c0 = cpuNow();
    const t0 = process.hrtime.bigint();
    await runners[side].run(CALLS);
    const wall = Number(process.hrtime.bigint() - t0) / 1000 / CALLS;
    const c1 = cpuNow();
    figures[side].wall.push(wall);
    figures[side].cpu.push((c1.gateway - c0.gateway + c1.sandboxes - c0.sandboxes) / CALLS);
    figures[side].main.push(c1.main == null ? NaN : (c1.main - c0.main) / CALLS);
  }
}
for (const side of SIDES) await runners[side].close();
console.log('side      wall µs/call  CPU µs/call (all)  Node main thread');
for (const side of SIDES) {
  const f = figures[side];
  console.log(`${side.padEnd(9)} ${median(f.wall).toFixed(1).padStart(12)}  ${median(f.cpu).toFixed(1).padStart(17)}  ${median(f.main).toFixed(1).padStart(16)}   walls ${f.wall.map((x) => x.toFixed(0)).join(' ')}`);
}
