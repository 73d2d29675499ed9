// Durable runs across real gateway processes killed with SIGKILL (fixtures/durable-gateway.mjs,
// one SQLite file): a run parked by a killed gateway is resolved and resumed here without
// its earlier calls running again; a payment in flight when its gateway died is never made
// again (the guest hears its effect is unknown) while a replaySafe read is, with the same
// callId, once the dead gateway's claim on the run has ended; a gateway killed during a
// resume or during resolveCall leaves the run whole; two gateways resuming one run at once
// run it once. A payment still running in a live gateway after its run parked is waited
// for by the gateway that takes the run over, and lost only once that gateway dies.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CodeModeSession, native } from './_helpers.mjs';
import { startFixture } from './_processes.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemode-durable-crash-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const keys = [{ id: 'k1', key: Buffer.alloc(32, 7) }];
let runs = 0;

/** A session here, on the gateways' file and key, whose tools log their calls. */
function here(db, sessionId, lookup = () => ({ found: 1 })) {
  const store = native.sqliteRunStore(db);
  const calls = [];
  const session = new CodeModeSession({
    sessionId,
    tools: [
      { name: 'echo', description: 'Echoes.', execute: (input) => (calls.push(['echo', input]), { echo: input }) },
      { name: 'ask', description: 'Asks a person.', execute: (input, ctx) => (calls.push(['ask', input]), ctx.suspend({ question: input })) },
      { name: 'pay', description: 'Pays.', execute: (input) => (calls.push(['pay', input]), 'paid twice') },
      { name: 'lookup', description: 'Reads.', replaySafe: true, execute: (input, ctx) => (calls.push(['lookup', ctx.callId]), lookup()) },
    ],
    durableRuns: { store, keys },
    limits: { timeoutMs: 1000 },
  });
  return {
    session,
    calls,
    async close() {
      await session.close();
      await store.close();
    },
  };
}

/** Starts a gateway in `mode`, waits for its report, and kills it with SIGKILL. */
async function killedAfter(db, sessionId, mode, ...args) {
  const gateway = startFixture('durable-gateway.mjs', [db, sessionId, mode, ...args]);
  const report = await gateway.firstLine;
  gateway.child.kill('SIGKILL');
  const { signal } = await gateway.exit;
  assert.equal(signal, 'SIGKILL');
  return report;
}

test('a run parked by a gateway killed after the park is resolved and resumed here; its earlier calls do not run again', async () => {
  const db = path.join(dir, `park-${++runs}.db`);
  const id = `crash-park-${runs}`;
  const parked = await killedAfter(db, id, 'park');
  assert.equal(parked.status, 'waiting');
  assert.equal(parked.calls.length, 3, 'two echoes and the approval ran there');
  const gateway = here(db, id);
  assert.equal(await gateway.session.resolveCall({ runId: parked.runId, callId: parked.callId, value: true }), 'resolved');
  const done = await gateway.session.wait({ runId: parked.runId });
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.deepEqual(done.value, { sum: 3, approved: true, after: true });
  assert.deepEqual(gateway.calls, [['echo', { approved: true }]]);
  await gateway.close();
});

test('a payment in flight when its gateway was killed is not made again; a replaySafe read is, with its callId', async () => {
  const db = path.join(dir, `pay-${++runs}.db`);
  const id = `crash-pay-${runs}`;
  const inFlight = await killedAfter(db, id, 'pay');
  const gateway = here(db, id);
  // The killed gateway claimed the run for its turn (timeoutMs and a grace): until the claim
  // ends, a wait is refused, saying so; then it resumes.
  const done = await waitPastClaims(gateway.session, inFlight.runId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.value.paid.code, 'tool_error');
  assert.equal(done.value.paid.effectStatus, 'unknown');
  assert.match(done.value.paid.message, /may or may not have taken effect\. Check its effect before calling it again\./);
  assert.deepEqual(done.value.found, { found: 1 });
  assert.deepEqual(gateway.calls, [['lookup', inFlight.lookup]], 'the read ran again with its callId; the payment did not');
  await gateway.close();
});

test('two gateways resuming one run at once: exactly one runs it, the other gets a clear answer and runs nothing', async () => {
  const db = path.join(dir, `race-${++runs}.db`);
  const id = `crash-race-${runs}`;
  const parked = await killedAfter(db, id, 'park');
  const resolver = here(db, id);
  assert.equal(await resolver.session.resolveCall({ runId: parked.runId, callId: parked.callId, value: 'go' }), 'resolved');
  await resolver.close();
  const racers = [0, 1].map(() => startFixture('durable-gateway.mjs', [db, id, 'wait', parked.runId]));
  const results = await Promise.all(racers.map((racer) => racer.firstLine));
  await Promise.all(racers.map((racer) => racer.exit));
  const completed = results.filter((result) => result.status === 'completed');
  assert.equal(completed.length, 1, JSON.stringify(results));
  assert.deepEqual(completed[0].value, { sum: 3, approved: 'go', after: 'go' });
  const other = results.find((result) => result.status !== 'completed');
  assert.equal(other.status, 'failed', JSON.stringify(results));
  assert.equal(other.code, 'invalid_input', JSON.stringify(results));
  assert.match(other.error, /already being resumed by another gateway process|unavailable or expired/);
  assert.equal(results.flatMap((result) => result.calls).length, 1, 'the call after the approval ran once in all');
});

