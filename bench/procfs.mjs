// Linux /proc readings for bench/many.mjs: the gateway's descendant processes (sandboxes in
// `isolation: "process"`) with their PSS, threads and CPU ticks, the gateway's own threads and
// fds, and how close the host is to its process and memory limits. Every reader answers null
// (or skips a process) when /proc is missing or a process exits meanwhile.
import { readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const read = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};
const field = (text, name) => {
  const m = text && new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text);
  return m ? Number(m[1]) : null;
};

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (`getconf CLK_TCK`). */
export const CLK_TCK = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  return Number(r.stdout?.trim()) || 100;
})();

// comm, ppid and utime + stime (ticks) of a process or thread; comm may hold spaces and ')'.
function stat(path) {
  const text = read(path);
  if (!text) return null;
  const close = text.lastIndexOf(')');
  const rest = text.slice(close + 2).split(' ');
  return { comm: text.slice(text.indexOf('(') + 1, close), ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]) };
}

/** Every process below `root` (children, grandchildren…), whatever starts them. */
export function descendants(root = process.pid) {
  const children = new Map();
  let entries = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const s = stat(`/proc/${e}/stat`);
    if (!s) continue;
    if (!children.has(s.ppid)) children.set(s.ppid, []);
    children.get(s.ppid).push(Number(e));
  }
  const out = [];
  for (let queue = [root]; queue.length; ) for (const c of children.get(queue.shift()) ?? []) out.push(c), queue.push(c);
  return out;
}

/** The gateway and its descendants: RSS, PSS, threads, fds. */
export function snapshot() {
  const pids = descendants();
  let pssKB = 0;
  let threads = 0;
  for (const pid of pids) {
    pssKB += field(read(`/proc/${pid}/smaps_rollup`), 'Pss') ?? 0;
    threads += field(read(`/proc/${pid}/status`), 'Threads') ?? 0;
  }
  let fds = null;
  try {
    fds = readdirSync('/proc/self/fd').length;
  } catch {}
  return { rss: process.memoryUsage.rss(), gatewayThreads: field(read('/proc/self/status'), 'Threads'), fds, sandboxes: pids.length, sandboxPss: pssKB * 1024, sandboxThreads: threads };
}

/** CPU µs so far: the gateway's Node main thread, the whole gateway, every descendant alive. */
export function cpuNow() {
  const { user, system } = process.cpuUsage();
  const main = stat(`/proc/self/task/${process.pid}/stat`);
  const sandboxTicks = descendants().reduce((sum, pid) => sum + (stat(`/proc/${pid}/stat`)?.ticks ?? 0), 0);
  return { gateway: user + system, main: main ? (main.ticks * 1e6) / CLK_TCK : null, sandboxes: (sandboxTicks * 1e6) / CLK_TCK };
}

/** The soft limit of open files of this process (`ulimit -n`). */
export const fdSoftLimit = () => Number(/^Max open files\s+(\d+)/m.exec(read('/proc/self/limits') ?? '')?.[1]) || null;

const PID_MAX = Number(read('/proc/sys/kernel/pid_max')) || 32_768;
const THREADS_MAX = Number(read('/proc/sys/kernel/threads-max')) || Infinity;

/**
 * Why starting another session could hurt the rest of the host (null: it is fine). Every
 * thread takes a pid, so the host's thread count must stay clear of `pid_max` (other
 * programs could no longer fork), and its free memory clear of the OOM killer.
 */
export function hostPressure({ pidMargin = 0.1, minFreeBytes = 6 * 2 ** 30 } = {}) {
  const total = Number(read('/proc/loadavg')?.split(' ')[3]?.split('/')[1]);
  const cap = Math.min(PID_MAX, THREADS_MAX);
  if (total > cap * (1 - pidMargin)) return `host threads at ${total} of pid_max ${PID_MAX}: stopped before the host runs out of pids`;
  const free = (field(read('/proc/meminfo'), 'MemAvailable') ?? Infinity) * 1024;
  if (free < minFreeBytes) return `MemAvailable down to ${(free / 2 ** 30).toFixed(1)} GB: stopped before the host runs out of memory`;
  return null;
}

/**
 * Runs `runners[side].run(n)` for each side, `rounds` times (`rotate`: the order shifts
 * each round, so drift hits every side alike), and returns per side the wall µs, CPU µs
 * of every thread and sandbox, and the Node main thread's CPU µs, each per unit of `n`.
 */
export async function measureRounds(runners, sides, rounds, n, { rotate = false } = {}) {
  const figures = Object.fromEntries(sides.map((s) => [s, { wall: [], cpu: [], main: [] }]));
  for (let round = 0; round < rounds; round++) {
    const order = rotate ? sides.map((_, i) => sides[(i + round) % sides.length]) : sides;
    for (const side of order) {
      const c0 = cpuNow();
      const t0 = process.hrtime.bigint();
      await runners[side].run(n);
      const wall = Number(process.hrtime.bigint() - t0) / 1000 / n;
      const c1 = cpuNow();
      figures[side].wall.push(wall);
      figures[side].cpu.push((c1.gateway - c0.gateway + c1.sandboxes - c0.sandboxes) / n);
      figures[side].main.push(c1.main == null ? NaN : (c1.main - c0.main) / n);
    }
  }
  return figures;
}
