// `codemode-native mcp` for clients of both protocol eras, over stdio and Streamable HTTP:
// the TypeScript SDK 2.x client (pinned to 2026-07-28, negotiating with `auto`, and
// `legacy`), the Python MCP SDK 2.x client and MCP Inspector's CLI (modern and legacy).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { BIN, FIXTURE, GUARD_MS, binOf, tempDir, writeConfig, startHttp } from './_cli.mjs';
import { pythonMissing, pythonWithMcp } from './_python.mjs';

const MODERN = '2026-07-28';
const PY_CLIENT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'py_mcp_client.py');
let temp;
let configFile;
let http;
const clients = [];

before(async () => {
  temp = tempDir('cli-eras-');
  configFile = writeConfig(temp.dir, { mcpServers: { up: { command: process.execPath, args: [FIXTURE] } }, codeMode: { timeoutMs: 60_000 } });
  http = await startHttp(configFile);
});

after(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  http?.child.kill('SIGTERM');
  const exit = await http?.exited;
  temp?.remove();
  assert.deepEqual(exit, { code: 0, signal: null }, http?.stderr.text);
});

/** A TypeScript SDK 2.x client connected with `mode` ('legacy', 'auto' or `{ pin }`). */
async function tsClient(kind, mode) {
  const transport = kind === 'stdio'
    ? new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', configFile], stderr: 'ignore' })
    : new StreamableHTTPClientTransport(http.url);
  const client = new Client({ name: 'eras-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  clients.push(client);
  await client.connect(transport);
  return client;
}

/** exec that parks, then wait: the model results of both. */
async function parkAndResume(client) {
  const parked = (await client.callTool({ name: 'exec', arguments: { code: 'await yield_control("era"); return 6 * 7' } }, { timeout: GUARD_MS })).structuredContent;
  const done = (await client.callTool({ name: 'wait', arguments: { runId: parked.runId } }, { timeout: GUARD_MS })).structuredContent;
  return [parked.status, done];
}

for (const kind of ['stdio', 'http']) {
  test(`a TypeScript SDK 2.x client pinned to ${MODERN} lists exec and wait and runs code over ${kind}`, async () => {
    const client = await tsClient(kind, { pin: MODERN });
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['exec', 'wait']);
    assert.deepEqual(await parkAndResume(client), ['waiting', { status: 'completed', value: 42 }]);
  });

  test(`a TypeScript SDK 2.x client in auto mode negotiates ${MODERN} over ${kind}`, async () => {
    const client = await tsClient(kind, 'auto');
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    assert.equal((await client.listTools()).tools.length, 2);
  });

  test(`a TypeScript SDK 2.x client in legacy mode still gets 2025-11-25 over ${kind}`, async () => {
    const client = await tsClient(kind, 'legacy');
    assert.equal(client.getProtocolEra(), 'legacy');
    assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
    assert.deepEqual(await parkAndResume(client), ['waiting', { status: 'completed', value: 42 }]);
  });
}

// A modern request as a client would POST it.
const modernMeta = (version = MODERN) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
});
const post = (body, accept = 'application/json, text/event-stream', version = MODERN) =>
  fetch(http.url, { method: 'POST', headers: { 'content-type': 'application/json', accept, 'mcp-protocol-version': version }, body: JSON.stringify(body) });

test('server/discover offers the modern revision and the capabilities of that era', async () => {
  const response = await post({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta() } }, 'application/json');
  assert.equal(response.status, 200);
  const { result } = await response.json();
  assert.deepEqual(result.supportedVersions, [MODERN]);
  assert.equal(result.resultType, 'complete');
  assert.deepEqual(result._meta['io.modelcontextprotocol/serverInfo'].name, 'codemode-native');
  // logging/setLevel is not part of the era, so neither is the logging capability.
  assert.deepEqual(Object.keys(result.capabilities).sort(), ['completions', 'prompts', 'resources', 'tools']);
});

test('a modern request naming a revision the command does not speak is refused with the ones it does', async () => {
  const response = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: modernMeta('2099-01-01') } }, 'application/json', '2099-01-01');
  const { error } = await response.json();
  assert.equal(error.code, -32602);
  assert.match(error.message, /^Unsupported protocol version "2099-01-01": this server speaks .*2025-11-25.*2026-07-28$/);
  assert.ok(error.data.supported.includes(MODERN));
});

test('subscriptions/listen is acknowledged with the notifications the command honours', async () => {
  const controller = new AbortController();
  const body = { jsonrpc: '2.0', id: 3, method: 'subscriptions/listen', params: { _meta: modernMeta(), notifications: { toolsListChanged: true, resourceSubscriptions: ['file:///x'] } } };
  const response = await fetch(http.url, {
    method: 'POST',
    signal: controller.signal,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'mcp-protocol-version': MODERN },
    body: JSON.stringify(body),
  });
  assert.equal(response.headers.get('content-type'), 'text/event-stream');
  const reader = response.body.getReader();
  let text = '';
  while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
  controller.abort();
  const first = JSON.parse(/^data: (.*)$/m.exec(text)[1]);
  assert.deepEqual(first, {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': 3 } },
  });
});

const missing = pythonMissing();
for (const kind of ['stdio', 'http']) {
  for (const mode of ['legacy', MODERN]) {
    test(`the Python MCP SDK 2.x client (${mode}) drives the command over ${kind}`, { skip: missing }, async () => {
      const python = pythonWithMcp();
      const target = kind === 'stdio' ? ['stdio', process.execPath, BIN, configFile] : ['http', http.url.href];
      const { stdout } = await promisify(execFile)(python, [PY_CLIENT, mode, ...target], { timeout: GUARD_MS });
      const seen = JSON.parse(stdout.trim().split('\n').pop());
      assert.deepEqual(seen, {
        protocolVersion: mode === 'legacy' ? '2025-11-25' : MODERN,
        tools: ['exec', 'wait'],
        parked: 'waiting',
        value: 42,
        refused: {
          status: 'failed',
          code: 'invalid_input',
          error: 'exec: unknown argument "source"; did you mean "code"? exec takes "code", "language", "restartSafe".',
        },
      });
    });
  }
}

// Inspector's CLI: one method per run, the result as JSON on stdout. The target goes after
// `--`, since --tool-arg takes every following argument.
for (const kind of ['stdio', 'http']) {
  for (const era of ['legacy', 'modern']) {
    test(`MCP Inspector's CLI (--protocol-era ${era}) calls exec over ${kind}`, async () => {
      const target = kind === 'stdio' ? [process.execPath, BIN, 'mcp', configFile] : [http.url.href];
      const args = [binOf('@modelcontextprotocol/inspector'), '--cli', '--protocol-era', era, '--method', 'tools/call', '--tool-name', 'exec', '--tool-arg', 'code=return 6 * 7', '--', ...target];
      // Inspector keeps state under HOME: the suite's temp dir keeps it out of the user's.
      const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: GUARD_MS, env: { ...process.env, HOME: temp.dir, USERPROFILE: temp.dir } });
      const result = JSON.parse(stdout.slice(stdout.indexOf('{')));
      assert.deepEqual(result.structuredContent, { status: 'completed', value: 42 });
      assert.equal(result.isError, false);
    });
  }
}
