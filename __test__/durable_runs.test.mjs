// Durable runs through the public API, in this process: a run parked by one session is
// resumed by another session of its scope that holds nothing but the store and the keys
// (the first closed, as a gateway that restarted); calls made before the park are not made
// again; an approval is resolved inside the stored record; a record that does not open, or
// a replay that calls otherwise, fails clearly and dispatches nothing. Gateways killed at
// each point are in durable_crash.test.mjs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CodeModeSession, native } from './_helpers.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemode-durable-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const key = Buffer.alloc(32, 7);
const keys = [{ id: 'k1', key }];
let sessions = 0;

/** A store that keeps records in a Map, as a gateway may bring its own; `records` is open to tampering. */
function memoryStore() {
  const records = new Map();
  return {
    records,
    async get(runId) {
      const record = records.get(runId);
      return record === undefined ? null : { version: record.version, bytes: Buffer.from(record.bytes) };
    },
    async put(runId, bytes, { expectVersion = null } = {}) {
      const current = records.has(runId) ? records.get(runId).version : null;
      if (current !== expectVersion) return { ok: false, current };
      const version = current === null ? 1 : current + 1;
      records.set(runId, { version, bytes: Buffer.from(bytes) });
      return { ok: true, version };
    },
    async delete(runId, expectVersion) {
      const record = records.get(runId);
      if (record === undefined || (expectVersion != null && record.version !== expectVersion)) return false;
      records.delete(runId);
      return true;
    },
  };
}

/** Tools that count their calls: `echo` answers, `ask` waits for a person (ctx.suspend). */
function gateway(sessionId, store, { tools = ['echo', 'ask'], isolation } = {}) {
  const calls = [];
  const all = {
    echo: { name: 'echo', description: 'Echoes.', execute: (input) => (calls.push(['echo', input]), { echo: input }) },
    ask: { name: 'ask', description: 'Asks a person.', execute: (input, ctx) => (calls.push(['ask', input]), ctx.suspend({ question: input })) },
  };
  const session = new CodeModeSession({
    sessionId,
    isolation,
    tools: tools.map((name) => all[name]),
    durableRuns: { store, keys },
  });
  return { session, calls };
}

const APPROVAL = `
  const [a, b] = await Promise.all([echo({ n: 1 }), echo({ n: 2 })]);
  const approved = await ask({ sum: a.echo.n + b.echo.n });
  const after = await echo({ approved });
  return { sum: a.echo.n + b.echo.n, approved, after: after.echo.approved };
`;

for (const isolation of ['thread', 'process']) {
  test(`${isolation}: an approval outlives its gateway: resolved from the record, resumed by another session, earlier calls not made again`, async () => {
    const store = native.sqliteRunStore(path.join(dir, `approval-${isolation}.db`));
    const id = `durable-approval-${isolation}-${++sessions}`;
    const first = gateway(id, store, { isolation });
    const parked = await first.session.exec({ code: APPROVAL });
    assert.equal(parked.status, 'waiting', JSON.stringify(parked));
    const [pending] = parked.pendingToolCalls;
    assert.equal(pending.external, true);
    assert.deepEqual(pending.payload, { question: { sum: 3 } });
    assert.ok(await store.get(parked.runId), 'the run is in the store when exec answers waiting');
    await first.session.close();

    const second = gateway(id, store, { isolation });
    assert.equal(await second.session.resolveCall({ runId: parked.runId, callId: pending.id, value: true }), 'resolved');
    assert.equal(await second.session.resolveCall({ runId: parked.runId, callId: pending.id, value: false }), 'already_resolved');
    const done = await second.session.wait({ runId: parked.runId });
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.value, { sum: 3, approved: true, after: true });
    assert.deepEqual(second.calls, [['echo', { approved: true }]], 'only the call after the approval ran here');
    assert.equal(await store.get(parked.runId), null, 'an ended run leaves the store');
    await second.session.close();
    await store.close();
  });
}

