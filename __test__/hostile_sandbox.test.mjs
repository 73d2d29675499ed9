// A hostile sandbox process (`isolation: "process"`): a fake sandbox (fixtures/hostile-sandbox.mjs)
// relays between the gateway and the real sandbox and, for the one cell marked
// /*HOSTILE:<class>*/, attacks the gateway over the pipe. Each attack runs in its own child
// gateway (fixtures/hostile-gateway.mjs), so a crash of the gateway shows up as a signal and
// a hang as the guard's kill. The gateway must kill that sandbox and lose only its run: other
// sessions are served during the attack, memory stays bounded, the main thread never blocks,
// and the session's next cell gets a fresh sandbox.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADDON_PATH } from './_helpers.mjs';
import { alive, startChild, until } from './_processes.mjs';
import { fakeLogs, fakeSandbox, hostileFake, summary } from './fixtures/hostile-log.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const REAL_SANDBOX = join(here, '..', 'codemode-sandbox');
const GATEWAY = join(here, 'fixtures', 'hostile-gateway.mjs');
// Every gateway here forces process isolation, so the thread-mode pass of `npm test` (where
// the bystander thread session runs anyway) would only repeat the process-mode one.
const skip =
  (process.platform !== 'linux' && 'Linux only: the harness reads /proc and uses setpriv') ||
  (process.env.CODEMODE_NATIVE_ISOLATION === 'thread' && 'runs in the process-mode pass of npm test');
/** Far beyond the sum of the child's own caps that a failing build can reach. */
const CHILD_CAP = 480_000;

/** Runs the gateway fixture in `mode`, through the fake sandbox unless `viaFake` is false. */
async function runGateway(mode, { viaFake = true } = {}) {
  assert.ok(existsSync(REAL_SANDBOX), `the real sandbox is missing (${REAL_SANDBOX}): npm run build`);
  const sandbox = viaFake ? fakeSandbox('codemode-hostile-') : null;
  const { child, firstLine, exit } = startChild(GATEWAY, [ADDON_PATH, mode, sandbox?.dir ?? ''], {
    env: { CODEMODE_NATIVE_ISOLATION: 'process', CODEMODE_NATIVE_SANDBOX: sandbox?.wrapper },
    capMs: CHILD_CAP,
  });
  const ended = await exit;
  const seen = await firstLine.catch(() => null);
  // Every sandbox the gateway started, fake or real, ends with it: none is orphaned.
  const pids = sandbox ? fakeLogs(sandbox.dir).flatMap((log) => [log.pid, log.realPid]).filter(Boolean) : [];
  const orphans = (await until(() => pids.every((pid) => !alive(pid)))) ? [] : pids.filter(alive);
  for (const pid of orphans) process.kill(pid, 'SIGKILL');
  return { seen, ended, dir: sandbox?.dir, gatewayPid: child.pid, orphans };
}

/** What a failed run of the child says: how it ended, where it was, what the fakes did. */
function diagnose(mode, { seen, ended, dir }) {
  const how = ended.guarded
    ? `hung: ${mode} (killed by the guard); threads: ${ended.threads?.join(' ')}`
    : seen?.mainThreadBlocked
      ? `hung: ${mode} (the gateway's main thread stopped ticking)`
      : ended.signal
        ? `crashed: ${mode} (${ended.signal})`
        : `exited: ${mode} (status ${ended.code})`;
  const steps = ended.err.split('\n').filter((line) => line.startsWith('hostile-gateway:')).slice(-4).join(' | ');
  const other = ended.err.split('\n').filter((line) => line && !line.startsWith('hostile-gateway:')).slice(-10).join('\n');
  const fakes = dir ? fakeLogs(dir).map(summary) : [];
  const growth = seen?.rss ? `${seen.rss.growthMiB.toFixed(1)} MiB` : 'not measured';
  const hostile = seen?.hostile ? JSON.stringify(seen.hostile) : 'not settled';
  return `${how}\nhostile cell: ${hostile}\nRSS growth: ${growth}\nlast steps: ${steps}\nreport: ${JSON.stringify(seen)}\nfakes: ${JSON.stringify(fakes)}\nstderr: ${other}`;
}

const KILLED = /code mode sandbox process .* and was killed; this run is lost/;
const ENDED = /code mode sandbox process (crashed|exited) .*; this run is lost/;

