#!/usr/bin/env node
// Gateway scale (issue 36): many parked conversations, CPU per tool call, a start-up burst;
// both isolation modes beside the quickjs-wasi reference, in one run on one machine.
//
//   node bench/many.mjs               all three groups, N = 1,000 (`npm run bench` runs it after run.mjs, Linux only)
//   BENCH_MANY=10000                  N conversations for the `many` group
//   BENCH_ONLY=many,cpu,burst         only these groups (run.mjs's selection variable; its own ids are skipped)
//   BENCH_SIDES=process,ours,reference  only these sides (`ours` = thread mode, as in run.mjs)
//   BENCH_QUICK=1                     shorter CPU group and N = 200 (unless BENCH_MANY is set)
//   BENCH_MANY_REFERENCE=1            run the reference at N > 2,000 too (its snapshots take ~1.5 MB each)
//   BENCH_MANY_WIDTH=32               sessions starting at once while parking
//
// Every measurement runs in a fresh child `node --expose-gc` under `sh -c 'ulimit -n …'`, which
// raises the soft fd limit up to the hard one (Node cannot call setrlimit). A child that goes past
// its deadline is killed with its process group (its sandbox processes included).
// stdout: markdown tables, a machine line, failures. stderr: progress. bench/results-many.json: raw figures.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { TASKS } from './many-tasks.mjs';
import { CLK_TCK } from './procfs.mjs';

const SELF = fileURLToPath(import.meta.url);
const QUICK = process.argv.includes('--quick') || !!process.env.BENCH_QUICK;
const N = Number(process.env.BENCH_MANY) || (QUICK ? 200 : 1000);
const WIDTH = Number(process.env.BENCH_MANY_WIDTH) || 32;
const CPU = QUICK ? { rounds: 1, calls: 5000, cells: 2 } : { rounds: 3, calls: 20_000, cells: 4 };
const BURST = 500;
const FD_WANT = 65_536;
const MY_GROUPS = ['many', 'cpu', 'burst'];
const ONLY = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').filter((g) => MY_GROUPS.includes(g)) : MY_GROUPS;
// Side ids as in run.mjs: `ours` is thread mode.
const SIDES = ['thread', 'process', 'reference'].filter((s) => (process.env.BENCH_SIDES ?? 'ours,process,reference').split(',').includes(s === 'thread' ? 'ours' : s));
const REFERENCE_MAX = process.env.BENCH_MANY_REFERENCE ? Infinity : 2000;
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

function runChild(args, deadlineMs) {
  return new Promise((resolve) => {
    const script = `ulimit -n ${FD_WANT} 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"`;
    const cp = spawn('sh', ['-c', script, process.execPath, '--expose-gc', SELF, '--child', ...args.map(String)], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    let out = '';
    cp.stdout.on('data', (d) => (out += d));
    // Past the deadline the child still runs, so its process group is still its own.
    const timer = setTimeout(() => {
      try {
        process.kill(-cp.pid, 'SIGKILL');
      } catch {}
    }, deadlineMs);
    cp.on('close', (code, signal) => {
      // No group kill once the child is gone: its id may since belong to another process.
      // The `many` task itself checks that every sandbox exited after close().
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()));
      } catch {
        resolve({ ok: false, error: `child ${args.join(' ')} ended (${signal ?? code}) without a result${signal === 'SIGKILL' ? ` (deadline ${deadlineMs / 1000} s)` : ''}` });
      }
    });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
function fmt(x) {
  if (x === 0) return '0';
  const a = Math.abs(x);
  const d = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}
const fmtRatio = (x) => `**${x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 0.1 ? x.toFixed(2) : x.toPrecision(2)}×**`;
const oneLine = (m) => String(m).replace(/\s+/g, ' ').replace(/ \(\/[^ )]*\)/g, '').replace(/\|/g, '\\|').slice(0, 240);

