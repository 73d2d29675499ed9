// resultBudgetChars (`CallOptions` in index.d.ts; docs/contract.md, Output budget): the
// whole result, measured as JSON.stringify(result).length (UTF-16 code units), fits a
// model's per-result limit.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeSession, closeAll, run, show, eventually } from './_helpers.mjs';

const CANNOT_FIT = 'Model tool-result budget cannot fit Code Mode status; use a larger model context.';
const GUIDANCE = 'Output truncated; rerun with narrower args.';
const size = (r) => JSON.stringify(r).length;

let calls = 0;
const session = makeSession({ tools: [{ name: 'count', execute: () => ++calls }] });
after(closeAll);

test('without the option the result is not projected', async () => {
  const r = await run(session, 'return "x".repeat(20000)');
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value.length, 20000);
});

test('a result that fits the budget is unchanged', async () => {
  const r = await run(session, 'text("hello"); return { a: 1 }', { resultBudgetChars: 5000 });
  assert.equal(r.status, 'completed', show(r));
  assert.deepEqual(r.value, { a: 1 });
  assert.deepEqual(r.output, [{ type: 'text', text: 'hello' }]);
});

test('an oversized value becomes a truncation marker and the whole result fits', async () => {
  const r = await run(session, 'return "x".repeat(20000)', { resultBudgetChars: 2000 });
  assert.equal(r.status, 'completed', show(r));
  assert.ok(size(r) <= 2000 && size(r) > 1950, String(size(r)));
  assert.equal(r.value.truncated, true);
  assert.equal(r.value.guidance, GUIDANCE);
  assert.ok(r.value.prefix.startsWith('"xxxx'));
  assert.equal(r.value.omittedBytes + r.value.prefix.length, 20002);
  assert.equal(typeof r.telemetry.catalogSize, 'number');
});

test('characters are counted as UTF-16 code units', async () => {
  const r = await run(session, 'return "🎉".repeat(3000)', { resultBudgetChars: 1500 });
  assert.equal(r.status, 'completed', show(r));
  assert.ok(size(r) <= 1500 && size(r) > 1450, String(size(r)));
  assert.ok(!r.value.prefix.includes('\uFFFD'));
  assert.equal(r.value.omittedBytes + Buffer.byteLength(r.value.prefix), 12002);
});

test('output and value share the budget', async () => {
  const r = await run(session, 'text("o".repeat(8000)); return "v".repeat(8000)', { resultBudgetChars: 3000 });
  assert.equal(r.status, 'completed', show(r));
  assert.ok(size(r) <= 3000, String(size(r)));
  assert.equal(r.value.truncated, true);
  assert.equal(r.output.length, 1);
  assert.equal(r.output[0].type, 'json');
  assert.equal(r.output[0].value.truncated, true);
});

test('an oversized error keeps its lead and ends with the truncation suffix', async () => {
  const r = await run(session, 'throw new Error("boom " + "e".repeat(5000))', { resultBudgetChars: 1200 });
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'guest_error');
  assert.match(r.error, /^Error: boom eee/);
  assert.ok(r.error.endsWith(' [error truncated]'));
  assert.ok(size(r) <= 1200, String(size(r)));
});

test('a budget that cannot fit the status fails with the documented message', async () => {
  const r = await run(session, 'return 1', { resultBudgetChars: 30 });
  assert.equal(r.status, 'failed');
  assert.equal(r.error, CANNOT_FIT);
  assert.equal(r.code, 'output_limit_exceeded');
});

test('a waiting run that cannot be reported is dropped', async () => {
  const s = makeSession({});
  const r = await run(s, 'await yield_control("later"); return 1', { resultBudgetChars: 40 });
  assert.equal(r.error, CANNOT_FIT, show(r));
  await eventually(() => s.runs().length === 0, 'the unreportable run was dropped');
  assert.deepEqual(s.runs(), []);
});

test('wait applies its own budget', async () => {
  const first = await run(session, 'await yield_control("y"); return "w".repeat(9000)');
  assert.equal(first.status, 'waiting', show(first));
  const r = await session.wait({ runId: first.runId }, { resultBudgetChars: 1000 });
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value.truncated, true);
  assert.ok(size(r) <= 1000, String(size(r)));
});

for (const bad of [0, -5, 1.5, '100', NaN, Infinity, true, {}]) {
  test(`resultBudgetChars ${String(bad)} is an invalid_input result and runs nothing`, async () => {
    const before = calls;
    const r = await run(session, 'return count()', { resultBudgetChars: bad });
    assert.equal(r.status, 'failed');
    assert.equal(r.code, 'invalid_input');
    assert.equal(r.error, 'resultBudgetChars must be a positive integer.');
    assert.equal(calls, before);
  });
}
