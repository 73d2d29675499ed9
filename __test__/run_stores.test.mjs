// One conformance suite for every run store (docs/durable-runs.md, the RunStore contract):
// the embedded SQLite store, Redis through node-redis 5 and 4 and through ioredis, PostgreSQL
// through pg, and a tiny in-memory store written here as a user would bring their own.
// The servers are real (__test__/_servers.mjs); no test depends on how fast anything is.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { createClient as createClient4 } from 'redis4';
import Redis from 'ioredis';
import pg from 'pg';
import { redisRunStore } from 'codemode-native/stores/redis';
import { postgresRunStore } from 'codemode-native/stores/postgres';
import { native, eventually, hangGuard } from './_helpers.mjs';
import { requireServers, startPostgres, startRedis } from './_servers.mjs';

const MAX = 10 * 1024 * 1024;
requireServers();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemode-stores-'));
const cleanups = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The "bring your own" store: the whole contract in a few lines over a Map. */
function memoryRunStore() {
  const records = new Map();
  const live = (runId) => {
    const r = records.get(runId);
    if (r && r.deadline <= Date.now()) records.delete(runId);
    return records.get(runId) ?? null;
  };
  return {
    async get(runId) {
      const r = live(runId);
      return r && { version: r.version, bytes: Buffer.from(r.bytes) };
    },
    async put(runId, bytes, { expectVersion = null, ttlSeconds = 86_400 } = {}) {
      if (bytes.byteLength > MAX) throw Object.assign(new Error('run record too large'), { code: 'snapshot_limit_exceeded' });
      const current = live(runId)?.version ?? null;
      if (current !== expectVersion) return { ok: false, current };
      const version = (expectVersion ?? 0) + 1;
      records.set(runId, { version, bytes: Buffer.from(bytes), deadline: Date.now() + ttlSeconds * 1000 });
      return { ok: true, version };
    },
    async delete(runId, expectVersion = null) {
      const r = live(runId);
      if (!r || (expectVersion !== null && r.version !== expectVersion)) return false;
      return records.delete(runId);
    },
  };
}

let redis;
let postgres;
const redisClients = [];
async function nodeRedis(url = redis.url, create = createClient) {
  const client = create({ url });
  // A client's connection errors are events; the store reports them per operation.
  client.on('error', () => {});
  await client.connect();
  redisClients.push(client);
  return client;
}
function ioredis(url = redis.url) {
  const client = new Redis(url);
  client.on('error', () => {});
  redisClients.push(client);
  return client;
}
const pools = [];
function pool(config = postgres.config) {
  const p = new pg.Pool(config);
  p.on('error', () => {});
  pools.push(p);
  return p;
}

const STORES = {
  sqlite: { make: () => native.sqliteRunStore(path.join(dir, 'runs.db')) },
  'redis (node-redis 5)': { make: async () => redisRunStore(await nodeRedis()) },
  'redis (node-redis 4)': { make: async () => redisRunStore(await nodeRedis(redis.url, createClient4)) },
  'redis (ioredis)': { make: async () => redisRunStore(ioredis()) },
  postgres: { make: async () => postgresRunStore(pool()) },
  'in-memory (bring your own)': { shared: memoryRunStore(), make() { return this.shared; } },
};