/** Waits the run until no killed gateway's claim holds it any more (each refusal says so). */
async function waitPastClaims(session, runId) {
  let done = await session.wait({ runId });
  while (done.status === 'failed' && /already being resumed/.test(done.error)) {
    assert.match(done.error, /If that process stopped, its claim ends within \d+ ms; wait again then\.$/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    done = await session.wait({ runId });
  }
  return done;
}

test('a gateway killed during a resume, after its payment started: the next one never pays again', async () => {
  const db = path.join(dir, `resume-${++runs}.db`);
  const id = `crash-resume-${runs}`;
  const parked = await killedAfter(db, id, 'park-pay');
  const resolver = here(db, id);
  assert.equal(await resolver.session.resolveCall({ runId: parked.runId, callId: parked.callId, value: true }), 'resolved');
  await resolver.close();
  const resumed = await killedAfter(db, id, 'resume', parked.runId);
  assert.equal(resumed.runId, parked.runId);
  const gateway = here(db, id);
  const done = await waitPastClaims(gateway.session, parked.runId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.value, 'unknown', 'the payment made by the killed gateway is reported, not made again');
  assert.deepEqual(gateway.calls, []);
  await gateway.close();
});

test('a gateway killed during resolveCall: the call is resolved once, by it or by the next resolve', async () => {
  const db = path.join(dir, `resolve-${++runs}.db`);
  const id = `crash-resolve-${runs}`;
  const parked = await killedAfter(db, id, 'park');
  await killedAfter(db, id, 'resolve', parked.runId, parked.callId);
  const gateway = here(db, id);
  const answer = await gateway.session.resolveCall({ runId: parked.runId, callId: parked.callId, value: 'from here' });
  assert.ok(answer === 'resolved' || answer === 'already_resolved', answer);
  const done = await waitPastClaims(gateway.session, parked.runId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const approved = answer === 'resolved' ? 'from here' : 'from the killed gateway';
  assert.deepEqual(done.value, { sum: 3, approved, after: approved });
  assert.deepEqual(gateway.calls, [['echo', { approved }]]);
  await gateway.close();
});

/** Waits the run, again while it waits only for a call another gateway runs. */
async function waitWhileHeld(session, runId, callId) {
  let done = await waitPastClaims(session, runId);
  while (done.status === 'waiting') {
    assert.deepEqual(done.pendingToolCalls.map((call) => [call.id, call.external ?? false]), [[callId, false]], JSON.stringify(done));
    await new Promise((resolve) => setTimeout(resolve, 100));
    done = await waitPastClaims(session, runId);
  }
  return done;
}

test('a payment still running in a live gateway is waited for by the gateway that took its run, which gets its outcome', async () => {
  const db = path.join(dir, `held-${++runs}.db`);
  const id = `crash-held-${runs}`;
  const first = startFixture('durable-gateway.mjs', [db, id, 'held-pay'], {}, { input: true });
  const parked = await first.firstLine;
  assert.equal(parked.status, 'waiting', JSON.stringify(parked));
  assert.equal(parked.pays, 1);
  const gateway = here(db, id);
  const waiting = await waitPastClaims(gateway.session, parked.runId);
  assert.equal(waiting.status, 'waiting', 'the payment is not reported lost while its gateway runs it: ' + JSON.stringify(waiting));
  assert.deepEqual(waiting.pendingToolCalls.map((call) => call.id), [parked.callId]);
  first.child.stdin.write('go\n');
  const done = await waitWhileHeld(gateway.session, parked.runId, parked.callId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.deepEqual(done.value, { paid: parked.callId, after: 1 }, 'the first gateway recorded what its payment answered');
  assert.deepEqual(gateway.calls, [['echo', { n: 1 }]], 'the payment was not made here');
  first.child.kill('SIGKILL');
  await first.exit;
  await gateway.close();
});

test('a payment still running when its gateway is killed after the park reads unknown once its hold lapses, and is not made again', async () => {
  const db = path.join(dir, `held-killed-${++runs}.db`);
  const id = `crash-held-killed-${runs}`;
  const parked = await killedAfter(db, id, 'held-pay');
  assert.equal(parked.status, 'waiting');
  // A note that does not open (tampered here) is left out: it neither answers the call
  // nor keeps it held.
  const raw = native.sqliteRunStore(db);
  const noteKey = `${parked.callId}#held`;
  const current = await raw.get(noteKey);
  const forged = await raw.put(noteKey, Buffer.from('{"o":{"k":true,"v":"\\"forged\\""}}'), { expectVersion: current?.version ?? null, ttlSeconds: 60 });
  assert.equal(forged.ok, true);
  await raw.close();
  const gateway = here(db, id);
  const done = await waitWhileHeld(gateway.session, parked.runId, parked.callId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.deepEqual(done.value, { paid: 'unknown', after: 1 });
  assert.deepEqual(gateway.calls, [['echo', { n: 1 }]]);
  await gateway.close();
});
