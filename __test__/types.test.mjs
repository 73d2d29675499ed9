// The published types fit how users write code: `tsc --noEmit --strict` over the
// TypeScript files in __test__/types/ (the README's Quick start and the wider API, with
// `@ts-expect-error` lines for what must not compile) reports nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const project = fileURLToPath(new URL('./types/tsconfig.json', import.meta.url));

test('the type tests compile under tsc --strict', () => {
  const run = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
