// Shared helpers of the cli_mcp*.test.mjs suites: config files, the command as a child
// process behind a real SDK Client (stdio or HTTP), and exec/wait calls through it.
// Not a test file itself (node --test only picks up *.test.mjs here).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, writeFileSync, rmSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventually } from './_helpers.mjs';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
export const BIN = path.resolve(here, '..', 'bin', 'codemode-native.mjs');
export const FIXTURE = path.join(here, 'fixtures', 'cli-upstream.mjs');
// Generous hang guards for a loaded two-core machine; never a statement about speed.
export const GUARD_MS = 180_000;

/** The resolved script of an installed package's bin (run with node, not npx: offline). */
export function binOf(pkg) {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = require(manifest);
  return path.join(path.dirname(manifest), typeof bin === 'string' ? bin : Object.values(bin)[0]);
}

/** A temp folder (real path, as the filesystem server reports it) and its cleanup. */
export function tempDir(prefix) {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The config of the suites: the filesystem server on `dir`, the memory server, the fixture. */
export function standardConfig(dir) {
  return {
    mcpServers: {
      fs: { command: process.execPath, args: [binOf('@modelcontextprotocol/server-filesystem'), dir] },
      memory: { command: process.execPath, args: [binOf('@modelcontextprotocol/server-memory')], env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') } },
      up: { command: process.execPath, args: [FIXTURE] },
    },
    // A long wall clock: a loaded machine must not turn a slow call into a waiting result
    // (the helpers drain waiting results anyway).
    codeMode: { timeoutMs: 60_000 },
  };
}

export function writeConfig(dir, config, name = 'codemode.json') {
  const file = path.join(dir, name);
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  return file;
}

/** Collects a stream's text; `waitFor(re)` resolves once the text matches. */
function collector(stream) {
  const state = { text: '' };
  stream?.on('data', (chunk) => { state.text += chunk; });
  state.waitFor = (re, what = String(re)) => eventually(() => re.exec(state.text), `stderr to show ${what}`, GUARD_MS);
  return state;
}

/** The command over stdio behind a connected SDK Client: `{ client, stderr, transport }`. */
export function connectStdio(configFile, extraArgs = []) {
  return connectCommand(['mcp', '--config', configFile, ...extraArgs]);
}

/** The same with the command's arguments as given (`['mcp', …]`) and `env` added to its environment. */
export async function connectCommand(args, env = {}) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, ...args], env, stderr: 'pipe' });
  const stderr = collector(transport.stderr);
  const client = new Client({ name: 'cli-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr, transport };
}

/** Starts the command with --http on a free loopback port; `{ child, url, stderr, exited }`. */
export async function startHttp(configFile, extraArgs = [], env = {}) {
  const child = spawn(process.execPath, [BIN, 'mcp', '--config', configFile, '--http', '127.0.0.1:0', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const stderr = collector(child.stderr);
  const stdout = collector(child.stdout);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const match = await stderr.waitFor(/listening on (http:\/\/\S+)/, 'the listening URL');
  return { child, url: new URL(match[1]), stderr, stdout, exited };
}

/** An SDK Client connected to the command's HTTP endpoint. */
export async function connectHttp(url, headers = {}) {
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const client = new Client({ name: 'cli-test-http', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** The model-ready result of one exec/wait tool call (its structuredContent), checked against its text. */
export async function call(client, name, args, options = {}) {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: GUARD_MS, ...options });
  const model = JSON.parse(result.content[0].text);
  if (JSON.stringify(model) !== JSON.stringify(result.structuredContent)) throw new Error('text and structuredContent differ');
  if (result.isError !== (model.status === 'failed')) throw new Error(`isError ${result.isError} for status ${model.status}`);
  return model;
}

/** exec, then wait for as long as it answers waiting: the final model result. */
export async function run(client, code) {
  let result = await call(client, 'exec', { code });
  while (result.status === 'waiting') result = await call(client, 'wait', { runId: result.runId });
  return result;
}

/** The value of a program that must complete. */
export async function value(client, code) {
  const result = await run(client, code);
  if (result.status !== 'completed') throw new Error(`expected completed: ${JSON.stringify(result)}`);
  return result.value;
}
