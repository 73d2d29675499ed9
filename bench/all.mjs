#!/usr/bin/env node
// `npm run bench`: bench/run.mjs, then bench/many.mjs, each given this command line (so
// `npm run bench -- --quick` reaches both) and the same environment (BENCH_ONLY, BENCH_SIDES…).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

for (const file of ['run.mjs', 'many.mjs']) {
  const r = spawnSync(process.execPath, [fileURLToPath(new URL(file, import.meta.url)), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
