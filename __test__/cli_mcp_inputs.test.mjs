// `codemode-native mcp` with clients that send what the schemas do not allow: exec and
// wait refuse unknown keys (their schemas say additionalProperties: false), and every
// error a client or a guest sees says its "MCP error <code>: " once, or not at all.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod/v4';
import { FIXTURE, binOf, tempDir, writeConfig, connectStdio, call, value } from './_cli.mjs';

let temp;
let command;

before(async () => {
  temp = tempDir('cli-inputs-');
  command = await connectStdio(writeConfig(temp.dir, {
    mcpServers: {
      up: { command: process.execPath, args: [FIXTURE] },
      everything: { command: process.execPath, args: [binOf('@modelcontextprotocol/server-everything'), 'stdio'] },
      broken: { command: `${temp.dir}/no-such-server` },
    },
    codeMode: { timeoutMs: 60_000 },
  }));
});

after(async () => {
  await command?.client.close();
  temp?.remove();
});

const refusal = (error) => ({ status: 'failed', error, code: 'invalid_input' });

test('exec refuses an unknown key and names the key it stands for', async () => {
  assert.deepEqual(await call(command.client, 'exec', { source: 'return 1' }),
    refusal('exec: unknown argument "source"; did you mean "code"? exec takes "code", "language", "restartSafe".'));
});

test('exec refuses an unknown key next to a valid program without running it', async () => {
  assert.deepEqual(await call(command.client, 'exec', { code: 'return 1', colour: 'blue' }),
    refusal('exec: unknown argument "colour". exec takes "code", "language", "restartSafe".'));
});

test('exec refuses the undocumented command key and names code', async () => {
  assert.deepEqual(await call(command.client, 'exec', { command: 'return 1' }),
    refusal('exec: unknown argument "command"; did you mean "code"? exec takes "code", "language", "restartSafe".'));
});

test('exec without code names the missing argument as the schema does', async () => {
  assert.deepEqual(await call(command.client, 'exec', {}),
    refusal('exec: missing required argument "code". exec takes "code", "language", "restartSafe".'));
});

test('wait refuses an unknown key and names runId', async () => {
  assert.deepEqual(await call(command.client, 'wait', { run_id: 'cm_x' }),
    refusal('wait: unknown argument "run_id"; did you mean "runId"? wait takes "runId".'));
});

test('exec with only the declared keys still runs', async () => {
  assert.deepEqual(await call(command.client, 'exec', { code: 'return 6 * 7', language: 'javascript' }), { status: 'completed', value: 42 });
});

test('an unknown tool reaches the client with one MCP error prefix', async () => {
  const error = await command.client.callTool({ name: 'search', arguments: {} }).then(() => null, (e) => e);
  assert.equal(error?.code, -32602);
  assert.equal(error.message, 'MCP error -32602: Unknown tool "search": this server has exec and wait');
});

test('a near miss of a tool name gets a did-you-mean', async () => {
  const error = await command.client.callTool({ name: 'exce', arguments: {} }).then(() => null, (e) => e);
  assert.equal(error?.code, -32602);
  assert.equal(error.message, 'MCP error -32602: Unknown tool "exce"; did you mean "exec"? This server has exec and wait');
});

// Requests the SDK's own schemas refuse before any handler runs: sent as written (the
// client's request() does not check params), answered -32602 in a sentence, not Zod's JSON.
const refusedRequest = (method, params) =>
  command.client.request({ method, params }, z.object({}).passthrough()).then(() => null, (e) => e);

test('tools/call with arguments that are not an object is invalid params, said plainly', async () => {
  const error = await refusedRequest('tools/call', { name: 'exec', arguments: 'return 1' });
  assert.equal(error?.code, -32602);
  assert.equal(error.message, 'MCP error -32602: Invalid params for tools/call: params.arguments must be an object, not a string');
});

test('tools/call without a name says the name is required', async () => {
  const error = await refusedRequest('tools/call', { arguments: {} });
  assert.equal(error?.code, -32602);
  assert.equal(error.message, 'MCP error -32602: Invalid params for tools/call: params.name is required');
});

test('logging/setLevel with a misspelt level suggests the level it stands for', async () => {
  const error = await refusedRequest('logging/setLevel', { level: 'debgu' });
  assert.equal(error?.code, -32602);
  assert.equal(error.message, 'MCP error -32602: Invalid params for logging/setLevel: params.level is "debgu"; did you mean "debug"? It takes "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"');
});

test('a call on a server that never started says it is unavailable once', async () => {
  const message = await value(command.client, 'try { await MCP.broken.anything({}); return "no error"; } catch (e) { return e.message; }');
  assert.match(message, /^MCP server "broken" is unavailable: spawn \S*no-such-server ENOENT; it is being restarted$/);
});

test('an upstream protocol error reaches the guest with one MCP error prefix', async () => {
  const message = await value(command.client, 'try { await MCP.everything.resources.read({ uri: "demo://no/such/resource" }); return "no error"; } catch (e) { return e.message; }');
  assert.match(message, /^MCP error -32602: Resource demo:\/\/no\/such\/resource not found/);
  assert.equal(message.match(/MCP error/g).length, 1);
});
