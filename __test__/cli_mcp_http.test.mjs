// `codemode-native mcp --http`: the same core flows over Streamable HTTP, one session per
// MCP session id, a bearer token from an environment variable, loopback Host checks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir, standardConfig, writeConfig, startHttp, connectHttp, connectStdio, call, value, GUARD_MS } from './_cli.mjs';

const TOKEN = 'test-token-7f3a';
const auth = { Authorization: `Bearer ${TOKEN}` };
let temp;
let server;
const clients = [];

async function client() {
  const connected = await connectHttp(server.url, auth);
  clients.push(connected);
  return connected;
}

before(async () => {
  temp = tempDir('cli-http-');
  server = await startHttp(writeConfig(temp.dir, standardConfig(temp.dir)), ['--token-env', 'CODEMODE_TEST_TOKEN'], { CODEMODE_TEST_TOKEN: TOKEN });
});

after(async () => {
  await Promise.all(clients.map(({ client }) => client.close().catch(() => {})));
  server?.child.kill('SIGTERM');
  const exit = await server?.exited;
  temp?.remove();
  assert.deepEqual(exit, { code: 0, signal: null }, server?.stderr.text);
});

test('the HTTP endpoint is on loopback and serves exactly exec and wait', async () => {
  assert.equal(server.url.hostname, '127.0.0.1');
  assert.equal(server.url.pathname, '/mcp');
  const { client: c } = await client();
  const { tools } = await c.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['exec', 'wait']);
  assert.match(tools[0].description, /MCP\.fs/);
});

test('a request without the bearer token is refused with 401', async () => {
  const response = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
  });
  assert.equal(response.status, 401);
  assert.equal(response.headers.get('www-authenticate'), 'Bearer');
  await assert.rejects(connectHttp(server.url, { Authorization: 'Bearer wrong' }));
});

test('a request whose Host is not loopback is refused with 403', async () => {
  const { request } = await import('node:http');
  const status = await new Promise((resolve, reject) => {
    const req = request({ host: server.url.hostname, port: server.url.port, path: '/mcp', method: 'POST', headers: { ...auth, host: 'evil.example:80', 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end('{}');
  });
  assert.equal(status, 403);
});

test('a body that is not JSON or is too large is refused with 400', async () => {
  const post = (body) => fetch(server.url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
  const broken = await post('{ "jsonrpc": ');
  assert.equal(broken.status, 400);
  assert.match((await broken.json()).error.message, /^Parse error/);
  const huge = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(5 * 1024 * 1024) } }));
  assert.equal(huge.status, 400);
  assert.match((await huge.json()).error.message, /exceeds 4194304 bytes/);
});

test('programs write files and build a memory graph over HTTP', async () => {
  const { client: c } = await client();
  const file = path.join(temp.dir, 'http.txt');
  const got = await value(c, `
    await MCP.fs.writeFile({ path: ${JSON.stringify(file)}, content: "over http" });
    await MCP.memory.createEntities({ entities: [{ name: "Grace", entityType: "person", observations: [] }] });
    const g = (await MCP.memory.readGraph({})).structuredContent;
    return { text: (await MCP.fs.readTextFile({ path: ${JSON.stringify(file)} })).content[0].text, names: g.entities.map((e) => e.name) };
  `);
  assert.deepEqual(got, { text: 'over http', names: ['Grace'] });
  assert.equal(readFileSync(file, 'utf8'), 'over http');
});

test('each MCP session has its own code-mode session: another one cannot wait on its run', async () => {
  const { client: a } = await client();
  const { client: b } = await client();
  const parked = await call(a, 'exec', { code: 'await yield_control(); return "resumed"' });
  assert.equal(parked.status, 'waiting');
  const stranger = await call(b, 'wait', { runId: parked.runId });
  assert.equal(stranger.status, 'failed');
  assert.equal(stranger.code, 'invalid_input');
  let mine = await call(a, 'wait', { runId: parked.runId });
  while (mine.status === 'waiting') mine = await call(a, 'wait', { runId: mine.runId });
  assert.deepEqual(mine, { status: 'completed', value: 'resumed' });
});

test('cancelling a call over HTTP cancels the upstream call', async () => {
  const { client: c } = await client();
  const controller = new AbortController();
  const pending = c.callTool({ name: 'exec', arguments: { code: 'return await MCP.up.block({})' } }, undefined, {
    signal: controller.signal,
    timeout: GUARD_MS,
    onprogress: (progress) => {
      if (/MCP\.up\.block started/.test(progress.message)) controller.abort('the test cancels');
    },
  });
  await assert.rejects(pending);
  await server.stderr.waitFor(/\[up\] block: cancelled/, 'the upstream call cancelled');
  assert.equal(await value(c, 'return "still here"'), 'still here');
});

test('a session the client ends is closed, and its id is no longer served', async () => {
  const { client: c, transport } = await client();
  assert.equal(await value(c, 'return 1'), 1);
  const id = transport.sessionId;
  await transport.terminateSession();
  const response = await fetch(server.url, {
    method: 'POST',
    headers: { ...auth, 'mcp-session-id': id, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
  });
  assert.equal(response.status, 404);
});

test('a remote upstream is reached by url with its headers (here: this command, behind a second one)', async () => {
  const file = writeConfig(temp.dir, { mcpServers: { inner: { url: server.url.href, headers: auth } } }, 'chained.json');
  const outer = await connectStdio(file);
  try {
    const text = await value(outer.client, 'return (await MCP.inner.exec({ code: "return 6 * 7" })).content[0].text');
    assert.deepEqual(JSON.parse(text), { status: 'completed', value: 42 });
  } finally {
    await outer.client.close();
  }
});

test('nothing is written to stdout', () => {
  assert.equal(server.stdout.text, '');
});
