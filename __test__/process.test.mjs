// Process-level behaviour: idle exit, worker_threads, concurrency (docs/contract.md, Architecture).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ADDON_PATH, makeSession, closeAll, run, show } from './_helpers.mjs';

const tmp = mkdtempSync(path.join(tmpdir(), 'codemode-process-test-'));
after(async () => {
  await closeAll();
  rmSync(tmp, { recursive: true, force: true });
});

/** Runs `node script` and resolves { code, signal, stdout, stderr, killed } within `limitMs`. */
function runChild(source, limitMs = 60_000) {
  const file = path.join(tmp, `child-${Math.random().toString(16).slice(2)}.mjs`);
  writeFileSync(file, source);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { killed = true; child.kill('SIGKILL'); }, limitMs);
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr, killed }); });
  });
}

test('a script that runs one cell and never closes its session exits on its own', async () => {
  const child = await runChild(`
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const { CodeModeSession } = require(${JSON.stringify(ADDON_PATH)});
    const session = new CodeModeSession({ sessionId: 'idle-exit' });
    const r = await session.exec({ code: 'return 40 + 2' });
    console.log('value=' + JSON.stringify(r.value));
  `);
  assert.equal(child.killed, false, `child did not exit within 60 s (stdout=${child.stdout}, stderr=${child.stderr})`);
  assert.equal(child.code, 0, `exit code ${child.code}, stderr: ${child.stderr}`);
  assert.match(child.stdout, /value=42/);
});

test('a script whose session has tools and ran a tool call exits on its own', async () => {
  const child = await runChild(`
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const { CodeModeSession } = require(${JSON.stringify(ADDON_PATH)});
    const session = new CodeModeSession({ sessionId: 'idle-exit-tools', tools: [
      { name: 'add', execute: async ({ a, b }) => a + b },
    ] });
    const r = await session.exec({ code: 'return await add({ a: 1, b: 2 })' });
    console.log('value=' + JSON.stringify(r.value));
  `);
  assert.equal(child.killed, false, `child did not exit within 60 s (stdout=${child.stdout}, stderr=${child.stderr})`);
  assert.equal(child.code, 0, `exit code ${child.code}, stderr: ${child.stderr}`);
  assert.match(child.stdout, /value=3/);
});

test('a script that only constructs a session exits on its own', async () => {
  const child = await runChild(`
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const { CodeModeSession } = require(${JSON.stringify(ADDON_PATH)});
    new CodeModeSession({ sessionId: 'constructed-only', tools: [{ name: 't', execute: () => 1 }] });
    console.log('constructed');
  `);
  assert.equal(child.killed, false, `child did not exit within 60 s (stderr=${child.stderr})`);
  assert.equal(child.code, 0, `exit code ${child.code}, stderr: ${child.stderr}`);
  assert.match(child.stdout, /constructed/);
});

test('the addon loads and runs a cell inside a worker_threads Worker', async () => {
  const worker = new Worker(`
    const { parentPort } = require('node:worker_threads');
    const { CodeModeSession } = require(${JSON.stringify(ADDON_PATH)});
    const session = new CodeModeSession({ sessionId: 'in-worker', tools: [
      { name: 'double', execute: async ({ n }) => n * 2 },
    ] });
    session.exec({ code: 'return [await double({ n: 21 }), typeof process]' })
      .then((r) => parentPort.postMessage({ status: r.status, value: r.value, error: r.error }))
      .catch((e) => parentPort.postMessage({ rejected: String(e) }));
  `, { eval: true });
  const outcome = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => { worker.terminate(); reject(new Error('worker did not answer within 60 s')); }, 60_000);
    let message;
    worker.on('message', (m) => { message = m; });
    worker.on('error', (e) => { clearTimeout(timer); reject(e); });
    worker.on('exit', (code) => { clearTimeout(timer); resolve({ message, code }); });
  });
  assert.deepEqual(outcome.message, { status: 'completed', value: [42, 'undefined'], error: undefined });
  assert.equal(outcome.code, 0, 'the worker exits on its own with code 0');
});

test('the main thread keeps working after a worker that used the addon exits', async () => {
  const s = makeSession();
  const r = await run(s, 'return "main ok"');
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 'main ok');
});

test('200 concurrent execs on one session all complete with their own values', async () => {
  const s = makeSession();
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => run(s, `return ${i} * 2`)));
  results.forEach((r, i) => {
    assert.equal(r.status, 'completed', `cell ${i}: ${show(r)}`);
    assert.equal(r.value, i * 2);
  });
});

test('200 concurrent execs across many sessions calling an async tool all complete', async () => {
  const tools = [{ name: 'later', execute: (input) => new Promise((resolve) => setTimeout(() => resolve(input.v), 5)) }];
  const sessions = Array.from({ length: 20 }, () => makeSession({ tools }));
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) => run(sessions[i % 20], `return (await later({ v: ${i} })) + 1`)),
  );
  results.forEach((r, i) => {
    assert.equal(r.status, 'completed', `cell ${i}: ${show(r)}`);
    assert.equal(r.value, i + 1);
  });
});
