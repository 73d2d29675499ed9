// `codemode-native mcp` while its upstreams start: a line when it starts them, one per
// server that fails, and a ready line with the counts once each has connected or failed
// once; the config file as a positional path or from CODEMODE_NATIVE_MCP_CONFIG.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { FIXTURE, tempDir, writeConfig, connectCommand, connectStdio, startHttp, value } from './_cli.mjs';

const temp = tempDir('cli-startup-');
after(() => temp.remove());

const up = { command: process.execPath, args: [FIXTURE] };
const oneServer = writeConfig(temp.dir, { mcpServers: { up } }, 'one.json');
const withBroken = writeConfig(temp.dir, { mcpServers: { up, broken: { command: `${temp.dir}/no-such-server` } } }, 'broken.json');

async function closing(connected, fn) {
  try {
    return await fn(connected);
  } finally {
    await connected.client.close();
  }
}

test('the command names the servers it starts, then says ready with their tool count on stdio', async () => {
  await closing(await connectStdio(oneServer), async ({ stderr }) => {
    await stderr.waitFor(/codemode-native: ready /, 'the ready line');
    assert.match(stderr.text, /^codemode-native: starting 1 MCP server: up$/m);
    // The fixture has pid, crash, block, addTool and addItems.
    assert.match(stderr.text, /^codemode-native: ready \(1 server, 5 tools\) on stdio$/m);
    assert.ok(stderr.text.indexOf('starting 1 MCP server') < stderr.text.indexOf('ready ('));
  });
});

test('a server that fails to start gets its own line, and the ready line counts and names it', async () => {
  await closing(await connectStdio(withBroken), async ({ stderr }) => {
    await stderr.waitFor(/codemode-native: ready /, 'the ready line');
    assert.match(stderr.text, /^codemode-native: broken: failed to start \(spawn \S*no-such-server ENOENT\); restarting in \d+ ms$/m);
    assert.match(stderr.text, /^codemode-native: ready \(1 of 2 servers, 5 tools; failed: broken\) on stdio$/m);
  });
});

test('over HTTP the ready line names the URL', async () => {
  const server = await startHttp(oneServer);
  try {
    await server.stderr.waitFor(/codemode-native: ready /, 'the ready line');
    assert.match(server.stderr.text, new RegExp(`^codemode-native: ready \\(1 server, 5 tools\\) on ${server.url.href.replace(/[.]/g, '\\.')}$`, 'm'));
  } finally {
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, { code: 0, signal: null });
  }
});

test('the config file may be given as a positional path', async () => {
  await closing(await connectCommand(['mcp', oneServer]), async ({ client }) => {
    assert.match(await value(client, 'return (await MCP.up.pid()).content[0].text'), /^\d+$/);
  });
});

test('the config file may be named by CODEMODE_NATIVE_MCP_CONFIG', async () => {
  await closing(await connectCommand(['mcp'], { CODEMODE_NATIVE_MCP_CONFIG: oneServer }), async ({ client }) => {
    assert.match(await value(client, 'return (await MCP.up.pid()).content[0].text'), /^\d+$/);
  });
});

test('a config file given on the command line wins over CODEMODE_NATIVE_MCP_CONFIG', async () => {
  await closing(await connectCommand(['mcp', oneServer], { CODEMODE_NATIVE_MCP_CONFIG: `${temp.dir}/nope.json` }), async ({ client }) => {
    assert.match(await value(client, 'return (await MCP.up.pid()).content[0].text'), /^\d+$/);
  });
});
