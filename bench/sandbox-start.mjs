// The real sandbox's start beside bench/spawn-floor.rs's bare spawn (issue 36's burst):
// one new process-mode session at a time, `exec` of a trivial first cell to its answer,
// with the gateway's heap grown first; thread mode beside it is the cost without a start.
//
//   node --max-old-space-size=8192 bench/sandbox-start.mjs [sessions=100] [heapMiB=0,1024]
//   CODEMODE_ADDON=/path/to/index.js   measure another build (default: this checkout's)
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { CodeModeSession } = require(process.env.CODEMODE_ADDON ?? '../index.js');
const count = Number(process.argv[2] ?? 100);
const heaps = (process.argv[3] ?? '0,1024').split(',').map(Number);
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];

const held = [];
function growHeap(mib) {
  // Arrays of numbers the collector keeps: a live gateway heap, every page touched.
  while (held.length * 8 < mib) held.push(new Float64Array(1 << 20).fill(1));
}

async function firstCells(isolation) {
  const ms = [];
  for (let k = 0; k < count; k++) {
    const session = new CodeModeSession({ sessionId: `start-${k}`, isolation, tools: [] });
    const t0 = process.hrtime.bigint();
    const r = await session.exec({ code: 'return 1' });
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 'completed') throw new Error(`cell ${k}: ${JSON.stringify(r)}`);
    await session.close();
  }
  return ms;
}

console.log('heap_mib,isolation,first_cell_ms_median,first_cell_ms_p90');
for (const mib of heaps) {
  growHeap(mib);
  for (const isolation of ['process', 'thread']) {
    await firstCells(isolation); // warm-up: the addon's threads, the page cache
    const ms = await firstCells(isolation);
    console.log(`${mib},${isolation},${median(ms).toFixed(2)},${p90(ms).toFixed(2)}`);
  }
}
