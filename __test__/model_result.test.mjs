// toModelResult (docs/contract.md, Model results): the model's view of a result, without
// telemetry or nestedCalls, and within budgetChars for every budget of at least 256.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeSession, closeAll, native, run, show } from './_helpers.mjs';
import { seededRandom } from '../scripts/seeded-random.mjs';

const { toModelResult } = native;
after(closeAll);

const telemetry = { catalogSize: 10, sources: { openclaw: 10, mcp: 0, client: 0 }, counterScope: 'abcd', searchCount: 0, describeCount: 0, callCount: 10, visibleTools: [] };

test('a completed fan-out keeps its value and drops telemetry and nestedCalls', async () => {
  const s = makeSession({ tools: [{ name: 'echo', execute: (input) => input }] });
  const r = await run(s, 'const all = await Promise.all(Array.from({ length: 10 }, (_, i) => echo({ i }))); text("done"); return all.length');
  assert.ok(r.nestedCalls.length === 10, show(r));
  const model = toModelResult(r);
  assert.deepEqual(model, { status: 'completed', value: 10, output: [{ type: 'text', text: 'done' }] });
});

test('a failed result keeps its error and code', () => {
  const r = { status: 'failed', error: 'Error: boom', code: 'guest_error', telemetry, nestedCalls: [] };
  assert.deepEqual(toModelResult(r), { status: 'failed', error: 'Error: boom', code: 'guest_error' });
});

test('a waiting result keeps its runId and reason, not its pending calls', () => {
  const r = { status: 'waiting', runId: 'cm_0123', reason: 'pending_tools', pendingToolCalls: [{ id: 'x', method: 'tool' }], telemetry };
  assert.deepEqual(toModelResult(r), { status: 'waiting', runId: 'cm_0123', reason: 'pending_tools' });
});

test('output is cut before the value', () => {
  const r = { status: 'completed', value: { answer: 42 }, output: [{ type: 'text', text: 'o'.repeat(10_000) }], telemetry };
  const model = toModelResult(r, { budgetChars: 400 });
  assert.deepEqual(model.value, { answer: 42 });
  assert.equal(model.output[0].value.truncated, true);
  assert.ok(JSON.stringify(model).length <= 400);
});

test('a budget below 256 or not an integer is invalid_input, as is a value that is not a result', () => {
  const r = { status: 'completed', value: 1, telemetry };
  for (const budgetChars of [255, 0, -1, 300.5, '300']) {
    assert.throws(() => toModelResult(r, { budgetChars }), (e) => e.code === 'invalid_input' && e.message === 'budgetChars must be an integer of at least 256.', String(budgetChars));
  }
  assert.throws(() => toModelResult({ status: 'done' }), (e) => e.code === 'invalid_input');
  assert.throws(() => toModelResult(null), (e) => e.code === 'invalid_input');
});

/** A random string with ASCII, escapes, astral characters and lone-free surrogate pairs. */
function randomText(rnd, length) {
  const alphabet = ['a', 'Z', '0', ' ', '"', '\\', '\n', '\u0001', 'é', '😀', '中', '\u2028'];
  let s = '';
  for (let i = 0; i < length; i++) s += alphabet[Math.floor(rnd() * alphabet.length)];
  return s;
}

function randomValue(rnd, depth = 0) {
  const pick = Math.floor(rnd() * (depth > 3 ? 4 : 7));
  switch (pick) {
    case 0: return null;
    case 1: return [1e21, -1e-7, 123.456, 2 ** 60, 1e20, -0.5, 7][Math.floor(rnd() * 7)];
    case 2: return rnd() < 0.5;
    case 3: return randomText(rnd, Math.floor(rnd() * 400));
    case 4: return Array.from({ length: Math.floor(rnd() * 30) }, () => randomValue(rnd, depth + 1));
    default: return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 12) }, (_, i) => [`k${i}${randomText(rnd, 3)}`, randomValue(rnd, depth + 1)]));
  }
}

function randomResult(rnd) {
  const output = rnd() < 0.7
    ? Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => (rnd() < 0.5 ? { type: 'text', text: randomText(rnd, Math.floor(rnd() * 3000)) } : { type: 'json', value: randomValue(rnd) }))
    : undefined;
  const kind = Math.floor(rnd() * 3);
  const base = { output, telemetry, nestedCalls: [{ callId: 'c', toolName: 't', status: 'ok' }] };
  if (kind === 0) return { status: 'completed', value: randomValue(rnd), ...base };
  if (kind === 1) return { status: 'failed', error: `Error: ${randomText(rnd, Math.floor(rnd() * 4000))}`, code: 'tool_error', ...base };
  return { status: 'waiting', runId: 'cm_0123456789abcdef01234567', reason: 'yield', ...base };
}

test('every budget of at least 256 holds and a completed result stays completed', () => {
  const rnd = seededRandom(20);
  let cut = 0;
  for (let i = 0; i < 400; i++) {
    const r = randomResult(rnd);
    for (const n of [256, 257, 300, 512, 1000, 2048, 256 + Math.floor(rnd() * 8000)]) {
      const model = toModelResult(r, { budgetChars: n });
      const text = JSON.stringify(model);
      assert.ok(text.length <= n, `budget ${n}: ${text.length} chars for ${JSON.stringify(r).slice(0, 200)}`);
      assert.equal(model.status, r.status, `budget ${n}: ${text.slice(0, 300)}`);
      assert.ok(!('telemetry' in model) && !('nestedCalls' in model));
      if (text.length < JSON.stringify(toModelResult(r)).length) cut++;
    }
  }
  assert.ok(cut > 100, `the property exercised cutting (${cut} cut results)`);
});

test('a result that fits is returned whole', () => {
  const r = { status: 'completed', value: { a: [1, 2, 3] }, output: [{ type: 'json', value: 'x' }], telemetry };
  assert.deepEqual(toModelResult(r, { budgetChars: 256 }), toModelResult(r));
});
