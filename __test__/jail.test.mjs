// `isolation: "process"` on Linux, seen from outside a real sandbox process of a child
// gateway: who it runs as, what it holds and its limits (/proc), system calls injected
// into it with ptrace, and its death with a gateway it no longer listens to.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADDON_PATH, eventually } from './_helpers.mjs';
import { alive, converse, sandboxChildren, startFixture, until } from './_processes.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const linux = process.platform === 'linux';
const root = process.getuid?.() === 0;
const GiB = 2 ** 30;
const [SIGABRT, SIGKILL, SIGSYS] = [6, 9, 31];

/** A child gateway that has served a cell from its one sandbox; `ask` talks to it. */
async function startGateway(env = {}) {
  const started = startFixture('jail-gateway.mjs', [], env, { input: true });
  const ready = await started.firstLine;
  assert.equal(ready.value, 'served', JSON.stringify(ready));
  return { ...started, ask: converse(started.child) };
}

/** The gateway's only live sandbox process. */
function theSandbox(gateway) {
  const live = sandboxChildren(gateway.child.pid).filter(alive);
  assert.equal(live.length, 1, `one sandbox process: ${live}`);
  return live[0];
}

function stopGateway(gateway) {
  gateway?.child.kill('SIGKILL');
  return gateway?.exit;
}

/** `/proc/<pid>/status` as { field: value }. */
function status(pid) {
  const lines = readFileSync(`/proc/${pid}/status`, 'utf8').trim().split('\n');
  return Object.fromEntries(lines.map((line) => line.split(/:\s*/, 2)));
}

/** `/proc/<pid>/limits` as { 'Max cpu time': [soft, hard] }, numbers where finite. */
function limits(pid) {
  const rows = readFileSync(`/proc/${pid}/limits`, 'utf8').trim().split('\n').slice(1);
  const value = (text) => (text === 'unlimited' ? text : Number(text));
  return Object.fromEntries(rows.map((row) => {
    const [name, soft, hard] = row.split(/\s{2,}/);
    return [name, [value(soft), value(hard)]];
  }));
}

/** A sandbox executable that passes its real one `parentPid` and `dataLimit`. */
function wrappedSandbox(folder, parentPid, dataLimit) {
  const path = join(folder, `sandbox-${String(parentPid).replace(/\W/g, '')}-${dataLimit}.sh`);
  const real = join(dirname(ADDON_PATH), 'codemode-sandbox');
  writeFileSync(path, `#!/bin/sh\nexec '${real}' "$1" ${parentPid} ${dataLimit}\n`, { mode: 0o755 });
  return path;
}

describe('a sandbox process seen from /proc', { skip: !linux }, () => {
  let gateway;
  let sandbox;
  before(async () => {
    gateway = await startGateway();
    sandbox = theSandbox(gateway);
  });
  after(() => stopGateway(gateway));

  test('started by root, it runs as nobody/nogroup with every capability set empty', { skip: !root && 'needs root' }, () => {
    const seen = status(sandbox);
    assert.deepEqual(seen.Uid.split(/\s+/), ['65534', '65534', '65534', '65534']);
    assert.deepEqual(seen.Gid.split(/\s+/), ['65534', '65534', '65534', '65534']);
    assert.equal(seen.Groups.trim(), '');
    for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) assert.equal(seen[set], '0000000000000000', set);
  });

  test('it can gain no privileges and runs under a seccomp filter', () => {
    const seen = status(sandbox);
    assert.equal(seen.NoNewPrivs, '1');
    assert.equal(seen.Seccomp, '2');
  });

  test('it holds only stdin, stdout, stderr and its own eventfd, and no environment but the time zone', () => {
    assert.deepEqual(readdirSync(`/proc/${sandbox}/fd`).sort(), ['0', '1', '2', '3']);
    // stdin and stdout are one socket to the gateway; stderr goes nowhere.
    const [input, output, errors, wake] = ['0', '1', '2', '3'].map((fd) => readlinkSync(`/proc/${sandbox}/fd/${fd}`));
    assert.match(input, /^socket:\[\d+\]$/);
    assert.equal(output, input);
    assert.equal(errors, '/dev/null');
    assert.equal(wake, 'anon_inode:[eventfd]');
    const environment = readFileSync(`/proc/${sandbox}/environ`, 'utf8').split('\0').filter(Boolean);
    assert.ok(environment.length <= 1 && environment.every((entry) => entry.startsWith('TZ=')), environment.join(' '));
  });

  test('it has two threads, its main thread and one executor, and can start no other', () => {
    assert.equal(status(sandbox).Threads, '2');
  });

  test('its limits: an hour of CPU, data and address-space ceilings, 16 descriptors, no processes, no core files', () => {
    const seen = limits(sandbox);
    assert.deepEqual(seen['Max cpu time'], [3600, 3605]);
    assert.deepEqual(seen['Max open files'], [16, 16]);
    assert.deepEqual(seen['Max processes'], [0, 0]);
    assert.deepEqual(seen['Max core file size'], [0, 0]);
    const [data, dataHard] = seen['Max data size'];
    const [space, spaceHard] = seen['Max address space'];
    assert.equal(data, dataHard);
    assert.equal(space, spaceHard);
    // The data limit the addon passed (its third argument: every VM the process may hold
    // at the session's memory limit) beyond what the process held when it locked down (at
    // most what it holds now), and 1 GiB more of address space.
    const given = Number(readFileSync(`/proc/${sandbox}/cmdline`, 'utf8').split('\0')[3]);
    assert.ok(given >= 64 * 64 * 2 ** 20, `the data limit passed: ${given}`);
    const heldNow = Number(status(sandbox).VmData.split(/\s+/)[0]) * 1024;
    assert.ok(data > given && data - given <= heldNow, `data ${data}, given ${given}, held now ${heldNow}`);
    assert.ok(space - data >= GiB, `address space ${space}, data ${data}`);
  });
});

