// The generated loader (index.js) without its binding: the error names the binding it
// looked for among the package's real targets, never a WASI package the project lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, writeFileSync, mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

// Every message in the error's cause chain, loaded in a child with no binding beside it.
function loadErrors(env = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'loader-'));
  try {
    copyFileSync(path.join(root, 'index.js'), path.join(dir, 'index.js'));
    writeFileSync(path.join(dir, 'package.json'), '{"name":"loader-probe"}');
    const probe = "try { require('./index.js'); console.log('[]') } catch (e) { const m = []; for (let c = e; c; c = c.cause) m.push(c.message.split('\\n')[0]); console.log(JSON.stringify(m)) }";
    return JSON.parse(execFileSync(process.execPath, ['-e', probe], { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a missing binding is reported without naming the WASI package, which is not a target', () => {
  const messages = loadErrors({ NAPI_RS_FORCE_WASI: '' });
  assert.match(messages[0], /^Cannot find native binding/);
  assert.ok(!messages.some((m) => /wasm32-wasi|\.wasi\.cjs/.test(m)), messages.join('\n'));
  const packages = messages.flatMap((m) => [...m.matchAll(/Cannot find module '(codemode-native-[^']+)'/g)].map((x) => x[1]));
  assert.ok(packages.length > 0 || messages.some((m) => /^Unsupported/.test(m)), messages.join('\n'));
  for (const name of packages) assert.ok(name in manifest.optionalDependencies, `${name} is not a published target`);
});
