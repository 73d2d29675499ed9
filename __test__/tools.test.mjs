// Host tools bridged into the guest (docs/contract.md: Catalog and search, Bridge, Tool
// calls and ids) — basic coverage.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeSession, closeAll, run, show } from './_helpers.mjs';

after(closeAll);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function baseTools(extra = []) {
  return [
    { name: 'sync_add', description: 'adds', execute: ({ a, b }) => a + b },
    { name: 'async_echo', description: 'echoes', execute: async (input) => { await sleep(2); return { echoed: input }; } },
    { name: 'thrower', execute: () => { throw new Error('kaput'); } },
    { name: 'rejecter', execute: async () => { await sleep(1); throw new Error('rejected!'); } },
    { name: 'bigint', execute: () => 10n },
    { name: 'llm-task', execute: () => 'llm ok' },
    ...extra,
  ];
}

async function completed(session, code, options) {
  const r = await run(session, code, options);
  assert.equal(r.status, 'completed', show(r));
  return r;
}

test('a sync tool is callable as an async global and returns its value', async () => {
  const s = makeSession({ tools: baseTools() });
  const r = await completed(s, 'const p = sync_add({ a: 2, b: 3 }); return [p instanceof Promise, await p]');
  assert.deepEqual(r.value, [true, 5]);
});

test('an async tool receives the JSON input and its resolved value reaches the guest', async () => {
  const s = makeSession({ tools: baseTools() });
  const r = await completed(s, 'return await async_echo({ q: [1, "two"], n: null })');
  assert.deepEqual(r.value, { echoed: { q: [1, 'two'], n: null } });
});

test('a tool called without arguments receives null input', async () => {
  let seen = 'unset';
  const s = makeSession({ tools: [{ name: 'probe', execute: (input) => { seen = input; return 1; } }] });
  await completed(s, 'return await probe()');
  assert.equal(seen, null);
});

test('the guest input is converted to JSON before it reaches the host', async () => {
  let seen;
  const s = makeSession({ tools: [{ name: 'probe', execute: (input) => { seen = input; return 1; } }] });
  await completed(s, 'return await probe({ big: 7n, nan: NaN, f() {}, m: new Map([[1, 2]]), u: undefined, d: new Date(0) })');
  assert.deepEqual(seen, { big: '7', nan: null, m: {}, d: '1970-01-01T00:00:00.000Z' });
});

test('a throwing tool rejects in the guest with a plain Error carrying code and effectStatus', async () => {
  const s = makeSession({ tools: baseTools() });
  const r = await completed(s, `try { await thrower(); return "no throw" } catch (e) {
    return { isErr: e instanceof Error, name: e.name, message: e.message, code: e.code, effectStatus: e.effectStatus } }`);
  assert.deepEqual(r.value, { isErr: true, name: 'Error', message: 'kaput', code: 'tool_error', effectStatus: 'unknown' });
});

test('a rejecting async tool rejects in the guest with code tool_error', async () => {
  const s = makeSession({ tools: baseTools() });
  const r = await completed(s, `try { await rejecter(); return "no throw" } catch (e) {
    return { isErr: e instanceof Error, message: e.message, code: e.code, effectStatus: e.effectStatus } }`);
  assert.deepEqual(r.value, { isErr: true, message: 'rejected!', code: 'tool_error', effectStatus: 'unknown' });
});

test('an uncaught tool error fails the cell with the tool message', async () => {
  const s = makeSession({ tools: baseTools() });
  const r = await run(s, 'await thrower()');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'tool_error', show(r));
  assert.ok(r.error.includes('kaput'), r.error);
  assert.equal(r.nestedCalls?.[0]?.status, 'error', 'the nested call is recorded as an error');
});

test('a BigInt returned by a tool reaches the guest as its decimal string, as guest BigInts do', async () => {
  const s = makeSession({
    tools: [...baseTools(), { name: 'bigints', execute: () => ({ n: -42n, boxed: Object(12345678901234567890n), list: [1n] }) }],
  });
  const r = await completed(s, 'return [await bigint(), await bigints(), 10n]');
  assert.deepEqual(r.value, ['10', { n: '-42', boxed: '12345678901234567890', list: ['1'] }, '10']);
});

