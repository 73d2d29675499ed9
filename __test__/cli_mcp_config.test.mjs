// `codemode-native mcp` usage and config: every mistake exits with status 2 and names the
// bad field or flag, on stderr only; a server that cannot start does not stop the command.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { validateConfig } from '../cli/config.mjs';
import { BIN, FIXTURE, tempDir, writeConfig, connectStdio, value } from './_cli.mjs';

const temp = tempDir('cli-config-');
after(() => temp.remove());

function command(args, env = {}) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });
}

function fails(args, pattern, env) {
  const run = command(args, env);
  assert.equal(run.status, 2, run.stderr);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, pattern);
  return run.stderr;
}

const good = { mcpServers: { up: { command: process.execPath, args: [FIXTURE] } } };

test('a bad field exits 2 naming its path', () => {
  const file = writeConfig(temp.dir, { mcpServers: { fs: { command: 'node', args: ['server.js', 7] } } }, 'bad-args.json');
  fails(['mcp', '--config', file], /mcpServers\.fs\.args\[1\]: expected a string, got 7/);
});

test('every problem of a config is listed, unknown keys with the nearest valid name', () => {
  const file = writeConfig(temp.dir, {
    mcpServer: {},
    mcpServers: { fs: { command: 'node', enviroment: {} }, web: { url: 'not a url' }, both: { command: 'x', url: 'http://h' } },
    codeMode: { timeoutMS: 100, isolation: 'vm', memoryLimitBytes: -1 },
  }, 'many.json');
  const stderr = fails(['mcp', '--config', file], /mcpServer: unknown key; did you mean mcpServers\?/);
  assert.match(stderr, /mcpServers\.fs\.enviroment: unknown key; did you mean env\?/);
  assert.match(stderr, /mcpServers\.web\.url: not a valid URL/);
  assert.match(stderr, /mcpServers\.both: give either "command" \(a local server\) or "url" \(a remote one\), not both/);
  assert.match(stderr, /codeMode\.timeoutMS: unknown key; did you mean timeoutMs\?/);
  assert.match(stderr, /codeMode\.isolation: expected one of process, thread, got "vm"/);
  assert.match(stderr, /codeMode\.memoryLimitBytes: expected a positive integer, got -1/);
});

test('a missing file, a file that is not JSON and an empty server list exit 2', () => {
  fails(['mcp', '--config', `${temp.dir}/nope.json`], /nope\.json:\n {2}cannot read the file: ENOENT/);
  fails(['mcp', '--config', writeConfig(temp.dir, '{ "mcpServers": ', 'broken.json')], /broken\.json:\n {2}not valid JSON/);
  fails(['mcp', '--config', writeConfig(temp.dir, { mcpServers: {} }, 'empty.json')], /mcpServers: empty; name at least one MCP server/);
});

test('bad flags exit 2 with the nearest valid flag', () => {
  fails(['mcp', '--confg', 'x.json'], /unknown option --confg; did you mean --config\?/);
  fails(['mcp'], /a config file is required: codemode-native mcp <file>, --config <file>, or CODEMODE_NATIVE_MCP_CONFIG=<file>/, { CODEMODE_NATIVE_MCP_CONFIG: '' });
  fails(['mcp', 'a.json', '--config', 'b.json'], /two config files: --config "b\.json" and "a\.json"; give one/);
  fails(['mcp', 'a.json', 'b.json'], /unexpected argument "b\.json": give one config file/);
  fails(['mcp', '--config', 'x.json', '--http', 'localhost'], /--http: expected host:port/);
  fails(['frobnicate'], /unknown command "frobnicate"/);
  fails([], /Usage: codemode-native <command>/);
});

test('--http refuses a non-loopback address unless --allow-remote, and a token variable that is not set', () => {
  const file = writeConfig(temp.dir, good, 'good.json');
  fails(['mcp', '--config', file, '--http', '0.0.0.0:0'], /not a loopback address.*--allow-remote/);
  fails(['mcp', '--config', file, '--http', '127.0.0.1:0', '--token-env', 'CODEMODE_TEST_UNSET_TOKEN'], /CODEMODE_TEST_UNSET_TOKEN: that environment variable is not set or empty/, { CODEMODE_TEST_UNSET_TOKEN: '' });
});

