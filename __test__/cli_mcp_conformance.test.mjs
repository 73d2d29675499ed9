// The official MCP conformance suite (`@modelcontextprotocol/conformance`, its `server`
// mode over Streamable HTTP) against `codemode-native mcp --http`: fronting the real
// everything server, the scenarios any upstream can meet; fronting a fixture with the
// fixed names the scenarios ask for (`namespacePrompts: false`, so prompts keep them), the
// resource, prompt and completion scenarios. What still cannot pass is listed in
// docs/mcp-command.md ("Conformance suite").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { binOf, tempDir, writeConfig, startHttp, GUARD_MS } from './_cli.mjs';
import { hangGuard } from './_helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const SUITE = binOf('@modelcontextprotocol/conformance');
// The suite's bundle imports `fs.globSync` (Node 22+) at load; see the fixture.
const NODE20 = path.join(here, 'fixtures', 'conformance-node20.mjs');

const REFERENCE = path.join(here, 'fixtures', 'conformance-upstream.mjs');

let temp;
let http;
let reference; // the command fronting the fixture
const running = new Set();

before(async () => {
  temp = tempDir('cli-conformance-');
  const file = writeConfig(temp.dir, {
    mcpServers: {
      everything: { command: process.execPath, args: [binOf('@modelcontextprotocol/server-everything'), 'stdio'] },
    },
    codeMode: { timeoutMs: 60_000 },
  });
  http = await startHttp(file);
  const referenceFile = path.join(temp.dir, 'reference.json');
  writeFileSync(referenceFile, JSON.stringify({ mcpServers: { reference: { command: process.execPath, args: [REFERENCE] } }, namespacePrompts: false }));
  reference = await startHttp(referenceFile);
});

after(async () => {
  for (const child of running) child.kill('SIGTERM');
  http?.child.kill('SIGTERM');
  reference?.child.kill('SIGTERM');
  const exit = await http?.exited;
  const referenceExit = await reference?.exited;
  temp?.remove();
  assert.deepEqual(exit, { code: 0, signal: null }, http?.stderr.text);
  assert.deepEqual(referenceExit, { code: 0, signal: null }, reference?.stderr.text);
});

/**
 * Runs one scenario of the suite against the command; resolves with the CLI's exit code,
 * its output and the checks it wrote (`<out>/server-<scenario>-<time>/checks.json`).
 */
async function scenario(name, url) {
  const out = path.join(temp.dir, `${name}-${url.port}`);
  const child = spawn(process.execPath, ['--import', NODE20, SUITE, 'server', '--url', url.href, '--scenario', name, '--output-dir', out], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const code = await hangGuard(new Promise((resolve) => child.once('exit', resolve)), `the ${name} scenario`, GUARD_MS);
  running.delete(child);
  const [folder] = readdirSync(out).filter((entry) => entry.startsWith(`server-${name}-`));
  assert.ok(folder, `no results folder for ${name}:\n${output}`);
  const checks = JSON.parse(readFileSync(path.join(out, folder, 'checks.json'), 'utf8'));
  return { code, output, checks };
}

/**
 * The scenario's checks against the command at `url` (the one fronting the everything
 * server unless told), asserted all SUCCESS with the CLI exiting 0; returns the one named `id`.
 */
async function passes(name, { id = name, url = http.url } = {}) {
  const { code, output, checks } = await scenario(name, url);
  const bad = checks.filter((check) => check.status !== 'SUCCESS' && check.status !== 'INFO');
  assert.deepEqual(bad, [], output);
  assert.equal(code, 0, output);
  const check = checks.find((c) => c.id === id);
  assert.ok(check, `no ${id} check in ${JSON.stringify(checks)}`);
  return check;
}

test('the suite\'s resource, prompt, logging and completion scenarios are for the 2025 versions only', async () => {
  const list = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', NODE20, SUITE, 'list', '--server'], { stdio: ['ignore', 'pipe', 'inherit'] });
    running.add(child);
    let text = '';
    child.stdout.on('data', (chunk) => { text += chunk; });
    child.once('error', reject);
    child.once('exit', () => { running.delete(child); resolve(text); });
  });
  for (const name of ['resources-list', 'prompts-list', 'logging-set-level', 'completion-complete']) {
    assert.match(list, new RegExp(`${name} \\[2025-06-18,2025-11-25\\]`));
  }
  assert.doesNotMatch(list, /2026-07-28/);
});

test('resources-list passes with the everything server\'s resources, URIs unchanged', async () => {
  const check = await passes('resources-list');
  assert.ok(check.details.resourceCount > 0);
  assert.ok(check.details.resources.every((uri) => uri.startsWith('demo://')), JSON.stringify(check.details));
});

test('prompts-list passes with the everything server\'s prompts named everything__<prompt>', async () => {
  const check = await passes('prompts-list');
  assert.ok(check.details.promptCount > 0);
  assert.ok(check.details.prompts.includes('everything__simple-prompt'), JSON.stringify(check.details));
  assert.ok(check.details.prompts.every((name) => name.startsWith('everything__')));
});

test('logging-set-level passes: logging/setLevel answers an empty object', async () => {
  const check = await passes('logging-set-level');
  assert.deepEqual(check.details.result, {});
});

// Fronting the fixture: URIs pass unchanged, prompts keep their names (namespacePrompts:
// false), and subscriptions reach the upstream that offers them. Some scenarios' details
// show what the command passed on.
const REFERENCE_SCENARIOS = {
  'resources-list': (check) => assert.ok(check.details.resources.includes('test://static-text'), JSON.stringify(check.details)),
  'resources-read-text': () => {},
  'resources-read-binary': () => {},
  'resources-templates-read': (check) => assert.equal(check.details.content, '{"id":"123","templateTest":true,"data":"Data for ID: 123"}'),
  'resources-subscribe': () => {},
  'resources-unsubscribe': () => {},
  'prompts-list': (check) => assert.ok(check.details.prompts.includes('test_prompt_with_arguments'), JSON.stringify(check.details)),
  'prompts-get-simple': () => {},
  'prompts-get-with-args': () => {},
  'prompts-get-embedded-resource': () => {},
  'prompts-get-with-image': () => {},
  'completion-complete': (check) => assert.deepEqual(check.details.result.completion.values, ['test', 'testing', 'tested']),
};
for (const [name, inspect] of Object.entries(REFERENCE_SCENARIOS)) {
  test(`${name} passes fronting an upstream with the suite's names`, async () => {
    inspect(await passes(name, { url: reference.url }));
  });
}