test('a run resumed in the process that parked it uses its live VM and still goes through the store', async () => {
  const store = memoryStore();
  const { session, calls } = gateway(`durable-cache-${++sessions}`, store);
  const parked = await session.exec({ code: APPROVAL });
  const version = store.records.get(parked.runId).version;
  assert.equal(await session.resolveCall({ runId: parked.runId, callId: parked.pendingToolCalls[0].id, value: 'yes' }), 'resolved');
  assert.ok(store.records.get(parked.runId).version > version, 'the resolve is written');
  const done = await session.wait({ runId: parked.runId });
  assert.deepEqual(done.value, { sum: 3, approved: 'yes', after: 'yes' });
  assert.equal(calls.filter(([name]) => name === 'echo').length, 3);
  assert.equal(store.records.has(parked.runId), false);
  await session.close();
});

test('a record rolled forward under another version is refused, and the stale copy here is dropped', async () => {
  const store = memoryStore();
  const { session, calls } = gateway(`durable-stale-${++sessions}`, store);
  const parked = await session.exec({ code: 'const x = await ask({ n: 1 }); return x;' });
  // Another writer moved the version on (here with the old bytes): this process's copy is
  // stale, so its wait reads the store, and a record sealed for another version does not open.
  const record = store.records.get(parked.runId);
  store.records.set(parked.runId, { version: record.version + 1, bytes: record.bytes });
  const refused = await session.wait({ runId: parked.runId });
  assert.equal(refused.status, 'failed', JSON.stringify(refused));
  assert.equal(refused.code, 'record_refused');
  assert.match(refused.error, /run record does not open: it was altered, or belongs to another run, version or scope\./);
  assert.equal(calls.length, 1, 'nothing ran again');
  assert.equal((await session.runs()).length, 0, 'the stale copy is gone');
  await session.close();
});

test('a tampered, foreign-key or foreign-scope record is record_refused and runs nothing', async () => {
  const store = memoryStore();
  const id = `durable-tamper-${++sessions}`;
  const first = gateway(id, store);
  const parked = await first.session.exec({ code: APPROVAL });
  await first.session.close();
  const original = store.records.get(parked.runId);

  const flipped = Buffer.from(original.bytes);
  flipped[flipped.length - 5] ^= 1;
  store.records.set(parked.runId, { version: original.version, bytes: flipped });
  const tampered = gateway(id, store);
  const failed = await tampered.session.wait({ runId: parked.runId });
  assert.equal(failed.status, 'failed');
  assert.equal(failed.code, 'record_refused', JSON.stringify(failed));
  assert.deepEqual(tampered.calls, []);
  await tampered.session.close();

  store.records.set(parked.runId, original);
  const otherKey = new CodeModeSession({ sessionId: id, tools: [], durableRuns: { store, keys: [{ id: 'k2', key: Buffer.alloc(32, 9) }] } });
  const foreignKey = await otherKey.wait({ runId: parked.runId });
  assert.equal(foreignKey.code, 'record_refused');
  assert.match(foreignKey.error, /sealed under key "k1", which is not among the configured keys/);
  await otherKey.close();

  const stranger = gateway(`${id}-stranger`, store);
  const foreignScope = await stranger.session.wait({ runId: parked.runId });
  assert.equal(foreignScope.code, 'record_refused');
  assert.equal(store.records.get(parked.runId), original, 'a refused attempt destroys nothing');
  await stranger.session.close();

  const owner = gateway(id, store);
  assert.equal(await owner.session.resolveCall({ runId: parked.runId, callId: parked.pendingToolCalls[0].id, value: 1 }), 'resolved');
  assert.equal((await owner.session.wait({ runId: parked.runId })).status, 'completed');
  await owner.session.close();
});

