// A burst of new sessions' first cells (issue 36): each session's sandbox process starts
// while its cell waits for a worker, and none is lost to start-up or left running after
// close. Correctness only: the timeout is the maximum; the speed is in bench/many.mjs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { makeSession, closeAll, run, show, eventually, native } from './_helpers.mjs';

const SESSIONS = 200;
const linux = process.platform === 'linux';
after(closeAll);

const add = {
  name: 'add',
  description: 'Add two numbers and return { sum }.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  execute: async ({ a, b }) => ({ sum: a + b }),
};
const sandboxes = () => native.codeModeRuntimeStats().sandboxProcesses;
// Every child of the gateway, zombies included: a sandbox not yet reaped is still one.
const children = () =>
  readdirSync('/proc/self/task').flatMap((task) =>
    readFileSync(`/proc/self/task/${task}/children`, 'utf8').split(' ').filter(Boolean),
  );
const processSession = () => makeSession({ isolation: 'process', tools: [add], limits: { timeoutMs: 60_000 } });

test(`${SESSIONS} new sessions whose first cells start at once all complete, and closing them reaps every sandbox`, { skip: !linux }, async () => {
  const warm = processSession();
  assert.equal((await run(warm, 'return 1')).value, 1);
  await warm.close();
  await eventually(() => sandboxes() === 0 && children().length === 0, 'the warm-up sandbox ended');
  const sessions = Array.from({ length: SESSIONS }, processSession);
  const results = await Promise.all(sessions.map((s, k) => run(s, `return (await add({ a: ${k}, b: 1 })).sum`)));
  results.forEach((r, k) => {
    assert.equal(r.status, 'completed', show(r));
    assert.equal(r.value, k + 1, show(r));
  });
  assert.equal(sandboxes(), SESSIONS, 'one sandbox per session without a sandboxGroup');
  await Promise.all(sessions.map((s) => s.close()));
  await eventually(() => sandboxes() === 0 && children().length === 0, 'every sandbox ended and was reaped');
});

test('a session closed before its first cell reaches a worker leaves no sandbox behind', { skip: !linux }, async () => {
  await eventually(() => sandboxes() === 0, 'no sandbox from an earlier test');
  const sessions = Array.from({ length: 20 }, processSession);
  // The exec starts each sandbox on the call; the close follows before the cell runs.
  const results = sessions.map((s) => run(s, 'return 1').catch(() => null));
  await Promise.all(sessions.map((s) => s.close()));
  await Promise.all(results);
  await eventually(() => sandboxes() === 0 && children().length === 0, 'every sandbox ended and was reaped');
});

test('sessions sharing a sandboxGroup start one process for a burst, not one each', { skip: !linux }, async () => {
  const group = `burst-${process.pid}`;
  const sessions = Array.from({ length: 20 }, () => makeSession({ isolation: 'process', sandboxGroup: group, tools: [add], limits: { timeoutMs: 60_000 } }));
  const results = await Promise.all(sessions.map((s, k) => run(s, `return (await add({ a: ${k}, b: 2 })).sum`)));
  results.forEach((r, k) => assert.equal(r.value, k + 2, show(r)));
  assert.ok(sandboxes() <= 2, `${sandboxes()} processes for one group's burst`);
  await Promise.all(sessions.map((s) => s.close()));
});
