// Object lifetimes across the JS/Rust boundary: a session nobody references is kept until
// its pending results settle, and sessions and headless scripts leave nothing reachable
// once they are done (their glue, tool definitions and mailbox are collected).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { native, CodeModeSession, sleep } from './_helpers.mjs';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

async function collect() {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(5);
  }
}

test('an exec awaited on a session nobody else references completes, even across collections', async () => {
  const tools = [{ name: 'later', execute: () => new Promise((resolve) => setTimeout(() => resolve(7), 40)) }];
  const pending = [];
  for (let i = 0; i < 20; i++) {
    pending.push(new CodeModeSession({ sessionId: `lifetime-${process.pid}-${i}`, tools }).exec({ code: 'return await later({})' }));
  }
  await collect();
  const results = await Promise.all(pending);
  assert.deepEqual(
    results.map((r) => [r.status, r.value]),
    results.map(() => ['completed', 7])
  );
});

test('finished sessions and headless scripts are collected: the heap levels off', async () => {
  const tools = [{ name: 'echo', execute: (input) => input, parameters: { type: 'object' } }];
  async function batch(offset) {
    for (let i = 0; i < 200; i++) {
      const session = new CodeModeSession({ sessionId: `lifetime-b-${process.pid}-${offset + i}`, tools });
      assert.equal((await session.exec({ code: 'return (await echo({ a: 1 })).a' })).value, 1);
      const headless = await native.runCodeModeScript('return (await echo({ b: 2 })).b', { sessionId: `lifetime-h-${offset + i}`, tools });
      assert.equal(headless.value, 2);
    }
    await collect();
    return process.memoryUsage().heapUsed;
  }
  await batch(0);
  const first = await batch(1000);
  const second = await batch(2000);
  const third = await batch(3000);
  // 200 sessions and 200 scripts per batch: kept alive they would add megabytes a batch
  // (each holds a compiled glue closure, its tool table and a mailbox).
  const growth = (third - first) / 1e6;
  assert.ok(growth < 1.5, `heap grew ${growth.toFixed(2)} MB over 400 sessions and 400 scripts (${(first / 1e6).toFixed(1)} → ${(second / 1e6).toFixed(1)} → ${(third / 1e6).toFixed(1)} MB)`);
});
