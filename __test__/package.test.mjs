// Packaging: the ESM and CommonJS entries export the same API, the package resolves
// itself through its `exports` map, and `npm pack` produces a tarball that installs
// into a fresh folder (its MCP SDK dependency from npm's cache when there) and loads with
// both `require` and `import`, and whose `codemode-native` command runs.
//
// The pack test mirrors the publish flow: the main tarball has no binary; the binary
// ships in the per-platform package (npm/<platform>), packed here with the locally built
// `.node` the way CI's publish job fills it. Both tarballs are installed together, so the
// main package's optionalDependency on the platform package is satisfied offline.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esm from '../index.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const cjs = require('../index.js');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const API = [
  'CodeModeSession', 'runCodeModeScript', 'configureCodeModeRuntime', 'transformTypeScript',
  'resolveCodeModeConfig', 'validateCodeModeConfig', 'assertCodeModePayload', 'redactSource',
  'sqliteRunStore',
];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

test('the ESM entry exports every CommonJS export under the same binding', () => {
  for (const name of API) {
    assert.equal(typeof cjs[name], 'function', name);
    assert.equal(esm[name], cjs[name], name);
  }
  for (const name of Object.keys(cjs).filter((k) => typeof cjs[k] === 'function')) {
    assert.equal(esm[name], cjs[name], `${name} is missing from index.mjs`);
  }
  assert.equal(esm.default, cjs);
});

test('the package resolves itself by name through its exports map', async () => {
  const byName = await import('codemode-native');
  assert.equal(byName.CodeModeSession, cjs.CodeModeSession);
  assert.equal(require('codemode-native'), cjs);
});

test('package.json lists the entries, the platform packages and their targets', () => {
  assert.deepEqual(pkg.files.sort(), ['CHANGELOG.md', 'LICENSE', 'README.md', 'adapters', 'bin', 'cli', 'index.d.mts', 'index.d.ts', 'index.js', 'index.mjs', 'stores']);
  // The command's MCP SDK must install with the package, not only in development.
  assert.deepEqual(Object.keys(pkg.bin), ['codemode-native']);
  assert.ok(pkg.dependencies['@modelcontextprotocol/sdk']);
  // Each adapter (and run store) is a subpath export with an ESM and a CommonJS entry,
  // each with its own types, whose files exist; its framework (client) is an optional peer.
  for (const [subpath, entry] of Object.entries(pkg.exports).filter(([k]) => k !== '.' && k !== './package.json')) {
    const name = subpath.slice(2);
    const file = name.startsWith('stores/') ? name : `adapters/${name}`;
    assert.deepEqual(entry, {
      import: { types: `./${file}.d.mts`, default: `./${file}.mjs` },
      require: { types: `./${file}.d.cts`, default: `./${file}.cjs` },
    });
    for (const file of [entry.import.types, entry.import.default, entry.require.types, entry.require.default]) {
      assert.ok(fs.existsSync(path.join(root, file)), `${subpath}: ${file}`);
    }
    assert.deepEqual(pkg.typesVersions['*'][name], [`${file}.d.cts`], subpath);
  }
  for (const peer of Object.keys(pkg.peerDependencies ?? {})) {
    assert.equal(pkg.peerDependenciesMeta[peer].optional, true, peer);
    assert.ok(pkg.devDependencies[peer], peer);
  }
  assert.deepEqual(pkg.exports['.'], {
    import: { types: './index.d.mts', default: './index.mjs' },
    require: { types: './index.d.ts', default: './index.js' },
    default: './index.js',
  });
  const dirs = fs.readdirSync(path.join(root, 'npm')).sort();
  assert.equal(pkg.napi.targets.length, dirs.length);
  for (const dir of dirs) {
    const platform = JSON.parse(fs.readFileSync(path.join(root, 'npm', dir, 'package.json'), 'utf8'));
    assert.equal(platform.name, `codemode-native-${dir}`);
    assert.equal(platform.version, pkg.version);
    assert.equal(pkg.optionalDependencies[platform.name], pkg.version, platform.name);
    // The sandbox executable of isolation "process" ships next to the binary (not on Windows).
    const sandbox = dir.startsWith('win32') ? [] : ['codemode-sandbox'];
    assert.deepEqual(platform.files, [`codemode-native.${dir}.node`, ...sandbox]);
  }
  for (const triple of ['x86_64-unknown-linux-musl', 'aarch64-unknown-linux-musl', 'x86_64-pc-windows-msvc']) {
    assert.ok(pkg.napi.targets.includes(triple), triple);
  }
});

