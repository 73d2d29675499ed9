// Event-loop delay under the stress test's load, run many times: the maximum is a tail
// figure, and on a VM the hypervisor's CPU steal decides many runs, so one run says
// little. Alternates the stress scenario on the addon (event-loop-stress.mjs, the load of
// __test__/stress.test.mjs, which asserts correctness only) with a pure-JS stand-in of the
// same shape (peers/event-loop-control.mjs) and prints one markdown table, split by
// whether the hypervisor stole CPU time during the run. This is where the p99, maximum
// and longest-addon-call figures live: no test asserts them.
//
//   npm run bench:event-loop            # 20 runs of each side
//   EVENT_LOOP_RUNS=40 npm run bench:event-loop
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const RUNS = Number(process.env.EVENT_LOOP_RUNS || 20);
const LIMIT_MS = 20;

/** The `steal` column of /proc/stat (ticks of 10 ms); 0 where there is none. */
function stolenTicks() {
  try {
    return Number(readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/)[8]) || 0;
  } catch {
    return 0;
  }
}

/** One run in a fresh process; the figures it printed, or null if it failed. */
function runOnce(script, parse) {
  const before = stolenTicks();
  const child = spawnSync(process.execPath, [script], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const stolen = stolenTicks() - before;
  const figures = child.status === 0 ? parse(child.stdout) : null;
  return figures && { ...figures, stolen };
}

/** Both sides print their figures as one JSON line, last on stdout. */
function lastJsonLine(out) {
  try {
    return JSON.parse(out.trim().split('\n').pop());
  } catch {
    return null;
  }
}

const sides = [
  {
    name: 'codemode-native (stress scenario)',
    script: here('event-loop-stress.mjs'),
    parse: lastJsonLine,
  },
  {
    name: 'pure-JS stand-in (no addon)',
    script: here('peers/event-loop-control.mjs'),
    parse: lastJsonLine,
  },
];

const median = (xs) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const top = (xs) => (xs.length ? Math.max(...xs) : NaN);
const fmt = (x) => (Number.isNaN(x) ? '–' : `${x.toFixed(1)} ms`);

const results = sides.map(() => ({ runs: [], failed: 0 }));
for (let i = 0; i < RUNS; i++) {
  sides.forEach((side, k) => {
    const run = runOnce(side.script, side.parse);
    if (run === null) results[k].failed++;
    else results[k].runs.push(run);
    process.stderr.write(`run ${i + 1}/${RUNS} ${side.name}: ${run ? `max ${run.max} ms, steal ${run.stolen}` : 'failed'}\n`);
  });
}

console.log(`| side | runs (failed) | steal-free runs | max: median, steal-free | max: worst, steal-free | steal-free runs over ${LIMIT_MS} ms | max: median, all runs | p99: median | p99: worst | longest V8 collection: median | longest exec/wait, steal-free |`);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
const cleanMedians = [];
const allMedians = [];
sides.forEach((side, k) => {
  const { runs, failed } = results[k];
  const clean = runs.filter((r) => r.stolen === 0);
  const cleanMax = clean.map((r) => r.max);
  cleanMedians.push(clean.length >= 3 ? median(cleanMax) : NaN);
  allMedians.push(median(runs.map((r) => r.max)));
  const longest = clean.filter((r) => r.longestCall !== undefined).map((r) => r.longestCall);
  console.log(`| ${side.name} | ${runs.length} (${failed}) | ${clean.length} | ${fmt(median(cleanMax))} | ${fmt(top(cleanMax))} | ${cleanMax.filter((x) => x > LIMIT_MS).length} | ${fmt(median(runs.map((r) => r.max)))} | ${fmt(median(runs.map((r) => r.p99)))} | ${fmt(top(runs.map((r) => r.p99)))} | ${fmt(median(runs.map((r) => r.longestGc)))} | ${fmt(top(longest))} |`);
});
// Too few steal-free runs (a busy host) leave only the all-runs figure to compare.
const [basis, medians] = cleanMedians.some(Number.isNaN) ? ['all runs', allMedians] : ['steal-free runs', cleanMedians];
console.log(`\nmedian event-loop maximum over ${basis}: codemode-native / stand-in = ${(medians[0] / medians[1]).toFixed(2)}×`);
console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${os.release()}, node ${process.version}`);
