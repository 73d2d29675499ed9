// The example gateway (`npm run demo`) as a CI smoke test: it runs in a child
// process, as a newcomer would run it, and must finish on its own with exit 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// One run shared by the tests below: the demo is the expensive part, and each
// test checks a different promise its output makes.
const demo = new Promise((resolve) => {
  // The timeout turns a dangling handle (a process that never exits) into a failure.
  execFile(process.execPath, ['examples/gateway.mjs'], { cwd: repoRoot, timeout: 60_000 }, (error, stdout, stderr) =>
    resolve({ code: error ? (error.code ?? 1) : 0, signal: error?.signal ?? null, stdout, stderr }));
});
const explain = ({ code, signal, stdout, stderr }) => `exit ${code} ${signal ?? ''}\n${stdout.slice(-3000)}\n${stderr.slice(-2000)}`;

test('the demo exits on its own with code 0 and reports every program as expected', async () => {
  const run = await demo;
  assert.equal(run.code, 0, explain(run));
  assert.equal(run.signal, null);
  assert.match(run.stdout, /^OK: all 3 programs completed as expected$/m);
  for (const n of [1, 2, 3]) assert.match(run.stdout, new RegExp(`^program ${n}: completed.*, as expected$`, 'm'));
});

test('the slow program is parked by exec and finished by wait', async () => {
  const { stdout } = await demo;
  const program3 = stdout.slice(stdout.indexOf('== program 3'));
  assert.match(program3, /^-- exec\nstatus: waiting {2}runId: \S+ {2}reason: pending_tools$/m);
  assert.match(program3, /^-- wait #1 /m);
  assert.match(stdout, /^program 3: completed after \d+ wait call\(s\), as expected$/m);
});

test('the modelTools payload is smaller than exposing every tool directly', async () => {
  const { stdout } = await demo;
  const codeMode = Number(stdout.match(/^code mode \(exec \+ wait\): (\d+) bytes$/m)?.[1]);
  const direct = stdout.match(/^direct exposure \((\d+) tools\): +(\d+) bytes$/m);
  assert.ok(direct, stdout.slice(0, 2000));
  assert.equal(Number(direct[1]), 34);
  assert.ok(codeMode > 0 && codeMode < Number(direct[2]), `code mode ${codeMode} vs direct ${direct[2]}`);
  assert.match(stdout, /^saving: \d+% of the tool payload/m);
});

test('guest code reaches the in-memory MCP server and its call shows in the trajectory', async () => {
  const { stdout } = await demo;
  const program1 = stdout.slice(stdout.indexOf('== program 1'), stdout.indexOf('== program 2'));
  assert.match(program1, /^ {2}\S+ +search_pages +ok /m);
  assert.match(program1, /"runbook":\{"id":"RB-7"/);
  assert.match(stdout, /^Runbook: RB-7 SSO login failures$/m);
});
