// Error codes say whose fault a failure is (docs/contract.md, Errors and codes):
// `guest_error` for the model's code, `tool_error` for a tool failure it did not catch,
// `memory_limit_exceeded` for the heap limit; `internal_error` is left to addon faults.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeSession, closeAll, native, run, show } from './_helpers.mjs';

after(closeAll);

const s = makeSession({
  tools: [{ name: 'broken', execute: () => { throw new Error('disk on fire'); } }],
  limits: { memoryLimitBytes: 8 * 1024 * 1024 },
});

function failedWith(r, code) {
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, code, show(r));
}

test('an uncaught guest throw is a guest_error', async () => {
  const r = await run(s, 'throw new Error("model bug")');
  failedWith(r, 'guest_error');
  assert.match(r.error, /^Error: model bug/);
});

test('calling an unknown global is a guest_error', async () => {
  const r = await run(s, 'return await no_such_tool({})');
  failedWith(r, 'guest_error');
  assert.match(r.error, /^ReferenceError: .*no_such_tool/);
});

test('calling a misspelt tool suggests the tool it most likely meant', async () => {
  const r = await run(s, 'return await brokn({})');
  failedWith(r, 'guest_error');
  assert.match(r.error, /^ReferenceError: brokn is not defined; did you mean broken\?\n/);
});

test('a tool failure the guest did not catch is a tool_error', async () => {
  const r = await run(s, 'return await broken({})');
  failedWith(r, 'tool_error');
  assert.match(r.error, /disk on fire/);
});

test('a tool failure the guest caught and rethrew as its own error is a guest_error', async () => {
  const r = await run(s, 'try { await broken({}) } catch (e) { throw new TypeError("wrapped: " + e.message) }');
  failedWith(r, 'guest_error');
});

test('reaching memoryLimitBytes is memory_limit_exceeded', async () => {
  const r = await run(s, 'const keep = []; for (;;) keep.push([keep.length])');
  failedWith(r, 'memory_limit_exceeded');
  assert.match(r.error, /code mode cell ran out of memory: its limit is 8388608 bytes/);
});

test('a headless script over its tool budget is tool_budget_exceeded', async () => {
  const r = await native.runCodeModeScript('for (let i = 0; i < 3; i++) await echo({ i })', {
    sessionId: 'budget-script',
    maxToolCalls: 1,
    tools: [{ name: 'echo', execute: (input) => input }],
  });
  failedWith(r, 'tool_budget_exceeded');
});