before(async () => {
  [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
  cleanups.push(() => redis.stop(), () => postgres.stop());
  cleanups.push(async () => {
    for (const c of redisClients) await Promise.resolve(typeof c.destroy === 'function' ? c.destroy() : c.disconnect()).catch(() => {}); // not QUIT: a killed server never answers it
    for (const p of pools) await p.end().catch(() => {});
  });
});

let next = 0;
const fresh = () => `run-${process.pid}-${next++}`;
const bytesOf = (text) => Buffer.from(text);

async function rejectsWith(promise, code, message) {
  const error = await hangGuard(promise.then(() => null, (e) => e), `a ${code} rejection`);
  assert.ok(error, `expected a ${code} rejection`);
  assert.equal(error.code, code, error.stack);
  if (message) assert.match(error.message, message);
}

for (const [name, spec] of Object.entries(STORES)) {
  describe(`run store: ${name}`, () => {
    let store;
    before(async () => {
      store = await spec.make();
    });

    test('a create-only put writes version 1 once, and get reads it back', async () => {
      const id = fresh();
      assert.equal(await store.get(id), null);
      assert.deepEqual(await store.put(id, bytesOf('a'), { expectVersion: null, ttlSeconds: 60 }), { ok: true, version: 1 });
      assert.deepEqual(await store.put(id, bytesOf('b'), { expectVersion: null, ttlSeconds: 60 }), { ok: false, current: 1 });
      const got = await store.get(id);
      assert.equal(got.version, 1);
      assert.equal(Buffer.from(got.bytes).toString(), 'a');
    });

    test('a compare-and-set put wins only from the live version, writing one past it', async () => {
      const id = fresh();
      await store.put(id, bytesOf('a'), { expectVersion: null, ttlSeconds: 60 });
      assert.deepEqual(await store.put(id, bytesOf('b'), { expectVersion: 1, ttlSeconds: 60 }), { ok: true, version: 2 });
      assert.deepEqual(await store.put(id, bytesOf('c'), { expectVersion: 1, ttlSeconds: 60 }), { ok: false, current: 2 });
      assert.deepEqual(await store.put(fresh(), bytesOf('c'), { expectVersion: 3, ttlSeconds: 60 }), { ok: false, current: null });
      assert.equal(Buffer.from((await store.get(id)).bytes).toString(), 'b');
    });

    test('of two writers racing from one version, exactly one wins', async () => {
      const other = name === 'in-memory (bring your own)' ? store : await spec.make();
      for (let round = 0; round < 10; round++) {
        const id = fresh();
        const created = await Promise.all([store, other].map((s, i) => s.put(id, bytesOf(`c${i}`), { expectVersion: null, ttlSeconds: 60 })));
        assert.equal(created.filter((r) => r.ok).length, 1, JSON.stringify(created));
        const updated = await Promise.all([store, other].map((s, i) => s.put(id, bytesOf(`u${i}`), { expectVersion: 1, ttlSeconds: 60 })));
        assert.equal(updated.filter((r) => r.ok).length, 1, JSON.stringify(updated));
        assert.deepEqual(updated.find((r) => !r.ok), { ok: false, current: 2 });
      }
    });

    test('a record expires ttlSeconds after its last put and reads as absent', async () => {
      const id = fresh();
      await store.put(id, bytesOf('a'), { expectVersion: null, ttlSeconds: 1 });
      await eventually(async () => (await store.get(id)) === null, 'the record expiring');
      assert.equal(await store.delete(id), false);
      assert.deepEqual(await store.put(id, bytesOf('b'), { expectVersion: 1, ttlSeconds: 60 }), { ok: false, current: null });
      assert.deepEqual(await store.put(id, bytesOf('b'), { expectVersion: null, ttlSeconds: 60 }), { ok: true, version: 1 });
    });

    test('delete removes the live record, only at the expected version when one is given', async () => {
      const id = fresh();
      await store.put(id, bytesOf('a'), { expectVersion: null, ttlSeconds: 60 });
      assert.equal(await store.delete(id, 2), false);
      assert.notEqual(await store.get(id), null);
      assert.equal(await store.delete(id, 1), true);
      assert.equal(await store.get(id), null);
      assert.equal(await store.delete(id), false);
    });

    test('bytes come back exactly: every byte value, from any Uint8Array view', async () => {
      const id = fresh();
      const all = new Uint8Array(600);
      for (let i = 0; i < all.length; i++) all[i] = (i * 7) % 256;
      const view = all.subarray(44, 556);
      await store.put(id, view, { expectVersion: null, ttlSeconds: 60 });
      assert.deepEqual(new Uint8Array((await store.get(id)).bytes), new Uint8Array(view));
    });

    test('a record at the cap is kept whole and one byte over it is refused, writing nothing', async () => {
      const id = fresh();
      const big = Buffer.alloc(MAX);
      for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
      big[MAX - 1] = 0xff;
      assert.deepEqual(await store.put(id, big, { expectVersion: null, ttlSeconds: 60 }), { ok: true, version: 1 });
      assert.ok(Buffer.from((await store.get(id)).bytes).equals(big));
      await rejectsWith(Promise.resolve().then(() => store.put(id, Buffer.alloc(MAX + 1), { expectVersion: 1, ttlSeconds: 60 })), 'snapshot_limit_exceeded');
      assert.equal((await store.get(id)).version, 1);
    });
  });
}

// ---------- what only the shipped stores promise ----------

const SHIPPED = Object.entries(STORES).filter(([name]) => !name.startsWith('in-memory'));

for (const [name, spec] of SHIPPED) {
  describe(`run store arguments: ${name}`, () => {
    test('misuse is refused with invalid_input and the exact message', async () => {
      const store = await spec.make();
      await rejectsWith(Promise.resolve().then(() => store.get('')), 'invalid_input', /^runId must be a string of 1 to 256 bytes\.$/);
      await rejectsWith(Promise.resolve().then(() => store.put('r', 'text')), 'invalid_input', /^bytes must be a Uint8Array \(or Buffer\)\.$/);
      await rejectsWith(Promise.resolve().then(() => store.put('r', bytesOf('a'), { ttl: 5 })), 'invalid_input', /^ttl is not an option of put options; the options are expectVersion, ttlSeconds\.$/);
      await rejectsWith(Promise.resolve().then(() => store.put('r', bytesOf('a'), { expectVersion: 0 })), 'invalid_input', /^expectVersion must be an integer from 1 to 9007199254740991\.$/);
      await rejectsWith(Promise.resolve().then(() => store.put('r', bytesOf('a'), { ttlSeconds: 0 })), 'invalid_input', /^ttlSeconds must be an integer from 1 to 31536000\.$/);
    });

    test('a put with no options is create-only for a day', async () => {
      const store = await spec.make();
      const id = fresh();
      assert.deepEqual(await store.put(id, bytesOf('a')), { ok: true, version: 1 });
      assert.deepEqual(await store.put(id, bytesOf('b')), { ok: false, current: 1 });
    });
  });
}

describe('unreachable stores fail with store_unavailable, never a hang or a crash', () => {
  test('sqlite: a closed store and a file that cannot be opened', async () => {
    const store = native.sqliteRunStore(path.join(dir, 'closed.db'));
    await store.put('r', bytesOf('a'));
    await store.close();
    await store.close();
    await rejectsWith(store.get('r'), 'store_unavailable', /closed\.$/);
    const nowhere = native.sqliteRunStore(path.join(dir, 'no-such-dir', 'runs.db'));
    await rejectsWith(nowhere.put('r', bytesOf('a')), 'store_unavailable', /failed to open/);
  });

  test('sqlite: a file that is not a database', async () => {
    const file = path.join(dir, 'garbage.db');
    fs.writeFileSync(file, Buffer.alloc(8192, 7));
    await rejectsWith(native.sqliteRunStore(file).get('r'), 'store_unavailable');
  });

  test('sqlite: bad constructor arguments throw invalid_input', () => {
    assert.throws(() => native.sqliteRunStore(''), { code: 'invalid_input', message: 'path must be a non-empty string.' });
    assert.throws(() => native.sqliteRunStore('x.db', { maxRecordBytes: 1 }), { code: 'invalid_input', message: 'maxRecordBytes must be an integer from 1024 to 268435456.' });
    assert.throws(() => native.sqliteRunStore('x.db', { busy: 1 }), { code: 'invalid_input' });
  });

  test('redis: a killed server, through node-redis and ioredis', async () => {
    const server = await startRedis();
    cleanups.push(() => server.stop());
    const stores = [redisRunStore(await nodeRedis(server.url), { timeoutMs: 1000 }), redisRunStore(ioredis(server.url), { timeoutMs: 1000 })];
    for (const store of stores) assert.equal((await store.put(fresh(), bytesOf('a'))).ok, true);
    await server.kill();
    for (const store of stores) await rejectsWith(store.put(fresh(), bytesOf('a')), 'store_unavailable', /^run store redis /);
  });

  test('postgres: a killed server', async () => {
    const server = await startPostgres();
    cleanups.push(() => server.stop());
    const store = postgresRunStore(pool({ ...server.config, connectionTimeoutMillis: 1000 }), { timeoutMs: 1000 });
    assert.equal((await store.put(fresh(), bytesOf('a'))).ok, true);
    await server.kill();
    await rejectsWith(store.get('r'), 'store_unavailable', /^run store postgres /);
  });

  test('redis and postgres refuse clients they cannot use', () => {
    assert.throws(() => redisRunStore({}), { code: 'invalid_input', message: 'redisRunStore takes a connected node-redis (4 or 5) or ioredis (5) client.' });
    assert.throws(() => postgresRunStore(null), { code: 'invalid_input', message: 'postgresRunStore takes a pg Pool.' });
    assert.throws(() => postgresRunStore({ query() {} }, { table: 'runs; DROP TABLE x' }), { code: 'invalid_input' });
  });
});