// ---------- npm pack → fresh folder → require / import ----------

let work;
let app;
let packed;

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'codemode-pack-'));
  const binary = fs.readdirSync(root).find((f) => /^codemode-native\..+\.node$/.test(f));
  assert.ok(binary, 'build the addon first (npx napi build --platform --release)');
  const platform = binary.slice('codemode-native.'.length, -'.node'.length);
  const run = (args, cwd) => execFileSync(npm, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const mainTgz = run(['pack', '--silent', '--pack-destination', work], root).trim().split('\n').pop();
  const platformDir = path.join(work, 'platform');
  fs.cpSync(path.join(root, 'npm', platform), platformDir, { recursive: true });
  fs.copyFileSync(path.join(root, binary), path.join(platformDir, binary));
  if (process.platform !== 'win32') {
    assert.ok(fs.existsSync(path.join(root, 'codemode-sandbox')), 'build the sandbox first (npm run build)');
    fs.copyFileSync(path.join(root, 'codemode-sandbox'), path.join(platformDir, 'codemode-sandbox'));
  }
  const platformTgz = run(['pack', '--silent', '--pack-destination', work], platformDir).trim().split('\n').pop();
  app = path.join(work, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'pack-check', version: '1.0.0', private: true }));
  // The package's one dependency (the MCP SDK of the command) comes from npm's cache when
  // it is there; a fresh folder has no lockfile, so npm may ask the registry to resolve it.
  run(['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', path.join(work, mainTgz), path.join(work, platformTgz)], app);
  packed = { mainTgz, platform, binary };
});

after(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('the packed main package holds the entries and no binary', () => {
  const installed = fs.readdirSync(path.join(app, 'node_modules', 'codemode-native')).sort();
  assert.deepEqual(installed, ['CHANGELOG.md', 'LICENSE', 'README.md', 'adapters', 'bin', 'cli', 'index.d.mts', 'index.d.ts', 'index.js', 'index.mjs', 'package.json', 'stores']);
  const binaryDir = path.join(app, 'node_modules', `codemode-native-${packed.platform}`);
  assert.ok(fs.existsSync(path.join(binaryDir, packed.binary)));
});

test('the installed tarball has the codemode-native command, with its dependencies', () => {
  const bin = path.join(app, 'node_modules', '.bin', process.platform === 'win32' ? 'codemode-native.cmd' : 'codemode-native');
  const child = spawnSync(bin, ['mcp', '--help'], { cwd: app, encoding: 'utf8', timeout: 60_000, shell: process.platform === 'win32' });
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stdout, /^Usage: codemode-native mcp <file> /);
});

const PROGRAM = `
  const session = new CodeModeSession({ sessionId: 'pack', tools: [{ name: 'add', execute: ({ a, b }) => a + b }] });
  const r = await session.exec({ code: 'return await add({ a: 2, b: 3 })' });
  await session.close();
  console.log(JSON.stringify({ status: r.status, value: r.value, redacted: redactSource('const token = "x"') }));
`;

function runChild(file, source) {
  const target = path.join(app, file);
  fs.writeFileSync(target, source);
  const child = spawnSync(process.execPath, [target], { cwd: app, encoding: 'utf8', timeout: 60_000 });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout.trim().split('\n').pop());
}

const EXPECTED = { status: 'completed', value: 5, redacted: 'const token = "[REDACTED]"' };

test('the installed tarball loads with require in a child process and runs a cell', () => {
  const out = runChild('check.cjs', `const { CodeModeSession, redactSource } = require('codemode-native');\n(async () => {${PROGRAM}})();`);
  assert.deepEqual(out, EXPECTED);
});

