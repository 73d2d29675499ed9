// Shared helpers for the suites that start child gateways and look at their sandbox
// processes from outside (sandbox.test.mjs, jail.test.mjs). Not a test file itself.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { ADDON_PATH } from './_helpers.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Starts a fixture; resolves with its first JSON line, its exit and the child itself.
 * `input: true` gives it a stdin pipe (see `converse`).
 */
export function startChild(fixture, args, env = {}, { input = false } = {}) {
  const child = spawn(process.execPath, [join(here, 'fixtures', fixture), ADDON_PATH, ...args], {
    stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const firstLine = new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && out.includes('\n')) resolve(JSON.parse(line));
    });
    child.on('close', (code, signal) => reject(new Error(`child ended with ${code ?? signal} before reporting: ${err}`)));
  });
  const exit = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, err })));
  // A hang guard only: every fixture reports within seconds.
  const guard = setTimeout(() => child.kill('SIGKILL'), 180_000);
  exit.then(() => clearTimeout(guard));
  return { child, firstLine, exit };
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

/** Linux: the sandbox processes whose parent is `pid`. */
export function sandboxChildren(pid) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid && stat.includes('(codemode-sandbo')) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Whether `pid` runs (a zombie does not). */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Whether `check()` became true within a generous cap (a hang guard, not a timing). */
export async function until(check) {
  for (const cap = Date.now() + 60_000; Date.now() < cap; await new Promise((r) => setTimeout(r, 10))) {
    if (check()) return true;
  }
  return false;
}