describe('the sandbox command line', { skip: !linux }, () => {
  let folder;
  before(() => (folder = mkdtempSync(join(tmpdir(), 'codemode-jail-'))));
  after(() => rmSync(folder, { recursive: true, force: true }));

  test('a data limit given to the sandbox is its data ceiling beyond what it held', async () => {
    const gateway = await startGateway({ CODEMODE_NATIVE_SANDBOX: wrappedSandbox(folder, 0, GiB) });
    try {
      const sandbox = theSandbox(gateway);
      const [data] = limits(sandbox)['Max data size'];
      const heldNow = Number(status(sandbox).VmData.split(/\s+/)[0]) * 1024;
      assert.ok(data > GiB && data - GiB <= heldNow, `data ${data}, held now ${heldNow}`);
    } finally {
      await stopGateway(gateway);
    }
  });

  test('a sandbox told its parent is another process ends at once', async () => {
    // Pid 1 is never the child gateway: the sandbox sees a parent it was not told.
    const gateway = startFixture('jail-gateway.mjs', [], { CODEMODE_NATIVE_SANDBOX: wrappedSandbox(folder, 1, 0) }, { input: true });
    try {
      const first = await gateway.firstLine;
      assert.equal(first.status, 'failed');
      assert.match(first.error, /sandbox process exited with status 0/);
    } finally {
      await stopGateway(gateway);
    }
  });

  test('a sandbox told its real parent serves', async () => {
    const gateway = await startGateway({ CODEMODE_NATIVE_SANDBOX: wrappedSandbox(folder, '"$PPID"', 0) });
    await stopGateway(gateway);
  });
});

/** Compiles the injector into a temporary folder; a reason to skip when it cannot run here. */
function buildInjector() {
  if (!linux || process.arch !== 'x64') return { skip: 'the injector is for x86_64 Linux' };
  const folder = mkdtempSync(join(tmpdir(), 'codemode-inject-'));
  const path = join(folder, 'inject');
  const built = spawnSync('cc', ['-O1', '-o', path, join(here, 'fixtures', 'inject.c')], { encoding: 'utf8' });
  if (built.error || built.status !== 0) rmSync(folder, { recursive: true, force: true });
  if (built.error) return { skip: `no C compiler: ${built.error.message}` };
  assert.equal(built.status, 0, built.stderr);
  return { folder, path };
}

// x86_64 system call numbers and the arguments the cases use.
const SYS = { socket: 41, clone: 56, fork: 57, vfork: 58, execve: 59, kill: 62, ptrace: 101, tgkill: 234, openat: 257, clone3: 435 };
const [AF_INET, SOCK_STREAM, SIGCHLD, PTRACE_ATTACH, AT_FDCWD, EACCES] = [2, 1, 17, 16, -100, 13];

const injector = buildInjector();