// columns: [{ id, label }]; rows: [{ key, name, int?, lower? (ratio = reference / side), higher? }]
// results[column] = list of rounds { ok, figures } or { skipped: text }.
function table(columns, rows, results, problems) {
  const cols = columns.filter((c) => results[c.id]);
  const ratioCols = cols.filter((c) => c.id !== 'reference' && results.reference);
  const head = ['workload', ...cols.map((c) => `${c.label} median (min–max)`), ...ratioCols.map((c) => `${c.label} ratio vs reference`)];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---|').join('')}`];
  const stats = {};
  for (const c of cols) {
    const rounds = results[c.id];
    for (const r of rounds) if (!r.ok && !r.skipped) problems.push(`${c.label}: ${oneLine(r.failedAt ? `failed at session ${r.failedAt}: ${r.error}` : r.unsupported ?? r.error)}`);
  }
  for (const row of rows) {
    const cells = [];
    for (const c of cols) {
      const rounds = results[c.id];
      const xs = rounds.filter((r) => r.ok && typeof r.figures?.[row.key] === 'number').map((r) => r.figures[row.key]);
      const bad = rounds.find((r) => !r.ok);
      const f = row.int ? (x) => Math.round(x).toLocaleString('en-US') : fmt;
      if (row.sides && !row.sides.includes(c.id)) cells.push('n/a');
      else if (xs.length) {
        stats[c.id] = median(xs);
        const lo = Math.min(...xs);
        const hi = Math.max(...xs);
        cells.push(xs.length === 1 || lo === hi ? f(stats[c.id]) : `${f(stats[c.id])} (${f(lo)}–${f(hi)})`);
      } else if (bad?.unsupported) cells.push('not supported yet');
      else if (bad?.skipped) cells.push(bad.skipped);
      else if (bad && row === rows[0]) cells.push(`n/a (${bad.failedAt ? `failed at session ${bad.failedAt.toLocaleString('en-US')}: ` : ''}${oneLine(bad.error)})`);
      else if (bad?.failedAt && typeof bad.figures?.[row.key] === 'number') cells.push(`n/a (the ${bad.parked.toLocaleString('en-US')} before: ${f(bad.figures[row.key])})`);
      else if (bad) cells.push('n/a');
      else cells.push('—');
      if (!xs.length) delete stats[c.id];
    }
    const ratios = ratioCols.map((c) => {
      const [o, p] = [stats[c.id], stats.reference];
      if (!(row.lower || row.higher) || !o || !p) return '—';
      return fmtRatio(row.lower ? p / o : o / p);
    });
    lines.push(`| ${[row.name, ...cells, ...ratios].join(' | ')} |`);
  }
  return lines.join('\n');
}

const LABEL = { thread: 'thread', process: 'process', grouped: 'process, 100 sandbox groups', reference: 'quickjs-wasi pool (reference)' };
const COLUMNS = ['thread', 'process', 'grouped', 'reference'].map((id) => ({ id, label: LABEL[id] }));

