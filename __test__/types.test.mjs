// The published types fit how users write code: `tsc --noEmit --strict` over the
// TypeScript files in __test__/types/ (the README's snippets, the wider API, ESM (.mts) and
// CommonJS (.cts) users of every adapter, with `@ts-expect-error` lines for what must not
// compile) reports nothing under each module resolution users pick; `attw` finds no problem
// in the packed tarball (the `ai` 6 types: adapter_ai_sdk_v6.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const root = fileURLToPath(new URL('..', import.meta.url));
const types = path.join(root, '__test__', 'types');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

for (const [mode, config] of [['NodeNext', 'tsconfig.json'], ['Node16', 'tsconfig.node16.json'], ['Bundler', 'tsconfig.bundler.json']]) {
  test(`the type tests compile under tsc --strict with module resolution ${mode}`, () => {
    const run = spawnSync(process.execPath, [tsc, '-p', path.join(types, config)], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stdout + run.stderr);
  });
}

test('attw finds no problem in the packed tarball in any resolution mode', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'codemode-attw-'));
  try {
    const tgz = execFileSync(npm, ['pack', '--silent', '--pack-destination', work], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop();
    const attw = path.join(path.dirname(require.resolve('@arethetypeswrong/cli/package.json')), 'dist', 'index.js');
    const run = spawnSync(process.execPath, [attw, path.join(work, tgz), '--format', 'json'], { encoding: 'utf8' });
    const report = JSON.parse(run.stdout);
    assert.deepEqual(report.analysis.problems, [], JSON.stringify(report.analysis.problems));
    assert.equal(run.status, 0, run.stderr);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});