test('a tool returning a value that is not JSON surfaces as a tool error in the guest', async () => {
  const cyclic = {};
  cyclic.self = cyclic;
  const s = makeSession({ tools: [{ name: 'cyclic', execute: () => cyclic }] });
  const r = await completed(s, `try { const v = await cyclic(); return { ok: v } } catch (e) {
    return { isErr: e instanceof Error, code: e.code, effectStatus: e.effectStatus, notJson: e.message.includes("not JSON") } }`);
  assert.deepEqual(r.value, { isErr: true, code: 'tool_error', effectStatus: 'unknown', notJson: true });
});

test('host objects and Error instances returned by a tool cross only as JSON', async () => {
  const s = makeSession({
    tools: [{ name: 'exotic', execute: () => ({ when: new Date(0), err: new Error('x'), fn: () => 1, nested: { ok: true } }) }],
  });
  const r = await completed(s, 'const v = await exotic(); return [Object.getPrototypeOf(v) === Object.prototype, typeof v.fn, v.nested, typeof v.when]');
  assert.deepEqual(r.value, [true, 'undefined', { ok: true }, 'string']);
});

test('ctx carries callId, runId and sessionId', async () => {
  let ctx;
  const s = makeSession({ tools: [{ name: 'ctx_probe', execute: (input, c) => { ctx = c; return c.callId; } }] });
  const r = await completed(s, 'return await ctx_probe()');
  assert.equal(typeof ctx.callId, 'string');
  assert.ok(ctx.callId.length > 0);
  assert.equal(typeof ctx.runId, 'string');
  assert.ok(ctx.runId.length > 0);
  assert.equal(ctx.sessionId, s.sessionId);
  assert.equal(ctx.parentCallId, undefined, 'no parentCallId without an outer callId');
  assert.equal(r.value, ctx.callId);
  assert.ok(ctx.signal && typeof ctx.signal.aborted === 'boolean', 'ctx.signal is an AbortSignal-like object');
  assert.equal(r.nestedCalls?.[0]?.callId, ctx.callId, 'the nested call record uses the same callId');
});

test('ctx survives destructuring and spreading, and each ctx.signal belongs to its own call', async () => {
  const seen = {};
  let release;
  const started = new Promise((resolve) => { release = resolve; });
  const s = makeSession({
    tools: [
      {
        name: 'hold',
        execute: (_input, ctx) => {
          const { signal, callId } = ctx;
          seen.hold = { ctx, copy: { ...ctx }, keys: Object.keys(ctx), callId, same: signal === ctx.signal };
          release();
          return new Promise((resolve) => signal.addEventListener('abort', () => resolve('stopped')));
        },
      },
      { name: 'quick', execute: (_input, ctx) => { seen.quick = ctx; return 1; } },
    ],
  });
  const controller = new AbortController();
  const pending = s.exec({ code: 'return await Promise.all([quick(), hold()])' }, { signal: controller.signal });
  await started;
  controller.abort();
  const r = await pending;
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'aborted');
  const { ctx, copy, keys, callId, same } = seen.hold;
  assert.deepEqual(keys, ['callId', 'parentCallId', 'runId', 'sessionId', 'context', 'signal', 'onUpdate', 'pauseBudget']);
  assert.equal(callId, ctx.callId);
  assert.ok(same, 'ctx.signal is one AbortSignal on every read');
  assert.equal(copy.signal, ctx.signal, 'a spread copy carries the same signal');
  assert.equal(typeof copy.pauseBudget, 'function');
  assert.equal(ctx.signal.aborted, true, 'the held call was aborted');
  assert.equal(seen.quick.signal.aborted, false, 'the call that had already finished was not');
  assert.notEqual(seen.quick.signal, ctx.signal);
});

test('every call in a cell gets a distinct callId and the same runId', async () => {
  const ctxs = [];
  const s = makeSession({ tools: [{ name: 'ctx_probe', execute: (input, c) => { ctxs.push(c); return null; } }] });
  await completed(s, 'await Promise.all([ctx_probe(), ctx_probe(), ctx_probe()]); await ctx_probe();');
  assert.equal(ctxs.length, 4);
  assert.equal(new Set(ctxs.map((c) => c.callId)).size, 4);
  assert.equal(new Set(ctxs.map((c) => c.runId)).size, 1);
});

