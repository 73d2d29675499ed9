// The `context` call option: whatever the caller passes to exec or wait reaches every tool
// call made during that call as ctx.context (the same value, not a copy), and no other.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeSession, closeAll } from './_helpers.mjs';

after(closeAll);

test('every tool call of an exec sees its context option as ctx.context', async () => {
  const context = { user: 'u1', messages: [] };
  const seen = [];
  const s = makeSession({
    tools: [
      { name: 'a', execute: (_input, ctx) => { seen.push(ctx.context); return 1; } },
      { name: 'b', execute: (_input, ctx) => { seen.push(ctx.context); return 2; } },
    ],
  });
  const r = await s.exec({ code: 'return [await a(), await b(), ...(await Promise.all([a(), b()]))]' }, { context });
  assert.equal(r.status, 'completed');
  assert.deepEqual(r.value, [1, 2, 1, 2]);
  assert.equal(seen.length, 4);
  for (const value of seen) assert.equal(value, context);
});

test('without a context option ctx.context is undefined, also after a call that had one', async () => {
  const seen = [];
  const s = makeSession({ tools: [{ name: 'a', execute: (_input, ctx) => { seen.push(ctx.context); return 1; } }] });
  await s.exec({ code: 'return await a()' }, { context: 'first' });
  await s.exec({ code: 'return await a()' });
  await s.exec({ code: 'return await a()' }, {});
  assert.deepEqual(seen, ['first', undefined, undefined]);
});

test('a wait passes its own context to the tool calls made while it runs', async () => {
  const seen = [];
  let release;
  const s = makeSession({
    limits: { timeoutMs: 100 },
    tools: [
      { name: 'slow', execute: () => new Promise((resolve) => { release = resolve; }) },
      { name: 'a', execute: (_input, ctx) => { seen.push(ctx.context); return 1; } },
    ],
  });
  const first = await s.exec({ code: 'await a(); const v = await slow(); return v + await a()' }, { context: 'exec' });
  assert.equal(first.status, 'waiting');
  release(41);
  // The session's 100 ms turn can pass on a busy machine before the run ends: wait again.
  let second = await s.wait({ runId: first.runId }, { context: 'wait' });
  while (second.status === 'waiting') second = await s.wait({ runId: first.runId }, { context: 'wait' });
  assert.equal(second.status, 'completed');
  assert.equal(second.value, 42);
  assert.deepEqual(seen, ['exec', 'wait']);
});

test('an exec that waits for MCP tools to load still passes its context', async () => {
  let listed;
  const loaded = new Promise((resolve) => { listed = resolve; });
  const client = {
    listTools: async () => { await loaded; return { tools: [] }; },
    callTool: async () => ({ content: [] }),
  };
  let seen = 'unset';
  const s = makeSession({
    mcpServers: [{ name: 'slow', client }],
    tools: [{ name: 'a', execute: (_input, ctx) => { seen = ctx.context; return 1; } }],
  });
  const pending = s.exec({ code: 'return await a()' }, { context: 'deferred' });
  listed();
  const r = await pending;
  assert.equal(r.status, 'completed');
  assert.equal(seen, 'deferred');
});

test('a tool call whose run was aborted before the Node thread took it never starts', async () => {
  // `a` aborts the exec from inside, synchronously: the guest's call to `b`, made in the
  // same turn, is then either still in the mailbox (and must be dropped there) or never
  // made. Either way `b` must not run.
  const controller = new AbortController();
  const calls = [];
  const s = makeSession({
    limits: { timeoutMs: 60_000 },
    tools: [
      { name: 'a', execute: () => { calls.push('a'); controller.abort(); return 1; } },
      { name: 'b', execute: () => { calls.push('b'); return 2; } },
    ],
  });
  const r = await s.exec({ code: 'const p = Promise.all([a(), b()]); for (;;) {}' }, { signal: controller.signal });
  assert.equal(r.code, 'aborted', JSON.stringify(r));
  assert.deepEqual(calls, ['a']);
  // The session serves the next call, tools and all.
  const next = await s.exec({ code: 'return await b()' });
  assert.equal(next.value, 2, JSON.stringify(next));
});
