// Short soak (issue 8): 5,000 mixed cells through the same driver as `npm run soak`
// (tools, timers, suspensions and waits, aborts, cancels, failures, timeouts), every
// outcome as documented, RSS levelling off within a generous bound, nothing left behind.
// The 10-minute timeout only guards a hang: a loaded machine may take several minutes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSoak, lastHalfGrowth } from '../scripts/soak.mjs';
import { native, eventually } from './_helpers.mjs';

test('5,000 mixed cells give documented outcomes, RSS levels off and nothing is left', { timeout: 600_000 }, async (t) => {
  const lines = [];
  const { samples, wrong, counts } = await runSoak({ cells: 5000, every: 500, lanes: 16, cellsPerSession: 250, log: (l) => lines.push(l) });
  t.diagnostic(lines.join('\n'));
  assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} wrong outcomes`);
  for (const [name, n] of Object.entries(counts)) assert.ok(n > 0 || name === 'timeout' || name === 'memory' || name === 'queue overflow', `the mix ran no ${name} cell`);
  const growth = lastHalfGrowth(samples);
  // Generous: a short run still warms allocator arenas and V8's heap.
  assert.ok(growth <= 40, `RSS grew ${growth.toFixed(1)} MB over the last half: ${JSON.stringify(samples)}`);
  const idle = (s) => s.parkedRuns === 0 && s.liveCells === 0;
  await eventually(() => idle(native.codeModeRuntimeStats()), 'every cell and parked run was dropped').catch(() => {});
  const stats = native.codeModeRuntimeStats();
  assert.equal(stats.parkedRuns, 0, JSON.stringify(stats));
  assert.equal(stats.liveCells, 0, JSON.stringify(stats));
});