test('the installed tarball loads with import in a child process and runs a cell', () => {
  const out = runChild('check.mjs', `import { CodeModeSession, redactSource } from 'codemode-native';\n${PROGRAM}`);
  assert.deepEqual(out, EXPECTED);
});

test('the installed tarball loads inside a worker_threads Worker', () => {
  const out = runChild('worker.cjs', `
    const { Worker } = require('node:worker_threads');
    const worker = new Worker(\`
      const { parentPort } = require('node:worker_threads');
      const { CodeModeSession, redactSource } = require('codemode-native');
      (async () => {
        const session = new CodeModeSession({ sessionId: 'pack-worker', tools: [{ name: 'add', execute: ({ a, b }) => a + b }] });
        const r = await session.exec({ code: 'return await add({ a: 2, b: 3 })' });
        await session.close();
        parentPort.postMessage({ status: r.status, value: r.value, redacted: redactSource('const token = "x"') });
      })();
    \`, { eval: true });
    worker.once('message', (m) => { console.log(JSON.stringify(m)); worker.terminate(); });
  `);
  assert.deepEqual(out, EXPECTED);
});

test('the installed package ships each adapter with its types', () => {
  const dir = path.join(app, 'node_modules', 'codemode-native');
  for (const [subpath, entry] of Object.entries(pkg.exports).filter(([k]) => k !== '.' && k !== './package.json')) {
    for (const file of [entry.import.types, entry.import.default, entry.require.types, entry.require.default]) {
      assert.ok(fs.existsSync(path.join(dir, file)), `${subpath}: ${file}`);
    }
  }
  // What the adapters and stores import among themselves ships too.
  for (const folder of ['adapters', 'stores']) {
    for (const file of fs.readdirSync(path.join(root, folder))) {
      assert.ok(fs.existsSync(path.join(dir, folder, file)), `${folder}/${file}`);
    }
  }
});

test('the installed platform package runs guests in its own sandbox executable', { skip: process.platform === 'win32' }, () => {
  const binaryDir = path.join(app, 'node_modules', `codemode-native-${packed.platform}`);
  const sandbox = path.join(binaryDir, 'codemode-sandbox');
  assert.ok(fs.existsSync(sandbox), 'codemode-sandbox next to the .node');
  assert.ok(fs.statSync(sandbox).mode & 0o111, 'codemode-sandbox is executable');
  const out = runChild('process.mjs', `
    import { CodeModeSession, codeModeRuntimeStats } from 'codemode-native';
    const session = new CodeModeSession({ sessionId: 'pack-process', isolation: 'process', tools: [{ name: 'add', execute: ({ a, b }) => a + b }] });
    const r = await session.exec({ code: 'return await add({ a: 2, b: 3 })' });
    const { sandboxProcesses } = codeModeRuntimeStats();
    await session.close();
    console.log(JSON.stringify({ status: r.status, value: r.value, sandboxProcesses }));
  `);
  assert.deepEqual(out, { status: 'completed', value: 5, sandboxProcesses: 1 });
});

const ADAPTERS = { 'ai-sdk': ['catalogTools', 'codeModeTools'], anthropic: ['catalogTools', 'codeModeTools', 'runToolUse'], langchain: ['catalogTools', 'codeModeTools'], 'openai-agents': ['catalogTools', 'codeModeTools'], 'stores/redis': ['redisRunStore'], 'stores/postgres': ['postgresRunStore'] };

test('the CommonJS adapters are generated from the ESM sources and up to date', () => {
  const run = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-adapters.mjs'), '--check'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
});

test('each adapter subpath loads with require and with import, exporting the same names', async () => {
  for (const [name, exported] of Object.entries(ADAPTERS)) {
    const required = require(`codemode-native/${name}`);
    const imported = await import(`codemode-native/${name}`);
    assert.deepEqual(Object.keys(required).filter((k) => k !== '__esModule').sort(), exported, name);
    assert.deepEqual(Object.keys(imported).sort(), exported, name);
    for (const key of exported) assert.equal(typeof required[key], 'function', `${name}.${key}`);
  }
});