describe('system calls injected into a jailed sandbox with ptrace', { skip: injector.skip ?? false }, () => {
  let gateway;
  before(async () => (gateway = await startGateway()));
  after(async () => {
    await stopGateway(gateway);
    rmSync(injector.folder, { recursive: true, force: true });
  });

  /**
   * Makes system call `nr` in a fresh sandbox of the gateway (`args` may name the
   * gateway's and the sandbox's pids by function); the outcome, or null when ptrace is
   * refused here (the test is then skipped).
   */
  async function inject(t, nr, ...args) {
    const fresh = await gateway.ask({ fresh: true });
    assert.equal(fresh.value, 'served');
    const sandbox = theSandbox(gateway);
    const pids = { gateway: gateway.child.pid, sandbox };
    const argv = args.map((arg) => String(typeof arg === 'function' ? arg(pids) : arg));
    const run = spawnSync(injector.path, [String(sandbox), String(nr), ...argv], { encoding: 'utf8' });
    if (run.status === 3) {
      t.skip(`ptrace refused: ${run.stderr.trim()}`);
      return null;
    }
    assert.equal(run.status, 0, run.stderr);
    return { sandbox, outcome: JSON.parse(run.stdout) };
  }

  /** The attacked sandbox is gone and the gateway, alive, serves the next cell. */
  async function killedAndServed(sandbox) {
    assert.ok(await until(() => !alive(sandbox)), `sandbox ${sandbox} outlived its signal`);
    assert.ok(alive(gateway.child.pid), 'the gateway is alive');
    // A cell sent before the gateway saw the death would be lost with the sandbox.
    await eventually(async () => (await gateway.ask({ stats: true })).sandboxes === 0, 'the gateway saw its sandbox end');
    const next = await gateway.ask({ code: 'return 7' });
    assert.equal(next.value, 7, JSON.stringify(next));
  }

  const gatewayPid = ({ gateway: pid }) => pid;
  const sandboxPid = ({ sandbox: pid }) => pid;
  const forbidden = {
    'socket(AF_INET, SOCK_STREAM)': [SYS.socket, AF_INET, SOCK_STREAM, 0],
    'execve("/bin/sh")': [SYS.execve, 's:/bin/sh', 0, 0],
    'kill(gateway, SIGKILL)': [SYS.kill, gatewayPid, SIGKILL],
    'tgkill(gateway, gateway, SIGKILL)': [SYS.tgkill, gatewayPid, gatewayPid, SIGKILL],
    'ptrace(PTRACE_ATTACH, gateway)': [SYS.ptrace, PTRACE_ATTACH, gatewayPid, 0, 0],
    'clone(SIGCHLD)': [SYS.clone, SIGCHLD, 0, 0, 0, 0],
    'clone3()': [SYS.clone3, 0, 0],
    'fork()': [SYS.fork],
    'vfork()': [SYS.vfork],
  };
  for (const [call, [nr, ...args]] of Object.entries(forbidden)) {
    test(`${call} kills the sandbox with SIGSYS; the gateway lives and serves on`, async (t) => {
      const injected = await inject(t, nr, ...args);
      if (!injected) return;
      assert.deepEqual(injected.outcome, { signal: SIGSYS });
      await killedAndServed(injected.sandbox);
    });
  }

  test('openat("/etc/passwd") fails with EACCES and the sandbox serves on', async (t) => {
    const injected = await inject(t, SYS.openat, AT_FDCWD, 's:/etc/passwd', 0);
    if (!injected) return;
    assert.deepEqual(injected.outcome, { returned: -EACCES });
    const next = await gateway.ask({ code: 'return 8' });
    assert.equal(next.value, 8);
    assert.equal(theSandbox(gateway), injected.sandbox, 'the same sandbox served');
  });

  test('tgkill to its own thread is allowed: signal 0 returns 0', async (t) => {
    const injected = await inject(t, SYS.tgkill, sandboxPid, sandboxPid, 0);
    if (!injected) return;
    assert.deepEqual(injected.outcome, { returned: 0 });
    assert.equal((await gateway.ask({ code: 'return 9' })).value, 9);
    assert.equal(theSandbox(gateway), injected.sandbox, 'the same sandbox served');
  });

  test('tgkill to its own thread delivers: SIGABRT ends the sandbox as abort() does', async (t) => {
    const injected = await inject(t, SYS.tgkill, sandboxPid, sandboxPid, SIGABRT);
    if (!injected) return;
    assert.deepEqual(injected.outcome, { signal: SIGABRT });
    await killedAndServed(injected.sandbox);
  });
});

test('a stopped sandbox, deaf to its input, dies with its SIGKILLed gateway', { skip: !linux }, async () => {
  const gateway = await startGateway();
  const sandbox = theSandbox(gateway);
  try {
    // A stopped process never reads the end of its input: only the parent-death signal
    // (SIGKILL, which a stopped process still takes) can end it.
    process.kill(sandbox, 'SIGSTOP');
    assert.ok(await until(() => readFileSync(`/proc/${sandbox}/stat`, 'utf8').split(') ')[1]?.[0] === 'T'), 'the sandbox stopped');
    await stopGateway(gateway);
    assert.ok(await until(() => !alive(sandbox)), `sandbox ${sandbox} outlived its gateway`);
  } finally {
    if (alive(sandbox)) process.kill(sandbox, 'SIGKILL');
  }
});
