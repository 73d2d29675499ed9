// `isolation: "process"`: attacks that crash QuickJS end a sandbox process, never the
// gateway; a forbidden system call kills the sandbox; sandboxes die with their gateway
// (even a SIGKILLed one), never keep Node alive, and work from worker_threads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADDON_PATH, native } from './_helpers.mjs';
import { alive, sandboxChildren, startFixture, until } from './_processes.mjs';

const supported = process.platform === 'linux' || process.platform === 'darwin';

test('isolation must be "process" or "thread"', () => {
  assert.throws(() => new native.CodeModeSession({ sessionId: 'x', isolation: 'vm' }), (e) => e.code === 'invalid_input' && /isolation/.test(e.message));
  assert.throws(() => native.configureCodeModeRuntime({ isolation: 'docker' }), (e) => e.code === 'invalid_input' && /isolation/.test(e.message));
  assert.ok(['process', 'thread'].includes(native.codeModeRuntimeStats().isolation));
});

test('a thread-mode session starts no sandbox process; a process-mode one starts one and closing ends it', { skip: !supported }, async () => {
  const before = native.codeModeRuntimeStats().sandboxProcesses;
  const threaded = new native.CodeModeSession({ sessionId: 'iso-thread', isolation: 'thread' });
  assert.equal((await threaded.exec({ code: 'return 1' })).value, 1);
  assert.equal(native.codeModeRuntimeStats().sandboxProcesses, before);
  const sandboxed = new native.CodeModeSession({ sessionId: 'iso-process', isolation: 'process' });
  assert.equal((await sandboxed.exec({ code: 'return 2' })).value, 2);
  assert.equal(native.codeModeRuntimeStats().sandboxProcesses, before + 1);
  await sandboxed.close();
  await threaded.close();
  assert.ok(await until(() => native.codeModeRuntimeStats().sandboxProcesses === before), 'the sandbox process ends with its session');
});

test('QuickJS aborts under memory pressure and a forbidden system call end a sandbox, not the gateway', { skip: !supported }, async () => {
  const { firstLine, exit } = startFixture('sandbox-attacks.mjs', [], { CODEMODE_NATIVE_PANIC_PROBE: '1' });
  const seen = await firstLine;
  const ended = await exit;
  assert.equal(ended.code, 0, `the gateway survived: ${ended.signal ?? ''} ${ended.err}`);
  for (const [name, result] of Object.entries(seen.pressure)) {
    // Whatever QuickJS did, the run is answered: a value, a memory failure, or the crash
    // of its sandbox reported as an internal error that names the signal.
    if (result.status === 'completed') continue;
    assert.equal(result.status, 'failed', name);
    const crash = result.code === 'internal_error' && /sandbox process crashed \(SIG[A-Z]+\); this run is lost/.test(result.error);
    const memory = /memory/i.test(result.error ?? '');
    assert.ok(crash || memory, `${name}: ${JSON.stringify(result)}`);
  }
  assert.deepEqual(seen.served, [1, 16, 64], 'another session is served after every attack');
  assert.equal(seen.forbidden.code, 'internal_error', JSON.stringify(seen.forbidden));
  assert.match(seen.forbidden.error, /crashed \(SIGSYS\)/);
  assert.equal(seen.afterForbidden, 'fresh', 'a fresh sandbox replaces the killed one');
  assert.equal(seen.bystanderAfter, 'alive');
});

test('sandboxes work from worker_threads and never keep Node alive', { skip: !supported }, async () => {
  const { firstLine, exit } = startFixture('sandbox-owner.mjs', ['end']);
  const seen = await firstLine;
  assert.equal(seen.value, 5);
  assert.equal(seen.fromWorker, 5);
  assert.equal(seen.parked, 'waiting');
  const ended = await exit;
  assert.equal(ended.code, 0, ended.err);
});

test('sandboxes die with a SIGKILLed gateway', { skip: process.platform !== 'linux' }, async () => {
  const { child, firstLine, exit } = startFixture('sandbox-owner.mjs', ['hold']);
  await firstLine;
  const sandboxes = sandboxChildren(child.pid);
  assert.ok(sandboxes.length >= 1, 'the gateway runs a sandbox process');
  child.kill('SIGKILL');
  await exit;
  assert.ok(await until(() => sandboxes.every((pid) => !alive(pid))), `sandboxes outlived their gateway: ${sandboxes}`);
});

test('a missing sandbox executable is said once, when a process-mode session is built, with the fix', { skip: !supported }, async () => {
  const probe = `
    const { CodeModeSession } = require(process.argv[1]);
    const seen = {};
    try { new CodeModeSession({ sessionId: 'p', isolation: 'process' }); seen.process = 'built'; }
    catch (e) { seen.process = { code: e.code, message: e.message }; }
    const thread = new CodeModeSession({ sessionId: 't', isolation: 'thread' });
    thread.exec({ code: 'return 7' }).then((r) => { seen.thread = r.value; thread.close(); console.log(JSON.stringify(seen)); });`;
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync(process.execPath, ['-e', probe, ADDON_PATH], {
    env: { ...process.env, CODEMODE_NATIVE_SANDBOX: '/nonexistent/codemode-sandbox' },
    encoding: 'utf8',
  });
  const seen = JSON.parse(out);
  assert.equal(seen.process.code, 'runtime_unavailable');
  assert.equal(
    seen.process.message,
    'the code mode sandbox executable was not found: CODEMODE_NATIVE_SANDBOX names /nonexistent/codemode-sandbox, which is not a file; point it at the codemode-sandbox executable, unset it, or use isolation: "thread"',
  );
  assert.equal(seen.thread, 7, 'thread mode does not need the executable');
});

test('a sandbox that cannot start says why in the lost run', { skip: process.platform !== 'linux' || !existsSync('/usr/bin/prlimit') }, async () => {
  // Its stderr goes nowhere: the reason comes in a `Fatal` frame. A hard CPU limit below
  // the sandbox's own makes its lock-down fail once it has given up its privileges.
  const dir = mkdtempSync(join(tmpdir(), 'codemode-fatal-'));
  const wrapper = join(dir, 'codemode-sandbox');
  const real = join(dirname(fileURLToPath(import.meta.url)), '..', 'codemode-sandbox');
  writeFileSync(wrapper, `#!/bin/sh\nexec /usr/bin/prlimit --cpu=3600:3600 -- '${real}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  const probe = `
    const { CodeModeSession } = require(process.argv[1]);
    const session = new CodeModeSession({ sessionId: 'fatal', isolation: 'process' });
    session.exec({ code: 'return 7' }).then((r) => { console.log(JSON.stringify(r)); return session.close(); });`;
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync(process.execPath, ['-e', probe, ADDON_PATH], {
    env: { ...process.env, CODEMODE_NATIVE_SANDBOX: wrapper },
    encoding: 'utf8',
  });
  rmSync(dir, { recursive: true, force: true });
  const result = JSON.parse(out);
  assert.equal(result.status, 'failed', out);
  assert.equal(result.code, 'internal_error', out);
  assert.match(
    result.error,
    /code mode sandbox process exited with status 71: cannot lock down the process: setrlimit\(\d+\) failed: Operation not permitted/,
  );
});