/** The facts every attack is judged on, from the child's report and the fake's log. */
function verdict(attack, run) {
  const { seen, ended, dir, gatewayPid, orphans } = run;
  const fake = hostileFake(dir);
  const has = (event) => Boolean(fake?.has(event));
  const delivered = {
    'attack-reached-the-fake': has('marked') && fake.ppid === gatewayPid,
    'attack-delivered': attack.startsWith('deaf') ? has('began') && seen?.bigCalls > 0 : ['silent', 'lingering'].includes(attack) ? has('began') : has('began') && has('delivering'),
  };
  const hostile = seen?.hostile ?? { settled: false };
  const wording =
    attack === 'exit'
      ? KILLED.test(hostile.error) || ENDED.test(hostile.error)
      : KILLED.test(hostile.error) && !(['silent', 'lingering'].includes(attack) && /deadline/.test(hostile.error));
  // Attacks that wait for the fixture's go cannot be answered before the bystanders run.
  const heldUntilGo = !['deaf', 'deaf-close', 'silent', 'lingering'].includes(attack);
  return {
    gateway: { code: ended.code, signal: ended.signal, hung: ended.guarded || Boolean(seen?.mainThreadBlocked) },
    memoryEmergency: Boolean(seen?.emergency),
    ...delivered,
    'hostile-cell': { settled: hostile.settled, status: hostile.status, code: hostile.code, wording },
    'hostile-sandbox-gone': seen?.hostileGone ?? null,
    'bystanders-mid-run': Boolean(seen?.bystandersMidRun) && (!heldUntilGo || seen?.hostileSettledBeforeBystanders === false),
    bystanders: { process: seen?.bystanders?.process?.value ?? null, thread: seen?.bystanders?.thread?.value ?? null },
    'main-thread-ticking': Boolean(seen?.ticking),
    'rss-growth-under-64MiB': seen?.rss ? seen.rss.growthMiB < 64 : null,
    next: seen?.next ? { status: seen.next.status, value: seen.next.value } : null,
    'fresh-sandbox': seen?.freshSandbox ?? null,
    'sandbox-calls-outside-a-command-ran-a-tool': (seen?.noteCalls ?? 0) > 0,
    'sessions-closed': seen?.closed ?? null,
    orphans,
  };
}

const HEALTHY = {
  gateway: { code: 0, signal: null, hung: false },
  memoryEmergency: false,
  'attack-reached-the-fake': true,
  'attack-delivered': true,
  'hostile-cell': { settled: true, status: 'failed', code: 'internal_error', wording: true },
  'hostile-sandbox-gone': true,
  'bystanders-mid-run': true,
  bystanders: { process: 2, thread: 3 },
  'main-thread-ticking': true,
  'rss-growth-under-64MiB': true,
  next: { status: 'completed', value: { next: true } },
  'fresh-sandbox': true,
  'sandbox-calls-outside-a-command-ran-a-tool': false,
  'sessions-closed': true,
  orphans: [],
};

/** Runs the gateway fixture (`runGateway`), hands the run to `check`, and removes its folder. */
async function withGateway(mode, options, check) {
  const run = await runGateway(mode, options);
  try {
    await check(run);
  } finally {
    if (run.dir) rmSync(run.dir, { recursive: true, force: true });
  }
}

// The figures behind each verdict go to the test's diagnostics (the bound is 64 MiB).
const survives = (attack, t) =>
  withGateway(attack, {}, (run) => {
    t?.diagnostic(`${attack}: RSS growth ${run.seen?.rss?.growthMiB?.toFixed(1)} MiB; hostile cell: ${run.seen?.hostile?.error}`);
    assert.deepEqual(verdict(attack, run), HEALTHY, diagnose(attack, run));
  });

/** A result without what differs between runs (ids, durations, timings). */
const comparable = (r) =>
  r && {
    status: r.status,
    value: r.value,
    code: r.code,
    error: r.error,
    reason: r.reason,
    output: r.output,
    calls: r.telemetry?.callCount,
    nestedCalls: r.nestedCalls?.map(({ toolName, callableName, status, inputPreview, outputPreview, error }) => ({
      toolName,
      callableName,
      status,
      inputPreview,
      outputPreview,
      error,
    })),
  };

