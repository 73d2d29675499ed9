// codemode-native/ai-sdk with `ai` 6, which npm installs on Node 20 without a word: ai 7
// declares Node 22 in its engines, and npm picks the newest version whose engines fit (for
// `npm install ai` and for the `^6 || ^7` peer range alike). ai 6 goes into a temporary folder
// beside a copy of this package's entries, adapters and built binary (not a link: this
// checkout's own node_modules holds ai 7), so the adapter's `import "ai"` gets ai 6.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));
const fixtures = path.join(root, '__test__', 'fixtures', 'ai6');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let work;

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'codemode-ai6-'));
  fs.writeFileSync(path.join(work, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  execFileSync(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', 'ai@6', 'zod@4'], { cwd: work, stdio: 'pipe' });
  const copy = path.join(work, 'node_modules', 'codemode-native');
  const binaries = fs.readdirSync(root).filter((f) => f.endsWith('.node') || f === 'codemode-sandbox');
  for (const entry of ['package.json', 'index.js', 'index.mjs', 'index.d.ts', 'index.d.mts', 'adapters', ...binaries]) {
    fs.cpSync(path.join(root, entry), path.join(copy, entry), { recursive: true });
  }
  for (const file of fs.readdirSync(fixtures)) fs.copyFileSync(path.join(fixtures, file), path.join(work, file));
});

after(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('the temporary folder resolves ai 6', () => {
  assert.match(JSON.parse(fs.readFileSync(path.join(work, 'node_modules', 'ai', 'package.json'), 'utf8')).version, /^6\./);
});

test('an AI SDK 6 agent loop runs exec over a converted catalog tool with experimental_context', () => {
  const child = spawnSync(process.execPath, [path.join(work, 'loop.mjs')], { cwd: work, encoding: 'utf8', timeout: 60_000 });
  assert.equal(child.status, 0, child.stderr);
  const out = JSON.parse(child.stdout.trim().split('\n').pop());
  assert.deepEqual(out, {
    text: 'It is sunny in Oslo.',
    output: { status: 'completed', value: { city: 'Oslo', sky: 'sunny' } },
    seen: [{ city: 'Oslo', signal: true, context: { user: 'u1' } }],
  });
});

test('the README AI SDK 6 wiring type-checks against ai 6 under tsc --strict', () => {
  fs.writeFileSync(path.join(work, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck: true, types: [] },
    files: ['types.mts'],
  }));
  const run = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', work], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