async function main() {
  const started = Date.now();
  const loadAtStart = os.loadavg();
  const out = { n: N, width: WIDTH, cpu: CPU, burst: BURST, clkTck: CLK_TCK, groups: {} };
  const tables = [];
  const problems = [];
  if (ONLY.includes('many')) {
    const results = {};
    const columns = [...SIDES.filter((s) => s !== 'reference'), ...(SIDES.includes('process') ? ['grouped'] : []), ...SIDES.filter((s) => s === 'reference')];
    for (const col of columns) {
      const side = col === 'grouped' ? 'process' : col;
      if (col === 'reference' && N > REFERENCE_MAX) {
        results[col] = [{ ok: false, skipped: `not run at N > ${REFERENCE_MAX.toLocaleString('en-US')} (BENCH_MANY_REFERENCE=1)` }];
        continue;
      }
      log(`many: ${N} conversations, ${LABEL[col]}…`);
      const r = await runChild(['many', side, N, col === 'grouped' ? 1 : 0, WIDTH], 15 * 60_000);
      log(`  ${r.ok ? 'ok' : `FAILED: ${r.unsupported ?? (r.failedAt ? `at session ${r.failedAt}: ` : '') + r.error}`} ${JSON.stringify(r.figures ?? {})}`);
      if (r.afterClose?.sandboxes) problems.push(`${LABEL[col]}: ${r.afterClose.sandboxes} sandbox processes still running 60 s after every close()`);
      results[col] = [r];
    }
    out.groups.many = results;
    const n = N.toLocaleString('en-US');
    tables.push(
      `### ${n} conversations, each holding a run parked on a held tool, then all resumed\n\n` +
        table(COLUMNS, [
          { key: 'perSession', lower: true, name: 'memory per conversation: gateway RSS growth + sandbox PSS (MB)' },
          { key: 'gatewayKB', lower: true, name: '… of which gateway RSS growth (KB)' },
          { key: 'sandboxKB', name: '… of which sandbox processes’ PSS (KB)' },
          { key: 'processes', int: true, name: 'sandbox processes' },
          { key: 'threads', int: true, lower: true, name: 'threads: gateway + sandbox processes' },
          { key: 'sandboxThreads', name: '… threads per sandbox process' },
          { key: 'fds', int: true, lower: true, name: 'open fds of the gateway' },
          { key: 'parkAll', lower: true, name: `park all: wall from the first session to the last \`waiting\`, ${WIDTH} starting at once (s)` },
          { key: 'park', lower: true, name: '… per conversation: median `new CodeModeSession` + `exec` → `waiting` (ms)' },
          { key: 'resumeAll', lower: true, name: 'resume all: release every held call, then `wait` each run at once, until the last completes (s)' },
          { key: 'resume', lower: true, name: '… per conversation: median `wait` → `completed` (ms)' },
        ], results, problems),
    );
  }
  if (ONLY.includes('cpu')) {
    const results = Object.fromEntries(SIDES.map((s) => [s, []]));
    for (let round = 0; round < CPU.rounds; round++) {
      for (const side of SIDES.map((_, i) => SIDES[(i + round) % SIDES.length])) {
        const r = await runChild(['cpu', side, CPU.calls, CPU.cells], 5 * 60_000);
        log(`cpu round ${round + 1}/${CPU.rounds} ${side}: ${r.ok ? JSON.stringify(r.figures) : `FAILED: ${r.error}`}`);
        results[side].push(r);
      }
    }
    out.groups.cpu = results;
    const calls = CPU.calls.toLocaleString('en-US');
    tables.push(
      `### Sequential awaited tool calls (\`await add(…)\` in a loop, ${calls} calls in ${CPU.cells} cells per round): wall and CPU per call\n\n` +
        table(COLUMNS, [
          { key: 'wall', lower: true, name: 'wall per call: median over the cells (µs)' },
          { key: 'cpu', lower: true, name: 'CPU per call, every thread and process (µs)' },
          { key: 'main', lower: true, name: '… Node main thread (µs)' },
          { key: 'others', name: '… other gateway threads: addon threads; reference: its worker threads (µs)' },
          { key: 'sandbox', name: '… sandbox process (µs)' },
        ], results, problems),
    );
  }
  if (ONLY.includes('burst')) {
    const results = {};
    for (const side of SIDES) {
      const r = await runChild(['burst', side, BURST], 5 * 60_000);
      log(`burst ${side}: ${r.ok ? JSON.stringify(r.figures) : `FAILED: ${r.error}`}${r.firstOther ? ` first other: ${r.firstOther}` : ''}`);
      if (r.firstOther) problems.push(`${LABEL[side]} burst, first cell that neither completed nor ended timeout or waiting: ${oneLine(r.firstOther)}`);
      results[side] = [r];
    }
    out.groups.burst = results;
    tables.push(
      `### A burst: ${BURST} new conversations’ first cells at once (\`timeoutMs: 3000\`, one tool call each); reference: ${BURST} cells on its pool\n\n` +
        table(COLUMNS, [
          { key: 'completed', int: true, higher: true, name: 'completed with the right value' },
          { key: 'timeouts', int: true, name: 'ended `timeout`' },
          { key: 'timeoutsNoCall', int: true, name: '… of which had made no tool call' },
          { key: 'waiting', int: true, name: 'ended `waiting` (its call had not answered at the deadline)' },
          { key: 'failed', int: true, name: 'other failures' },
          { key: 'calls', int: true, name: 'cells whose tool call reached the host' },
          { key: 'allMs', lower: true, name: 'time until every cell has an answer (ms)' },
        ], results, problems),
    );
  }
  const cpu = os.cpus();
  tables.push(
    `Machine: ${cpu[0]?.model ?? 'unknown'}, ${cpu.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB, Node ${process.version}, ${os.platform()} ${os.release()}, ${new Date().toISOString()} ` +
      `(load average at start ${loadAtStart.map((x) => x.toFixed(1)).join(' ')}, at the end ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}). One fresh child process per side and round; CLK_TCK ${CLK_TCK}. ` +
      `Ratio = reference / side for times, memory, threads and fds, side / reference for counts of completed cells: > 1 means codemode-native is better.` +
      (problems.length ? `\n\nFailures:\n${problems.map((p) => `- ${p}`).join('\n')}` : ''),
  );
  process.stdout.write(tables.join('\n\n') + '\n');
  out.totalSeconds = (Date.now() - started) / 1000;
  const file = fileURLToPath(new URL('./results-many.json', import.meta.url));
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  log(`wrote ${file} (${out.totalSeconds.toFixed(0)} s)`);
}

if (process.argv.includes('--child')) {
  const [task, ...args] = process.argv.slice(process.argv.indexOf('--child') + 1);
  Promise.resolve()
    .then(() => TASKS[task](...args.map((a) => (/^\d+$/.test(a) ? Number(a) : a))))
    .catch((err) => ({ ok: false, error: String(err?.message ?? err) }))
    .then((r) => {
      process.stdout.write(JSON.stringify(r) + '\n');
      process.exit(0);
    });
} else if (process.platform !== 'linux') {
  log('bench/many.mjs: skipped, it reads /proc (Linux only)');
} else if (!ONLY.length) {
  log('bench/many.mjs: no group selected (BENCH_ONLY has none of many, cpu, burst)');
} else {
  main().then(() => process.exit(0), (err) => (console.error(err), process.exit(1)));
}
