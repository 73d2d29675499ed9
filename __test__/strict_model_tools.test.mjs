// modelTools({ strict: true }): exec and wait in the form OpenAI strict function calling
// takes (every property required, optional ones nullable, no extra properties), and the
// nulls a strict model then sends are read as absent.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeSession, closeAll } from './_helpers.mjs';

after(closeAll);

// What OpenAI strict mode demands of an object schema, recursively for object properties.
function assertStrict(schema) {
  assert.equal(schema.type, 'object');
  assert.equal(schema.additionalProperties, false);
  assert.deepEqual([...schema.required].sort(), Object.keys(schema.properties).sort());
}

test('strict exec and wait schemas require every property and are marked strict', () => {
  const s = makeSession({ tools: [{ name: 'ask', directOnly: true, parameters: { type: 'object', properties: { q: { type: 'string' } } }, execute: () => 1 }] });
  const [exec, wait, ask] = s.modelTools({ strict: true });
  assertStrict(exec.parameters);
  assertStrict(wait.parameters);
  assert.equal(exec.strict, true);
  assert.equal(wait.strict, true);
  assert.deepEqual(exec.parameters.properties.code.type, 'string');
  assert.deepEqual(exec.parameters.properties.restartSafe.type, ['boolean', 'null']);
  assert.deepEqual(exec.parameters.properties.language.type, ['string', 'null']);
  assert.ok(exec.parameters.properties.language.enum.includes(null));
  // A direct-only tool keeps its host's schema and is not marked strict.
  assert.equal(ask.strict, undefined);
  assert.deepEqual(ask.parameters, { type: 'object', properties: { q: { type: 'string' } } });
  // The default is unchanged, with the same descriptions.
  const plain = s.modelTools();
  assert.deepEqual(plain[0].parameters.required, ['code']);
  assert.equal(plain[0].strict, undefined);
  assert.equal(plain[0].description, exec.description);
  assert.deepEqual(s.modelTools({ strict: false }), plain);
});

test('an exec input with the nulls of a strict model runs as if they were absent', async () => {
  const s = makeSession();
  const r = await s.exec({ code: 'return 6 * 7', language: null, restartSafe: null });
  assert.equal(r.status, 'completed');
  assert.equal(r.value, 42);
});

test('a strict option that is not a boolean throws invalid_input', () => {
  const s = makeSession();
  assert.throws(() => s.modelTools({ strict: 'yes' }), { code: 'invalid_input', message: /strict must be a boolean/ });
});
