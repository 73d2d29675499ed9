// Stress (issue 8): 50 sessions × 20 concurrent cells with seeded random aborts, session
// closes and parked-run expiries (scripts/stress-scenario.mjs). Every promise settles with
// a documented outcome, no run, cell or timer is left behind and the worker pool keeps its
// size. How long the event loop waits under this load is a benchmark figure, not asserted
// here: `npm run bench:event-loop` (bench/event-loop.mjs) measures it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from './_helpers.mjs';
import { native, warmUp, runLoad, SESSIONS, CELLS_PER_SESSION } from '../scripts/stress-scenario.mjs';

let sessions = [];
after(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});

test('50 sessions × 20 concurrent cells with aborts, closes and expiries all settle and leave nothing behind', { timeout: 120000 }, async (t) => {
  assert.equal((await warmUp()).value, 1);
  const before = native.codeModeRuntimeStats();
  const load = await runLoad();
  sessions = load.sessions;
  const { settled, outcomes, closes } = load;
  const rejected = settled.filter((s) => s.status === 'rejected');
  assert.deepEqual(rejected.map((s) => String(s.reason && s.reason.stack)), [], 'every cell settles with a documented outcome');
  assert.equal(settled.length, SESSIONS * CELLS_PER_SESSION);
  t.diagnostic(`${settled.length} cells settled (${closes} sessions closed): ${JSON.stringify(outcomes)}`);

  // Nothing left: no parked run anywhere, every cell and its timers dropped.
  for (const session of sessions) assert.deepEqual(session.runs(), []);
  const drained = (stats) => stats.liveCells === 0 && stats.parkedRuns === 0 && stats.pendingTimers <= before.pendingTimers;
  await eventually(() => drained(native.codeModeRuntimeStats()), 'every cell, parked run and timer of the load was dropped').catch(() => {});
  const stats = native.codeModeRuntimeStats();
  assert.equal(stats.parkedRuns, 0, JSON.stringify(stats));
  assert.equal(stats.liveCells, 0, JSON.stringify(stats));
  assert.ok(stats.pendingTimers <= before.pendingTimers, JSON.stringify(stats));
  assert.ok(stats.workers >= 2 && (before.workers === 0 || stats.workers === before.workers), JSON.stringify(stats));
});
