// Real database servers for the run-store tests: `redis-server` and a PostgreSQL server,
// each in its own temp dir on a free loopback port, polled until they answer and stopped
// at the end. Not a test file itself (node --test only picks up *.test.mjs).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { eventually } from './_helpers.mjs';

/** The first `name` on PATH or under /usr/lib/postgresql/<version>/bin (newest first). */
export function findBinary(name) {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const pgRoot = '/usr/lib/postgresql';
  if (fs.existsSync(pgRoot)) {
    const versions = fs.readdirSync(pgRoot).sort((a, b) => Number(b) - Number(a));
    dirs.push(...versions.map((v) => path.join(pgRoot, v, 'bin')));
  }
  for (const dir of dirs) {
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {}
  }
  return null;
}

/** Throws, naming what is missing, unless both servers can start here: the suites that need
 * them fail rather than skip (.ci/run installs them). */
export function requireServers() {
  const missing = ['redis-server', 'initdb', 'postgres'].filter((b) => findBinary(b) === null);
  if (missing.length > 0) throw new Error(`not installed: ${missing.join(', ')} (.ci/run installs them with apt-get)`);
}

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A started child: `stop()` ends it (SIGTERM, then waits), `kill()` SIGKILLs it. */
function supervise(child, dir, name) {
  let err = '';
  child.stderr?.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const end = async (signal) => {
    if (child.exitCode === null && child.signalCode === null) {
      // A server started in a group of its own (PostgreSQL: a backend per connection) is
      // killed whole: a backend that outlived its postmaster could still answer a query.
      if (signal === 'SIGKILL' && child.spawnargs.includes('-D')) {
        try {
          process.kill(-child.pid, signal);
        } catch {
          child.kill(signal);
        }
      } else {
        child.kill(signal);
      }
    }
    await exited;
  };
  return {
    log: () => err,
    kill: () => end('SIGKILL'),
    async stop() {
      await end('SIGINT');
      fs.rmSync(dir, { recursive: true, force: true });
    },
    assertAlive() {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${err}`);
    },
  };
}

/** A redis-server on a free loopback port; `{ url, port, stop, kill }`. */
export async function startRedis() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemode-redis-'));
  const port = await freePort();
  const child = spawn(findBinary('redis-server'), ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const server = supervise(child, dir, 'redis-server');
  await eventually(async () => {
    server.assertAlive();
    return ping(port);
  }, 'redis-server answering PING');
  return { ...server, port, url: `redis://127.0.0.1:${port}` };
}

function ping(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => resolve(false));
    socket.on('data', (d) => {
      resolve(d.toString().startsWith('+PONG'));
      socket.destroy();
    });
    socket.on('connect', () => socket.write('PING\r\n'));
  });
}

/** The uid/gid PostgreSQL runs as: this user, or `nobody` when this is root (initdb refuses root). */
function unprivileged() {
  if (process.getuid?.() !== 0) return {};
  const uid = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** A PostgreSQL server in a fresh cluster on a free loopback port; `{ config, stop, kill }`. */
export async function startPostgres() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemode-pg-'));
  const data = path.join(dir, 'data');
  const user = unprivileged();
  if (user.uid !== undefined) fs.chownSync(dir, user.uid, user.gid);
  execFileSync(findBinary('initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'], { ...user, stdio: 'ignore' });
  const port = await freePort();
  const child = spawn(findBinary('postgres'), ['-D', data, '-k', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'], { ...user, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const server = supervise(child, dir, 'postgres');
  const config = { host: '127.0.0.1', port, user: 'postgres', database: 'postgres' };
  await eventually(async () => {
    server.assertAlive();
    const client = new pg.Client(config);
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  }, 'postgres accepting connections');
  return { ...server, port, config };
}