test('a replay whose program calls otherwise fails with replay_divergence and dispatches nothing', async () => {
  const store = memoryStore();
  const id = `durable-diverge-${++sessions}`;
  const first = gateway(id, store);
  const parked = await first.session.exec({ code: APPROVAL });
  await first.session.close();
  // The catalog changed: `echo` is gone, so the replay's first call is not the recorded one.
  const second = gateway(id, store, { tools: ['ask'] });
  const failed = await second.session.wait({ runId: parked.runId });
  assert.equal(failed.status, 'failed', JSON.stringify(failed));
  assert.equal(failed.code, 'replay_divergence');
  assert.match(failed.error, /^code mode run cannot be resumed from its record: the run's call #1 was to echo, which the catalog no longer has\./);
  assert.deepEqual(second.calls, []);
  await second.session.close();
});

/** A session whose tools are described as `descriptions` says: a deploy that rewrites them changes what a live search finds. */
function describedGateway(sessionId, store, descriptions, isolation) {
  const calls = [];
  const tools = Object.entries(descriptions).map(([name, description]) => ({
    name,
    description,
    execute: (input, ctx) => (calls.push([name, input]), name === 'ask' ? ctx.suspend({}) : { echo: input }),
  }));
  return { session: new CodeModeSession({ sessionId, isolation, tools, durableRuns: { store, keys } }), calls };
}

for (const isolation of ['thread', 'process']) {
  test(`${isolation}: a replay gets the search results and descriptions the run saw, after a deploy changed them`, async () => {
    const store = memoryStore();
    const id = `durable-reads-${isolation}-${++sessions}`;
    const before = { forecast: 'Weather forecast for a city.', ask: 'Asks a person.' };
    const first = describedGateway(id, store, before, isolation);
    const parked = await first.session.exec({
      code: `
        const [found] = await catalog.search("weather", { limit: 1 });
        const { description } = await found.describe();
        const out = await found({ city: "Oslo" });
        return { tool: found.toolName, description, city: out.echo.city, approved: await ask({}) };
      `,
    });
    assert.equal(parked.status, 'waiting', JSON.stringify(parked));
    await first.session.close();

    const afterDeploy = { forecast: 'Temperatures.', umbrella: 'Weather umbrella advice.', ask: 'Asks a person.' };
    const second = describedGateway(id, store, afterDeploy, isolation);
    const callId = parked.pendingToolCalls[0].id;
    assert.equal(await second.session.resolveCall({ runId: parked.runId, callId, value: true }), 'resolved');
    const done = await second.session.wait({ runId: parked.runId });
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.value, { tool: 'forecast', description: 'Weather forecast for a city.', city: 'Oslo', approved: true });
    assert.deepEqual(second.calls, [], 'the recorded call is not made again');
    const live = await second.session.exec({ code: 'return (await catalog.search("weather", { limit: 1 }))[0].toolName' });
    assert.equal(live.value, 'umbrella', 'a new run reads the changed catalog');
    await second.session.close();
  });
}

test('an unknown run answers as today; a session without the run in its store cannot resolve it', async () => {
  const store = memoryStore();
  const { session } = gateway(`durable-unknown-${++sessions}`, store);
  const unknown = await session.wait({ runId: 'cm_000000000000000000000000' });
  assert.equal(unknown.status, 'failed');
  assert.equal(unknown.code, 'invalid_input');
  assert.match(unknown.error, /unavailable or expired/);
  await assert.rejects(session.resolveCall({ runId: 'cm_000000000000000000000000', callId: 'x:1', value: 1 }), (error) => error.code === 'invalid_input' && /unavailable or expired/.test(error.message));
  await session.close();
});

test('a second wait refused while the first runs leaves the record; cancelRun deletes it', async () => {
  const store = memoryStore();
  const { session } = gateway(`durable-cancel-${++sessions}`, store);
  const parked = await session.exec({ code: APPROVAL });
  const [first, second] = await Promise.all([session.wait({ runId: parked.runId }), session.wait({ runId: parked.runId })]);
  for (const result of [first, second]) {
    if (result.status === 'failed') assert.match(result.error, /already being resumed/);
    else assert.equal(result.status, 'waiting', JSON.stringify(result));
  }
  assert.ok(store.records.has(parked.runId), 'the record is still there');
  assert.equal(session.cancelRun(parked.runId), true);
  while (store.records.has(parked.runId)) await new Promise(setImmediate);
  const gone = await session.wait({ runId: parked.runId });
  assert.match(gone.error, /unavailable or expired/);
  await session.close();
});