test('an ordinary cell gives the same results through the relaying fake sandbox as through the real one', { skip }, async () => {
  const direct = await runGateway('relay', { viaFake: false });
  await withGateway('relay', {}, (relayed) => {
    assert.equal(direct.ended.code, 0, diagnose('relay', direct));
    assert.equal(relayed.ended.code, 0, diagnose('relay', relayed));
    assert.equal(direct.seen.first.status, 'waiting', JSON.stringify(direct.seen.first));
    assert.equal(direct.seen.first.reason, 'yield');
    assert.equal(direct.seen.final.status, 'completed', JSON.stringify(direct.seen.final));
    const { found, refused, ...sums } = direct.seen.final.value;
    assert.deepEqual(sums, { a: 5, b: 6, c: 30, late: 101 });
    assert.equal(found, 1);
    assert.match(refused, /add/);
    assert.deepEqual(comparable(relayed.seen.first), comparable(direct.seen.first));
    assert.deepEqual(comparable(relayed.seen.final), comparable(direct.seen.final));
    // The fake really stood between them: the gateway's own child, relaying both ways.
    const [fake, ...more] = fakeLogs(relayed.dir);
    assert.equal(more.length, 0, 'one sandbox for the one session');
    assert.equal(fake.ppid, relayed.gatewayPid);
    assert.ok(fake.realPid > 0);
    const kinds = summary(fake).counts;
    assert.ok(kinds['up:Run'] >= 3 && kinds['down:Bridge'] >= 4 && kinds['down:Done'] >= 3, JSON.stringify(kinds));
    assert.equal(fake.has('marked'), false);
    assert.deepEqual(relayed.orphans, []);
  });
});

test('a sandbox that sends random bytes is killed, and only its run is lost', { skip }, (t) => survives('garbage-random', t));
test('a sandbox that sends a length header over the frame limit is killed, and only its run is lost', { skip }, (t) => survives('garbage-length', t));
test('a sandbox that sends a frame of broken JSON is killed, and only its run is lost', { skip }, (t) => survives('garbage-json', t));
test('a sandbox that speaks for VMs that do not exist is killed, and only its run is lost', { skip }, (t) => survives('garbage-vm', t));
test('a sandbox that says Ready a second time is killed, and only its run is lost', { skip }, (t) => survives('ready-twice', t));
test('a sandbox that sends JSON nested 100 000 deep is killed, and only its run is lost', { skip }, (t) => survives('garbage-nested', t));
test('a sandbox that announces a 1 GiB frame and trickles it is killed, and only its run is lost', { skip }, (t) => survives('oversize-trickle', t));
test('a sandbox that sends a valid 128 MiB frame is killed, and only its run is lost', { skip }, (t) => survives('oversize-frame', t));
test('a sandbox that floods Done answers nobody asked for is killed, and only its run is lost', { skip }, (t) => survives('unasked-done', t));
test('a sandbox that floods bridge requests while no command runs is killed without running a tool', { skip }, (t) => survives('unasked-bridge', t));
test('a sandbox that floods calls of an unknown 1 MiB tool name and never finishes is killed, the refusals bounded', { skip }, (t) => survives('refusals', t));
test('a sandbox that stops reading while the gateway writes 8 MiB is killed, and the main thread never blocks', { skip }, (t) => survives('deaf', t));
test('a sandbox that reads everything and answers nothing is killed before the run deadline', { skip }, (t) => survives('silent', t));
test('a sandbox that keeps a command open forever once its guest calls a tool is killed before the run deadline', { skip }, (t) => survives('lingering', t));
test('a sandbox whose Done claims host replies the gateway never sent is killed, and only its run is lost', { skip }, (t) => survives('miscount', t));
test('a sandbox that floods tool calls in an open command and reads none of the answers is killed, the answers bounded', { skip }, (t) => survives('apply-flood', t));
test('a sandbox that exits in the middle of a frame loses only its run', { skip }, (t) => survives('exit', t));

test('closing a session whose sandbox stopped reading returns, ends the sandbox and blocks nothing', { skip }, () =>
  withGateway('deaf-close', {}, (run) => {
    const { seen } = run;
    const all = verdict('deaf-close', run);
    const cell = all['hostile-cell'];
    assert.deepEqual(
      {
        gateway: all.gateway,
        'attack-delivered': all['attack-delivered'],
        'close-returned': seen?.closeReturned ?? null,
        close: seen?.close ?? null,
        // Closed while it ran: aborted, or lost with its sandbox.
        'hostile-cell': { settled: cell.settled, status: cell.status, code: ['aborted', 'internal_error'].includes(cell.code) },
        'hostile-sandbox-gone': all['hostile-sandbox-gone'],
        bystanders: all.bystanders,
        'main-thread-ticking': all['main-thread-ticking'],
        'rss-growth-under-64MiB': all['rss-growth-under-64MiB'],
        orphans: run.orphans,
      },
      {
        gateway: { code: 0, signal: null, hung: false },
        'attack-delivered': true,
        'close-returned': true,
        close: 'resolved',
        'hostile-cell': { settled: true, status: 'failed', code: true },
        'hostile-sandbox-gone': true,
        bystanders: { process: 2, thread: 3 },
        'main-thread-ticking': true,
        'rss-growth-under-64MiB': true,
        orphans: [],
      },
      diagnose('deaf-close', run),
    );
  }));
