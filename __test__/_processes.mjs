// Helpers for tests that run a gateway in a child process and watch the processes it
// starts (Linux `/proc`). Not a test file itself (node --test only picks up *.test.mjs).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADDON_PATH } from './_helpers.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Starts `node <script> ...args`; `firstLine` resolves with the first line of its stdout
 * that is JSON, `exit` with how it ended: `{ code, signal, err, guarded, threads }`. The
 * guard only ends a child that hangs (`guarded: true`, after noting its threads' states):
 * every fixture reports long before `capMs` on a slow, busy machine.
 */
export function startChild(script, args = [], { env = {}, capMs = 180_000, input = false } = {}) {
  const child = spawn(process.execPath, [script, ...args], {
    stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    // An `undefined` in `env` removes that variable.
    env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, value]) => value !== undefined)),
  });
  let out = '';
  let err = '';
  let guarded = false;
  let threads = null;
  child.stderr.on('data', (d) => (err += d));
  const firstLine = new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').slice(0, -1).find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.on('close', (code, signal) => reject(new Error(`child ended with ${code ?? signal} before reporting: ${err}`)));
  });
  firstLine.catch(() => {});
  const exit = new Promise((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, err, out, guarded, threads }));
  });
  const guard = setTimeout(() => {
    guarded = true;
    threads = threadStates(child.pid);
    child.kill('SIGKILL');
  }, capMs);
  exit.then(() => clearTimeout(guard));
  return { child, firstLine, exit };
}

/**
 * Starts `fixtures/<fixture>` with the addon's path as its first argument. `input: true`
 * gives it a stdin pipe (see `converse`).
 */
export function startFixture(fixture, args = [], env = {}, { input = false } = {}) {
  return startChild(join(here, 'fixtures', fixture), [ADDON_PATH, ...args], { env, input });
}

/**
 * For a fixture started with `input: true` that answers each JSON line on its stdin with
 * one JSON line: `ask(message)` resolves with the answer. Start it after `firstLine`.
 */
export function converse(child) {
  const answers = [];
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => answers.shift()?.resolve(JSON.parse(line)));
  child.on('close', (code, signal) => {
    for (const waiting of answers.splice(0)) waiting.reject(new Error(`the fixture ended with ${code ?? signal}`));
  });
  return (message) =>
    new Promise((resolve, reject) => {
      answers.push({ resolve, reject });
      child.stdin.write(`${JSON.stringify(message)}\n`);
    });
}

/** Linux: the processes whose parent is `pid` and whose name starts with `name` (15 characters at most). */
export function childrenNamed(pid, name) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid && stat.includes(`(${name.slice(0, 15)}`)) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Linux: the sandbox processes whose parent is `pid`. */
export const sandboxChildren = (pid) => childrenNamed(pid, 'codemode-sandbox');

/** Whether `pid` is a live process (a zombie is not). */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Resolves true once `check()` is truthy, false if it is still falsy after `capMs`: the cap
 * only keeps a broken build from hanging the suite, far beyond what a busy machine needs.
 */
export async function until(check, capMs = 60_000) {
  for (const cap = Date.now() + capMs; Date.now() < cap; await new Promise((r) => setTimeout(r, 10))) {
    if (await check()) return true;
  }
  return Boolean(await check());
}

/** Linux: each thread of `pid` with its name, state and the kernel function it waits in. */
export function threadStates(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).map((tid) => {
      const read = (file) => {
        try {
          return readFileSync(`/proc/${pid}/task/${tid}/${file}`, 'utf8').trim();
        } catch {
          return '?';
        }
      };
      const stat = read('stat');
      return `${read('comm')}:${stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)}:${read('wchan')}`;
    });
  } catch {
    return [];
  }
}