test('CODEMODE_NATIVE_MCP_CONFIG names the config file when the arguments do not', () => {
  fails(['mcp'], /nope\.json:\n {2}cannot read the file: ENOENT/, { CODEMODE_NATIVE_MCP_CONFIG: `${temp.dir}/nope.json` });
});

test('--help documents the config file', () => {
  const run = command(['mcp', '--help']);
  assert.equal(run.status, 0);
  for (const word of ['CODEMODE_NATIVE_MCP_CONFIG', 'mcp <file>', 'mcpServers', '"command"', '"args"', '"env"', '"cwd"', '"url"', '"headers"', 'codeMode', 'timeoutMs', 'isolation', '--http', '--allow-remote', '--token-env']) {
    assert.ok(run.stdout.includes(word), word);
  }
});

test('validateConfig accepts both server kinds and the codeMode section', () => {
  assert.deepEqual(validateConfig({
    mcpServers: { a: { command: 'node', args: ['x'], env: { K: 'v' }, cwd: '/' }, b: { url: 'https://h/mcp', headers: { Authorization: 'Bearer t' } }, c: { type: 'stdio', command: 'x' } },
    codeMode: { timeoutMs: 5000, languages: ['typescript'], isolation: 'thread' },
  }), []);
  assert.deepEqual(validateConfig([]), ['(root): expected an object with "mcpServers", got an array']);
  assert.deepEqual(validateConfig({ mcpServers: { 'my server': { command: 1 } } }), ['mcpServers["my server"].command: expected a non-empty string, got 1']);
  assert.deepEqual(validateConfig({ mcpServers: { a: { command: 'x' } }, namespacePrompts: false }), []);
  assert.deepEqual(validateConfig({ mcpServers: { a: { command: 'x' } }, namespacePrompts: 'no' }), ['namespacePrompts: expected true or false, got "no"']);
});

test('with namespacePrompts false, prompts keep their names and a name two servers share is the first one\'s', async () => {
  const reference = fileURLToPath(new URL('./fixtures/conformance-upstream.mjs', import.meta.url));
  const twin = { command: process.execPath, args: [reference] };
  const file = writeConfig(temp.dir, { mcpServers: { first: twin, second: twin }, namespacePrompts: false }, 'plain-prompts.json');
  const { client, stderr } = await connectStdio(file);
  try {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => [p.name, p._meta['codemode-native/server']]).sort(), [
      ['test_prompt_with_arguments', 'first'],
      ['test_prompt_with_embedded_resource', 'first'],
      ['test_prompt_with_image', 'first'],
      ['test_simple_prompt', 'first'],
    ]);
    await stderr.waitFor(/second: prompt "test_simple_prompt" is left out: "first" has one of that name/, 'the warning about the shadowed prompt');
    const { messages } = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
    assert.equal(messages[0].content.text, "Prompt with arguments: arg1='a', arg2='b'");
    const error = await client.getPrompt({ name: 'nothing' }).then(() => null, (e) => e);
    assert.equal(error?.message, 'MCP error -32602: Prompt "nothing" not found: no MCP server lists it');
  } finally {
    await client.close();
  }
});

test('a server that cannot start is named in exec and does not stop the command', async () => {
  const file = writeConfig(temp.dir, { mcpServers: { up: good.mcpServers.up, broken: { command: `${temp.dir}/no-such-server` } } }, 'broken-server.json');
  const { client, stderr } = await connectStdio(file);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['exec', 'wait']);
    assert.match(tools[0].description, /Unavailable now \(their tools failed to load\): broken/);
    assert.match(await value(client, 'return (await MCP.up.pid()).content[0].text'), /^\d+$/);
    // A call on it fails where the program makes it, catchably, naming the server.
    const caught = await value(client, 'try { await MCP.broken.anything({}); return "no error"; } catch (e) { return e.message; }');
    assert.match(caught, /^MCP server "broken" is unavailable: /);
    await stderr.waitFor(/broken: failed to start \(spawn .*no-such-server ENOENT\); restarting in \d+ ms/, 'the start failure');
  } finally {
    await client.close();
  }
});
