// One run of the stress scenario (scripts/stress-scenario.mjs, the load of
// __test__/stress.test.mjs) with the event loop measured: its delay percentiles and maximum
// (monitorEventLoopDelay, 1 ms resolution), the longest synchronous call into the addon per
// method, the longest V8 collection and the hypervisor's CPU steal inside the window.
// Prints one JSON line for bench/event-loop.mjs; exits 1 if a cell's outcome was wrong.
//
//   node bench/event-loop-stress.mjs
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { warmUp, runLoad } from '../scripts/stress-scenario.mjs';

/**
 * CPU time the hypervisor gave to other guests instead of this VM (the `steal` column of
 * Linux's /proc/stat, in ticks of 10 ms; 0 where there is no such count). While it grows
 * every thread of the VM stands still, whatever the process does.
 */
function stolenTicks() {
  try {
    return Number(readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/)[8]) || 0;
  } catch {
    return 0;
  }
}

await warmUp();
const delay = monitorEventLoopDelay({ resolution: 1 });
// V8's own pauses, reported beside the loop's delay: most steal-free maxima are one.
let longestGc = 0;
const collections = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) longestGc = Math.max(longestGc, entry.duration);
});
collections.observe({ entryTypes: ['gc'] });
const stolenBefore = stolenTicks();
delay.enable();
const { settled, outcomes, sessions, closes, longestCallMs } = await runLoad();
delay.disable();
collections.disconnect();
const stolenInside = stolenTicks() - stolenBefore;
await Promise.all(sessions.map((s) => s.close()));

const rejected = settled.filter((s) => s.status === 'rejected').map((s) => String(s.reason && s.reason.stack));
const ms = (ns) => Number((ns / 1e6).toFixed(2));
const figures = {
  p50: ms(delay.percentile(50)),
  p99: ms(delay.percentile(99)),
  max: ms(delay.max),
  longestCall: Number(Math.max(longestCallMs.exec, longestCallMs.wait).toFixed(2)),
  longestCalls: Object.fromEntries(Object.entries(longestCallMs).map(([k, v]) => [k, Number(v.toFixed(2))])),
  longestGc: Number(longestGc.toFixed(2)),
  stolenInside,
  cells: settled.length,
  closes,
  outcomes,
  wrong: rejected.length,
};
if (rejected.length > 0) console.error(rejected.slice(0, 3).join('\n\n'));
console.log(JSON.stringify(figures));
process.exit(rejected.length > 0 ? 1 : 0);
