// The embedded SQLite run store shared by several processes: creates and compare-and-set
// increments race from separate Node processes on one file, and no write is lost or doubled.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { native } from './_helpers.mjs';
import { startChild } from './_processes.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemode-sqlite-procs-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const writer = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'sqlite_writer.mjs');

test('processes racing on one file: each run is created once, and every increment wins once', async () => {
  const file = path.join(dir, 'runs.db');
  const store = native.sqliteRunStore(file);
  assert.deepEqual(await store.put('counter', Buffer.from('start')), { ok: true, version: 1 });
  const ids = 40;
  const attempts = 150;
  const children = ['a', 'b', 'c'].map((name) => startChild(writer, [file, name, String(ids), String(attempts)]));
  const reports = await Promise.all(children.map((c) => c.firstLine));
  const exits = await Promise.all(children.map((c) => c.exit));
  for (const exit of exits) assert.equal(exit.code, 0, exit.err);
  const created = reports.flatMap((r) => r.created).sort((x, y) => x - y);
  assert.deepEqual(created, Array.from({ length: ids }, (_, i) => i));
  const increments = reports.reduce((sum, r) => sum + r.increments, 0);
  assert.equal((await store.get('counter')).version, 1 + increments);
  await store.close();
});

test('operations run off the Node thread: timers fire while another process holds the lock', async () => {
  const file = path.join(dir, 'locked.db');
  const store = native.sqliteRunStore(file, { busyTimeoutMs: 600_000 });
  await store.put('r', Buffer.from('a'));
  // A second process takes the write lock and keeps it until told to stop.
  const holder = spawn('python3', [path.join(path.dirname(writer), 'sqlite_lock_holder.py'), file], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => holder.on('exit', resolve));
  const [line] = await createInterface({ input: holder.stdout })[Symbol.asyncIterator]().next().then((r) => [r.value]);
  assert.deepEqual(JSON.parse(line), { locked: true });
  let put = null;
  const pending = store.put('r', Buffer.from('b'), { expectVersion: 1 }).then((r) => (put = r));
  // The event loop keeps turning while the put waits on the lock.
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setTimeout(resolve, 1));
  assert.equal(put, null);
  holder.stdin.end('release\n');
  assert.deepEqual(await pending, { ok: true, version: 2 });
  assert.equal(await exited, 0);
  await store.close();
});
