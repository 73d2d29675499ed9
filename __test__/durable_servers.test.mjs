// Durable runs on the server stores (real redis-server and PostgreSQL, __test__/_servers.mjs):
// a run parked by one session is resolved through its record and resumed by another that
// holds nothing but the store and the key, through node-redis, ioredis and pg.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from 'redis';
import Redis from 'ioredis';
import pg from 'pg';
import { redisRunStore } from 'codemode-native/stores/redis';
import { postgresRunStore } from 'codemode-native/stores/postgres';
import { CodeModeSession } from './_helpers.mjs';
import { requireServers, startPostgres, startRedis } from './_servers.mjs';

requireServers();
const keys = [{ id: 'k1', key: Buffer.alloc(32, 3) }];
let redis;
let postgres;
const closers = [];
before(async () => {
  [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
});
after(async () => {
  for (const close of closers.reverse()) await Promise.resolve().then(close).catch(() => {});
  await Promise.all([redis?.stop(), postgres?.stop()]);
});

const STORES = {
  'redis (node-redis)': async () => {
    const client = createClient({ url: redis.url });
    client.on('error', () => {});
    await client.connect();
    closers.push(() => client.destroy());
    return redisRunStore(client);
  },
  'redis (ioredis)': async () => {
    const client = new Redis(redis.url);
    client.on('error', () => {});
    closers.push(async () => client.disconnect());
    return redisRunStore(client);
  },
  postgres: async () => {
    const pool = new pg.Pool(postgres.config);
    pool.on('error', () => {});
    closers.push(() => pool.end());
    return postgresRunStore(pool);
  },
};

function gateway(sessionId, store) {
  const calls = [];
  const session = new CodeModeSession({
    sessionId,
    tools: [
      { name: 'echo', description: 'Echoes.', execute: (input) => (calls.push(input), { echo: input }) },
      { name: 'ask', description: 'Asks a person.', execute: (input, ctx) => ctx.suspend({ question: input }) },
    ],
    durableRuns: { store, keys },
  });
  return { session, calls };
}

let n = 0;
for (const [name, make] of Object.entries(STORES)) {
  test(`${name}: a parked run is resolved through its record and resumed by another session`, async () => {
    const store = await make();
    const id = `durable-server-${++n}`;
    const first = gateway(id, store);
    const parked = await first.session.exec({ code: 'const a = await echo({ n: 1 }); const ok = await ask({ n: a.echo.n }); return [a.echo.n, ok, (await echo({ ok })).echo.ok];' });
    assert.equal(parked.status, 'waiting', JSON.stringify(parked));
    await first.session.close();
    const second = gateway(id, store);
    assert.equal(await second.session.resolveCall({ runId: parked.runId, callId: parked.pendingToolCalls[0].id, value: 'yes' }), 'resolved');
    const done = await second.session.wait({ runId: parked.runId });
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.value, [1, 'yes', 'yes']);
    assert.deepEqual(second.calls, [{ ok: 'yes' }], 'the call before the park did not run again');
    assert.equal(await store.get(parked.runId), null);
    await second.session.close();
  });
}
