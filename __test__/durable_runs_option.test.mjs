// The `durableRuns` option's checks (docs/durable-runs.md): a well-formed one makes a durable
// session; a bad key, store or ttl is invalid_input naming it; runCodeModeScript refuses it.
// What durable runs do: durable_runs.test.mjs and durable_crash.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CodeModeSession, native } from './_helpers.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemode-durable-option-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
const store = native.sqliteRunStore(path.join(dir, 'runs.db'));
const key = Buffer.alloc(32, 7);
const SCRIPT = 'durableRuns is an option of CodeModeSession: runCodeModeScript runs one script to its end and parks nothing.';

function refused(durableRuns, message) {
  assert.throws(() => new CodeModeSession({ sessionId: 'durable', durableRuns }), (error) => {
    assert.equal(error.code, 'invalid_input', String(error));
    if (message instanceof RegExp) assert.match(error.message, message);
    else assert.equal(error.message, message);
    return true;
  });
}

test('a well-formed durableRuns makes a session whose runs complete as before', async () => {
  for (const durableRuns of [{ store, keys: [{ id: 'k1', key }] }, { store, keys: [{ id: 'k2', key: new Uint8Array(32) }, { id: 'k1', key }], ttlSeconds: 60 }]) {
    const session = new CodeModeSession({ sessionId: 'durable', durableRuns });
    assert.equal((await session.exec({ code: 'return 1 + 1' })).value, 2);
    await session.close();
  }
});

test('runCodeModeScript refuses durableRuns too', async () => {
  await assert.rejects(
    Promise.resolve().then(() => native.runCodeModeScript('return 1', { sessionId: 'durable-script', durableRuns: { store, keys: [{ id: 'k1', key }] } })),
    (error) => error.code === 'invalid_input' && error.message === SCRIPT,
  );
});

test('absent, undefined or null durableRuns leaves a session as it was', async () => {
  for (const durableRuns of [undefined, null]) {
    const session = new CodeModeSession({ sessionId: 'plain', durableRuns });
    assert.equal((await session.exec({ code: 'return 1 + 1' })).value, 2);
    await session.close();
  }
});

test('bad keys are invalid_input naming the key: missing, non-Buffer, wrong length, bad or repeated id', () => {
  refused({ store }, 'durableRuns.keys must hold at least one key: [{ id, key }].');
  refused({ store, keys: [] }, 'durableRuns.keys must hold at least one key: [{ id, key }].');
  refused({ store, keys: ['k'] }, 'durableRuns.keys[0] must be an object: { id, key }.');
  refused({ store, keys: [{ id: 'k1', key: 'a'.repeat(32) }] }, 'durableRuns.keys[0].key must be a Buffer or Uint8Array of 32 bytes.');
  refused({ store, keys: [{ id: 'k1', key: Array.from(key) }] }, 'durableRuns.keys[0].key must be a Buffer or Uint8Array of 32 bytes.');
  refused({ store, keys: [{ id: 'k1', key }, { id: 'k2', key: Buffer.alloc(16) }] }, 'durableRuns.keys[1].key must be 32 bytes; it is 16.');
  refused({ store, keys: [{ id: '', key }] }, 'durableRuns.keys[0].id must be a string of 1 to 64 bytes.');
  refused({ store, keys: [{ id: 'é'.repeat(33), key }] }, 'durableRuns.keys[0].id must be a string of 1 to 64 bytes.');
  refused({ store, keys: [{ id: 'a', key }, { id: 'a', key }] }, 'durableRuns.keys[1].id "a" is also the id of durableRuns.keys[0].');
});

test('a bad store, ttlSeconds or option is invalid_input naming it', () => {
  const notAStore = 'durableRuns.store must be a RunStore: an object with get, put and delete methods.';
  refused({ keys: [{ id: 'k1', key }] }, notAStore);
  refused({ store: { get() {}, put() {} }, keys: [{ id: 'k1', key }] }, notAStore);
  refused({ store: 'sqlite', keys: [{ id: 'k1', key }] }, notAStore);
  for (const ttlSeconds of [0, 1.5, 31536001, '60']) {
    refused({ store, keys: [{ id: 'k1', key }], ttlSeconds }, 'durableRuns.ttlSeconds must be an integer from 1 to 31536000.');
  }
  refused({ store, keys: [{ id: 'k1', key }], ttl: 5 }, 'durableRuns.ttl is not an option; valid options: store, keys, ttlSeconds.');
  refused(true, 'durableRuns must be an object: { store, keys, ttlSeconds? }.');
});