test('a callId passed in exec options becomes ctx.parentCallId', async () => {
  let ctx;
  const s = makeSession({ tools: [{ name: 'ctx_probe', execute: (input, c) => { ctx = c; return null; } }] });
  const r = await completed(s, 'await ctx_probe()', { callId: 'outer-call-1' });
  assert.equal(ctx.parentCallId, 'outer-call-1');
  assert.equal(r.nestedCalls?.[0]?.parentCallId, 'outer-call-1');
});

test('Promise.all of 50 calls never runs more than maxPendingToolCalls at once on the host', async () => {
  let current = 0;
  let peak = 0;
  let total = 0;
  const s = makeSession({
    limits: { maxPendingToolCalls: 4 },
    tools: [{
      name: 'slow',
      execute: async ({ i }) => {
        current++;
        total++;
        peak = Math.max(peak, current);
        await sleep(3);
        current--;
        return i;
      },
    }],
  });
  const r = await completed(s, 'return await Promise.all(Array.from({ length: 50 }, (_, i) => slow({ i })))');
  assert.deepEqual(r.value, Array.from({ length: 50 }, (_, i) => i));
  assert.equal(total, 50);
  assert.ok(peak <= 4, `peak concurrency was ${peak}`);
  assert.ok(peak >= 2, `calls should overlap (peak ${peak})`);
});

test('telemetry.callCount counts nested calls cumulatively', async () => {
  const s = makeSession({ tools: baseTools() });
  assert.equal(s.telemetry().callCount, 0);
  const r1 = await completed(s, 'await sync_add({ a: 1, b: 1 }); await async_echo(1); await llm_task();');
  assert.equal(r1.telemetry.callCount, 3);
  const r2 = await completed(s, 'await Promise.all([sync_add({ a: 1, b: 2 }), sync_add({ a: 3, b: 4 })])');
  assert.equal(r2.telemetry.callCount, 5);
  assert.equal(s.telemetry().callCount, 5);
});

test('failed tool calls are counted too', async () => {
  const s = makeSession({ tools: baseTools() });
  const r = await completed(s, 'await thrower().catch(() => {}); await rejecter().catch(() => {}); return 1');
  assert.equal(r.telemetry.callCount, 2);
});

test('catalog.all() lists every tool handle with callableName llm_task for llm-task', async () => {
  const s = makeSession({ tools: baseTools() });
  const r = await completed(s, 'return catalog.all().map((h) => [h.callableName, h.toolName])');
  assert.deepEqual(r.value, [
    ['sync_add', 'sync_add'],
    ['async_echo', 'async_echo'],
    ['thrower', 'thrower'],
    ['rejecter', 'rejecter'],
    ['bigint', 'bigint'],
    ['llm_task', 'llm-task'],
  ]);
  assert.equal(r.telemetry.callCount, 0, 'catalog.all() starts no bridge call');
});

test('the llm_task global calls the llm-task tool', async () => {
  const s = makeSession({ tools: baseTools() });
  const r = await completed(s, 'return [typeof llm_task, await llm_task()]');
  assert.deepEqual(r.value, ['function', 'llm ok']);
});

test('catalog.all() returns the same handle objects as the globals', async () => {
  const s = makeSession({ tools: baseTools() });
  const r = await completed(s, 'const h = catalog.all().find((x) => x.toolName === "llm-task"); return [h === llm_task, Object.isFrozen(h)]');
  assert.deepEqual(r.value, [true, true]);
});

test('telemetry reports the catalog size and sources', async () => {
  const s = makeSession({ tools: baseTools() });
  const t = s.telemetry();
  assert.equal(t.catalogSize, 6);
  assert.deepEqual(t.sources, { core: 6, openclaw: 6, mcp: 0, client: 0 });
  assert.deepEqual(t.visibleTools, ['exec', 'wait']);
  assert.equal(typeof t.counterScope, 'string');
});
