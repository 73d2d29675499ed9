// Suspension and resume: waiting, wait, the run store, timers, yield, abort, close,
// restartSafe and headless scripts (docs/contract.md: Guest runtime, Tool calls and ids,
// Suspension and wait, Headless scripts and restart-safe cells).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeSession, closeAll, run, show, sleep, neverTool, drain, native, eventually, deferred, heldTool } from './_helpers.mjs';
import { sandboxChildren } from './_processes.mjs';

const { runCodeModeScript } = native;
const UNAVAILABLE = 'code mode run is unavailable or expired.';
const ABORTED = 'code mode execution aborted';

after(closeAll);

function slowTool(name, ms, value, counter) {
  return { name, execute: async () => { if (counter) counter.n++; await sleep(ms); return value; } };
}

function assertWaiting(r, reason = 'pending_tools') {
  assert.equal(r.status, 'waiting', show(r));
  assert.equal(r.reason, reason, show(r));
  assert.match(r.runId, /^cm_/, show(r));
}

function assertFailed(r, code, error) {
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, code, show(r));
  if (error !== undefined) assert.equal(r.error, error, show(r));
}

// ---------- yield_control ----------

test('yield_control parks the cell and wait resumes it with only the new output', async () => {
  const s = makeSession();
  const first = await run(s, 'text("before"); await yield_control("pause"); text("after"); return "done"');
  assertWaiting(first, 'yield');
  assert.deepEqual(first.output, [{ type: 'text', text: 'before' }]);
  const second = await s.wait({ runId: first.runId });
  assert.equal(second.status, 'completed', show(second));
  assert.equal(second.value, 'done');
  assert.deepEqual(second.output, [{ type: 'text', text: 'after' }]);
});

test('yield_control resolves to { status: "yielded", reason } after wait', async () => {
  const s = makeSession();
  const first = await run(s, 'const a = await yield_control("pause"); const b = await yield_control(); return [a, b]');
  assertWaiting(first, 'yield');
  const second = await s.wait({ runId: first.runId });
  assertWaiting(second, 'yield');
  assert.equal(second.runId, first.runId, 'a second yield keeps the same runId');
  const third = await s.wait({ runId: first.runId });
  assert.equal(third.status, 'completed', show(third));
  assert.deepEqual(third.value, [{ status: 'yielded', reason: 'pause' }, { status: 'yielded', reason: null }]);
});

// ---------- pending tools ----------

test('a tool slower than timeoutMs parks the cell and wait delivers its result', async () => {
  // The tool answers only once the exec has parked: slower than timeoutMs on any machine.
  const slow = heldTool('slow', 'slow result');
  const s = makeSession({ limits: { timeoutMs: 100 }, tools: [slow.tool] });
  const first = await run(s, 'return await slow()');
  assertWaiting(first, 'pending_tools');
  slow.release();
  assert.equal(first.pendingToolCalls?.length, 1, show(first));
  const [pending] = first.pendingToolCalls;
  // One id per call: the pending entry is the call's nestedCalls record.
  assert.match(pending.id, /^cm_[^:]+:1$/);
  assert.equal(pending.id, first.nestedCalls?.[0]?.callId, show(first));
  assert.equal(pending.method, 'tool');
  assert.equal(pending.toolName, 'slow');
  const last = await drain(s, first);
  assert.equal(last.status, 'completed', show(last));
  assert.equal(last.value, 'slow result');
  assert.equal(slow.calls, 1, 'the tool is never re-dispatched on resume');
});

test('pendingToolCalls lists only unsettled calls, and later waits drop settled ones', async () => {
  const events = [];
  const fast = heldTool('fast', 'f');
  const s = makeSession({ limits: { timeoutMs: 100 }, onEvent: (e) => events.push(e), tools: [fast.tool, neverTool('never')] });
  const first = await run(s, 'const a = fast(); const b = never(); return [await a, await b]');
  assertWaiting(first);
  // Neither call can have settled: fast answers only when released below.
  assert.deepEqual(first.pendingToolCalls.map((p) => p.toolName), ['fast', 'never'], JSON.stringify(first.pendingToolCalls));
  const records = new Map(first.nestedCalls.map((c) => [c.callId, c]));
  for (const p of first.pendingToolCalls) {
    assert.match(p.id, new RegExp('^' + first.runId + ':\\d+$'));
    assert.equal(records.get(p.id)?.toolName, p.toolName, JSON.stringify(first.nestedCalls));
    assert.equal(records.get(p.id)?.status, 'pending');
    assert.equal(p.method, 'tool');
  }
  fast.release();
  // tool_call_end is emitted as the result is handed to the parked run.
  await eventually(() => events.some((e) => e.type === 'tool_call_end' && e.callId === fast.contexts[0].callId), 'the fast call settled');
  const second = await s.wait({ runId: first.runId });
  assertWaiting(second);
  assert.equal(second.runId, first.runId);
  assert.deepEqual(second.pendingToolCalls.map((p) => p.toolName), ['never']);
  assert.equal(s.cancelRun(first.runId), true);
});

test('a nested call keeps its callId across waits and the finished run leaves the store', async () => {
  const slow = heldTool('slow', 's');
  const s = makeSession({ limits: { timeoutMs: 100 }, tools: [slow.tool] });
  const first = await run(s, 'return await slow()');
  assertWaiting(first);
  const [ctx] = slow.contexts;
  assert.equal(first.nestedCalls?.[0]?.status, 'pending', show(first));
  assert.equal(first.nestedCalls[0].callId, ctx.callId);
  assert.equal(first.pendingToolCalls?.[0]?.id, ctx.callId, 'pendingToolCalls uses the same id');
  assert.equal(ctx.runId, first.runId);
  slow.release();
  const last = await drain(s, first);
  assert.equal(last.status, 'completed', show(last));
  assert.equal(last.nestedCalls?.length, 1, JSON.stringify(last.nestedCalls));
  assert.equal(last.nestedCalls[0].callId, ctx.callId);
  assert.equal(last.nestedCalls[0].status, 'ok');
  assert.deepEqual(s.runs(), []);
});

test('onEvent reports waiting while parked and running again on resume', async () => {
  const events = [];
  const s = makeSession({ onEvent: (e) => events.push(e) });
  const first = await run(s, 'await yield_control(); return 1');
  assertWaiting(first, 'yield');
  assert.equal((await s.wait({ runId: first.runId })).status, 'completed');
  const ofRun = (e) => e.type === 'run_status' && e.runId === first.runId;
  await eventually(() => events.some((e) => ofRun(e) && e.status === 'completed'), 'run_status completed was delivered');
  const statuses = events.filter((e) => e.type === 'run_status' && e.runId === first.runId).map((e) => e.status);
  assert.deepEqual(statuses, ['running', 'waiting', 'running', 'completed']);
});

test('output and value share one maxOutputBytes budget across exec and wait', async () => {
  const s = makeSession({ limits: { maxOutputBytes: 1024 } });
  const hasMarker = (r) => (r.output ?? []).some((e) => e.type === 'json' && e.value?.truncated === true);
  // Control: 560 bytes of output after the wait fit the budget on their own.
  const alone = await s.wait({ runId: (await run(s, 'await yield_control(); text("b".repeat(560)); return 1')).runId });
  assert.deepEqual(alone.output, [{ type: 'text', text: 'b'.repeat(560) }], show(alone));
  const first = await run(s, 'text("a".repeat(450)); await yield_control(); text("b".repeat(560)); return 1');
  assertWaiting(first, 'yield');
  assert.deepEqual(first.output, [{ type: 'text', text: 'a'.repeat(450) }]);
  const second = await s.wait({ runId: first.runId });
  assert.equal(second.status, 'completed', show(second));
  assert.equal(second.value, 1);
  assert.ok(hasMarker(second), `after 450 bytes were delivered, 560 more no longer fit: ${show(second)}`);
});

// ---------- wait scope ----------

test('a concurrent wait on the same run fails with already being resumed', async () => {
  const s = makeSession({ limits: { timeoutMs: 100 }, tools: [neverTool()] });
  const first = await run(s, 'return await never()');
  assertWaiting(first);
  const [a, b] = await Promise.all([s.wait({ runId: first.runId }), s.wait({ runId: first.runId })]);
  const failed = [a, b].filter((r) => r.status === 'failed');
  assert.equal(failed.length, 1, `${show(a)} / ${show(b)}`);
  assertFailed(failed[0], 'invalid_input', 'code mode run is already being resumed.');
  assert.equal([a, b].find((r) => r.status !== 'failed').status, 'waiting');
  s.cancelRun(first.runId);
});

test('a session with another sessionId cannot wait on the run', async () => {
  const s = makeSession({ limits: { timeoutMs: 100 }, tools: [neverTool()] });
  const first = await run(s, 'return await never()');
  assertWaiting(first);
  const other = makeSession();
  assertFailed(await other.wait({ runId: first.runId }), 'invalid_input', 'code mode run belongs to a different session.');
  assert.equal(s.runs().length, 1, 'the run is still parked for its owner');
  s.cancelRun(first.runId);
});

test('a session with the same sessionId but another agentRunId cannot wait on the run', async () => {
  const sessionId = `scope-${process.pid}-agentrun`;
  const s = makeSession({ sessionId, agentRunId: 'agent-run-1', limits: { timeoutMs: 100 }, tools: [neverTool()] });
  const first = await run(s, 'return await never()');
  assertWaiting(first);
  const other = makeSession({ sessionId, agentRunId: 'agent-run-2' });
  assertFailed(await other.wait({ runId: first.runId }), 'invalid_input', 'code mode run belongs to a different agent run.');
  s.cancelRun(first.runId);
});

test('a session with another sessionKey cannot wait on the run', async () => {
  const sessionId = `scope-${process.pid}-key`;
  const s = makeSession({ sessionId, sessionKey: 'key-1', limits: { timeoutMs: 100 }, tools: [neverTool()] });
  const first = await run(s, 'return await never()');
  assertWaiting(first);
  const other = makeSession({ sessionId, sessionKey: 'key-2' });
  assertFailed(await other.wait({ runId: first.runId }), 'invalid_input', 'code mode run belongs to a different session.');
  s.cancelRun(first.runId);
});

test('waiting on an unknown runId fails with unavailable or expired', async () => {
  const s = makeSession();
  assertFailed(await s.wait({ runId: 'cm_0123456789abcdef01234567' }), 'invalid_input', UNAVAILABLE);
});

test('a blank runId is rejected as invalid input', async () => {
  const s = makeSession();
  for (const input of [{ runId: '' }, { runId: '   ' }, {}, { runId: 7 }]) {
    assertFailed(await s.wait(input), 'invalid_input', 'runId must be a non-empty string.');
  }
});

test('wait accepts the run_id alias', async () => {
  const s = makeSession();
  const first = await run(s, 'await yield_control(); return "resumed"');
  assertWaiting(first, 'yield');
  const r = await s.wait({ run_id: `  ${first.runId} ` });
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 'resumed');
});

test('a completed run cannot be waited on again', async () => {
  const s = makeSession();
  const first = await run(s, 'await yield_control(); return 1');
  assert.equal((await s.wait({ runId: first.runId })).status, 'completed');
  assertFailed(await s.wait({ runId: first.runId }), 'invalid_input', UNAVAILABLE);
});

// ---------- expiry and snapshot size ----------

test('a parked run expires after snapshotTtlSeconds and its pending call is aborted', async () => {
  let signal;
  const s = makeSession({ limits: { timeoutMs: 100, snapshotTtlSeconds: 1 }, tools: [neverTool('never', (ctx) => { signal = ctx.signal; })] });
  const first = await run(s, 'return await never()');
  assertWaiting(first);
  assert.equal(signal.aborted, false);
  await eventually(() => s.runs().length === 0, 'the parked run expired');
  assertFailed(await s.wait({ runId: first.runId }), 'invalid_input', UNAVAILABLE);
  await eventually(() => signal.aborted, 'ctx.signal of the expired call is aborted');
  assert.deepEqual(s.runs(), []);
});

test('a parked size over maxSnapshotBytes fails with snapshot_limit_exceeded and parks nothing', async () => {
  const s = makeSession({ limits: { timeoutMs: 100, maxSnapshotBytes: 1024 }, tools: [neverTool('slow')] });
  const r = await run(s, 'const big = "x".repeat(100000); const v = await slow(); return big.length + v');
  assertFailed(r, 'snapshot_limit_exceeded', 'code mode snapshot limit exceeded');
  assert.deepEqual(s.runs(), []);
});

// ---------- state across a wait ----------

test('closures, iterators, URLSearchParams and pending timers survive a wait', async () => {
  // The tool answers once the run has parked; the cell's last timer starts after that
  // answer and is longer than the first timer, so the first one has fired by then.
  const slow = heldTool('slow', 'ok');
  const s = makeSession({ limits: { timeoutMs: 100 }, tools: [slow.tool] });
  const first = await run(s, `
    let n = 0; const inc = () => ++n;
    function* gen() { yield "a"; yield "b"; yield "c"; }
    const it = gen();
    const params = new URLSearchParams("q=1&r=two");
    const fired = [];
    setTimeout((x) => fired.push(x), 400, "timer-arg");
    const state = () => ({ n, params: params.toString(), size: [...params.keys()].length, fired: [...fired] });
    inc(); const firstItem = it.next().value; params.append("s", "3");
    const before = state();
    const tool = await slow();
    inc(); params.set("q", "9");
    const rest = [...it];
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { before, after: state(), firstItem, rest, tool };`);
  assertWaiting(first);
  slow.release();
  const last = await drain(s, first);
  assert.equal(last.status, 'completed', show(last));
  assert.deepEqual(last.value, {
    before: { n: 1, params: 'q=1&r=two&s=3', size: 3, fired: [] },
    after: { n: 2, params: 'q=9&r=two&s=3', size: 3, fired: ['timer-arg'] },
    firstItem: 'a',
    rest: ['b', 'c'],
    tool: 'ok',
  });
});

test('setTimeout returns ids 1, 2, 3 in a fresh cell', async () => {
  const s = makeSession();
  const r = await run(s, 'return [setTimeout(() => {}, 0), setTimeout(() => {}, 5), setTimeout(() => {})]');
  assert.equal(r.status, 'completed', show(r));
  assert.deepEqual(r.value, [1, 2, 3]);
});

test('clearTimeout cancels a timer created before a wait', async () => {
  // The doomed timer must still be pending when the cell clears it after the wait. The cell
  // reports whether it was; a machine too slow for that tries again with a later timer.
  for (let doomedMs = 500; ; doomedMs *= 4) {
    const slow = heldTool('slow', 'ok');
    const s = makeSession({ limits: { timeoutMs: 100 }, tools: [slow.tool] });
    const first = await run(s, `
      const fired = [];
      const doomed = setTimeout(() => fired.push("doomed"), ${doomedMs});
      const later = new Promise((resolve) => setTimeout(resolve, ${doomedMs + 150}));
      await slow();
      const pendingWhenCleared = fired.length === 0;
      clearTimeout(doomed);
      await later;
      return { fired, pendingWhenCleared };`);
    assertWaiting(first);
    slow.release();
    const last = await drain(s, first);
    assert.equal(last.status, 'completed', show(last));
    if (!last.value.pendingWhenCleared && doomedMs < 60_000) continue;
    assert.deepEqual(last.value, { fired: [], pendingWhenCleared: true });
    break;
  }
});

test('a timer callback that throws after a wait fails the cell', async () => {
  // The tool never answers, so only the timer can end the cell. It must fire after the run
  // parked at timeoutMs: a machine too slow for that tries again with a later timer.
  for (let timerMs = 150; ; timerMs *= 4) {
    const s = makeSession({ limits: { timeoutMs: 100 }, tools: [neverTool('slow')] });
    const first = await run(s, `setTimeout(() => { throw new Error("from timer") }, ${timerMs}); await slow(); return "finished"`);
    if (first.status === 'failed' && first.error?.includes('from timer') && timerMs < 60_000) continue;
    assertWaiting(first);
    const last = await drain(s, first);
    assertFailed(last, 'guest_error');
    assert.ok(last.error.includes('from timer'), last.error);
    break;
  }
});

test('setTimeout with a non-function callback throws a TypeError', async () => {
  const s = makeSession();
  const r = await run(s, 'setTimeout("x")');
  assertFailed(r, 'guest_error');
  assert.ok(r.error.startsWith('TypeError: setTimeout callback must be a function'), r.error);
  const caught = await run(s, 'try { setTimeout("x"); return "no throw" } catch (e) { return [e instanceof TypeError, e.message] }');
  assert.deepEqual(caught.value, [true, 'setTimeout callback must be a function']);
});

test('a rejection created before a wait and handled after it does not fail the cell', async () => {
  const slow = heldTool('slow', 'ok');
  const s = makeSession({ limits: { timeoutMs: 100 }, tools: [slow.tool] });
  const first = await run(s, 'const p = Promise.reject(new Error("late")); await slow(); return await p.catch((e) => "caught " + e.message)');
  assertWaiting(first);
  slow.release();
  const last = await drain(s, first);
  assert.equal(last.status, 'completed', show(last));
  assert.equal(last.value, 'caught late');
});

test('a rejection created before a wait and never handled fails the cell', async () => {
  const slow = heldTool('slow', 'ok');
  const s = makeSession({ limits: { timeoutMs: 100 }, tools: [slow.tool] });
  const first = await run(s, 'const p = Promise.reject(new Error("never handled")); await slow(); return 1');
  slow.release();
  const last = await drain(s, first);
  assertFailed(last, 'guest_error');
  assert.ok(last.error.startsWith('Error: never handled'), last.error);
});

// ---------- abort ----------

test('an already-aborted signal fails the exec with aborted and runs no tool', async () => {
  const calls = { n: 0 };
  const s = makeSession({ tools: [slowTool('slow', 10, 'x', calls)] });
  const controller = new AbortController();
  controller.abort();
  const r = await run(s, 'text("started"); return await slow()', { signal: controller.signal });
  assertFailed(r, 'aborted', ABORTED);
  assert.equal(calls.n, 0);
  assert.deepEqual(r.output ?? [], [], 'the cell never started');
});

test('aborting mid-call fails the exec with aborted and aborts the tool signal', async () => {
  // The abort comes once the tool is running, and the tool never answers unless released:
  // the exec can only end through the abort.
  const slow = heldTool('slow', 'late');
  const s = makeSession({ tools: [slow.tool] });
  const controller = new AbortController();
  const pending = run(s, 'return await slow()', { signal: controller.signal });
  const { signal } = await slow.called;
  assert.equal(signal.aborted, false);
  controller.abort();
  const r = await pending;
  assertFailed(r, 'aborted', ABORTED);
  assert.equal(slow.calls, 1);
  await eventually(() => signal.aborted, 'ctx.signal.aborted becomes true');
});

test('aborting a wait fails it with aborted and drops the run', async () => {
  // The run parks at once (yield_control) and the wait calls a tool that never answers;
  // the abort comes once that call is made, long before the wait's minute-long budget.
  const never = heldTool('never');
  const s = makeSession({ limits: { timeoutMs: 60_000 }, tools: [never.tool] });
  const r0 = await run(s, 'await yield_control(); return await never()');
  assertWaiting(r0, 'yield');
  const controller = new AbortController();
  never.called.then(() => controller.abort());
  const r = await s.wait({ runId: r0.runId }, { signal: controller.signal });
  assert.equal(never.calls, 1, 'the abort came while the wait ran the cell');
  assertFailed(r, 'aborted', ABORTED);
  assertFailed(await s.wait({ runId: r0.runId }), 'invalid_input', UNAVAILABLE);
  assert.deepEqual(s.runs(), []);
});

// ---------- close, runs, cancelRun ----------

test('close() drops parked runs; later waits are unavailable and exec throws', async () => {
  const sessionId = `close-${process.pid}`;
  const s = makeSession({ sessionId, limits: { timeoutMs: 100 }, tools: [neverTool()] });
  const r0 = await run(s, 'return await never()');
  assertWaiting(r0);
  assert.deepEqual(s.runs().map((r) => r.runId), [r0.runId]);
  await s.close();
  assert.deepEqual(s.runs(), []);
  const sibling = makeSession({ sessionId });
  assertFailed(await sibling.wait({ runId: r0.runId }), 'invalid_input', UNAVAILABLE);
  await assert.rejects(async () => s.exec({ code: 'return 1' }));
  await s.close(); // idempotent
});

test('exec, wait and refreshMcp after close() return promises rejected with invalid_input, never throw', async () => {
  const s = makeSession();
  await s.close();
  for (const [name, call] of [
    ['exec', () => s.exec({ code: 'return 1' })],
    ['wait', () => s.wait({ runId: 'cm_x' })],
    ['refreshMcp', () => s.refreshMcp()],
  ]) {
    let promise;
    assert.doesNotThrow(() => { promise = call(); }, `${name} must not throw synchronously`);
    assert.ok(promise instanceof Promise, name);
    const error = await promise.then(() => null, (e) => e);
    assert.ok(error instanceof Error, `${name} rejects`);
    assert.equal(error.code, 'invalid_input', name);
    assert.equal(error.message, 'code mode session is closed.', name);
  }
});

test('addTools() after close() throws invalid_input and adds nothing', async () => {
  const s = makeSession();
  await s.close();
  assert.throws(
    () => s.addTools([{ name: 'late', source: 'client', execute: () => 1 }]),
    (e) => e.code === 'invalid_input' && e.message === 'code mode session is closed.',
  );
  assert.ok(!s.modelTools().some((t) => t.name === 'late'));
});

test('close() aborts the signal of a parked run\'s pending call', async () => {
  let signal;
  const s = makeSession({ limits: { timeoutMs: 100 }, tools: [neverTool('never', (ctx) => { signal = ctx.signal; })] });
  assertWaiting(await run(s, 'return await never()'));
  assert.equal(signal.aborted, false);
  await s.close();
  assert.equal(await eventually(() => signal.aborted), true);
});

test('close() during an active wait makes that wait return aborted', async () => {
  // As above: the wait is still running the cell (its tool call never answers, its budget
  // is a minute) when close() comes.
  const never = heldTool('never');
  const s = makeSession({ limits: { timeoutMs: 60_000 }, tools: [never.tool] });
  const r0 = await run(s, 'await yield_control(); return await never()');
  assertWaiting(r0, 'yield');
  const waiting = s.wait({ runId: r0.runId });
  await never.called;
  await s.close();
  assertFailed(await waiting, 'aborted', ABORTED);
});

test('a waiting result still on its way when close() is called settles as aborted', async () => {
  const sessionId = `close-parking-${process.pid}`;
  const s = makeSession({ sessionId, limits: { timeoutMs: 100 }, tools: [neverTool()] });
  const pending = s.exec({ code: 'text("before"); return await never()' });
  // Hold the Node thread until the run has parked: its waiting result is then queued for
  // this thread, which cannot take it before close() runs. (The cap only guards a hang.)
  const until = Date.now() + 60_000;
  while (s.runs().length === 0 && Date.now() < until);
  const parked = s.runs();
  assert.equal(parked.length, 1, 'the run parked');
  await s.close();
  const r = await pending;
  assertFailed(r, 'aborted', ABORTED);
  assert.equal(r.runId, undefined);
  assert.deepEqual(r.output, [{ type: 'text', text: 'before' }]);
  // The turn may still be parking when close() comes: the run must not stay in the store.
  const sibling = makeSession({ sessionId });
  assert.deepEqual(sibling.runs(), []);
  assertFailed(await sibling.wait({ runId: parked[0].runId }), 'invalid_input', UNAVAILABLE);
});

test('a wait sent as soon as runs() lists the run resumes it, before the exec has answered', async () => {
  const s = makeSession({ limits: { timeoutMs: 60_000 } });
  const pending = s.exec({ code: 'text("parked"); await yield_control("now"); return 5' });
  // As above, the Node thread waits for the listing, so the waiting result of the exec is
  // still queued for it when the wait claims the run.
  const until = Date.now() + 60_000;
  while (s.runs().length === 0 && Date.now() < until);
  const [listed] = s.runs();
  assert.ok(listed, 'the run parked');
  const resumed = await s.wait({ runId: listed.runId });
  assert.equal(resumed.status, 'completed', show(resumed));
  assert.equal(resumed.value, 5);
  const first = await pending;
  assertWaiting(first, 'yield');
  assert.equal(first.runId, listed.runId);
  assert.deepEqual(s.runs(), []);
});

test('runs() describes parked runs and cancelRun() drops one once', async () => {
  const s = makeSession({ limits: { timeoutMs: 100 }, tools: [neverTool()] });
  const parked = await run(s, 'return await never()');
  assertWaiting(parked);
  const yielded = await run(s, 'await yield_control("later"); return 1');
  assertWaiting(yielded, 'yield');
  const runs = s.runs();
  assert.equal(runs.length, 2, JSON.stringify(runs));
  for (const entry of runs) {
    assert.deepEqual(Object.keys(entry).sort(), ['bytes', 'parkedMs', 'pending', 'reason', 'runId']);
    assert.equal(typeof entry.parkedMs, 'number');
    assert.ok(entry.parkedMs >= 0);
    assert.ok(Number.isFinite(entry.bytes) && entry.bytes > 0, JSON.stringify(entry));
  }
  const byId = new Map(runs.map((r) => [r.runId, r]));
  assert.equal(byId.get(parked.runId)?.reason, 'pending_tools');
  assert.equal(byId.get(parked.runId)?.pending, 1);
  assert.equal(byId.get(yielded.runId)?.reason, 'yield');
  assert.equal(s.cancelRun(parked.runId), true);
  assert.deepEqual(s.runs().map((r) => r.runId), [yielded.runId]);
  assert.equal(s.cancelRun(parked.runId), false);
  assert.equal(s.cancelRun(yielded.runId), true);
  assert.deepEqual(s.runs(), []);
  assertFailed(await s.wait({ runId: parked.runId }), 'invalid_input', UNAVAILABLE);
});

// ---------- pauseBudget ----------

test('ctx.pauseBudget() stops the clock so a long approval completes in one exec', async () => {
  // The approval keeps the clock paused until timeoutMs has certainly passed since the exec
  // began. Only the time before the pause counts, and that must fit the budget: a machine
  // too slow for that (the call came late, or its answer did) tries a larger budget. A
  // pause that did not stop the clock parks the run at every size.
  for (let timeoutMs = 150; ; timeoutMs *= 4) {
    let started;
    const s = makeSession({
      limits: { timeoutMs },
      tools: [{
        name: 'approval',
        execute: async (input, ctx) => {
          const resume = ctx.pauseBudget();
          await eventually(() => Date.now() - started > timeoutMs + 100, 'the unpaused budget passed');
          resume();
          return 'approved';
        },
      }],
    });
    started = Date.now();
    const r = await run(s, 'return await approval()');
    if (r.status === 'waiting' && timeoutMs < 10_000) {
      s.cancelRun(r.runId);
      continue;
    }
    assert.equal(r.status, 'completed', show(r));
    assert.equal(r.value, 'approved');
    break;
  }
});

test('every pauseBudget() window closes, so the clock runs again after nested or forgotten pauses', async () => {
  const s = makeSession({
    limits: { timeoutMs: 150 },
    tools: [
      { name: 'twice', execute: async (input, ctx) => { const a = ctx.pauseBudget(); const b = ctx.pauseBudget(); await sleep(20); a(); b(); a(); return 1; } },
      { name: 'forgot', execute: async (input, ctx) => { ctx.pauseBudget(); await sleep(20); return 2; } },
    ],
  });
  for (const tool of ['twice', 'forgot']) {
    // On a loaded machine the budget may pass before the call is even made: the run then
    // parks, and the wait that delivers the result must end in the timeout just the same.
    const r = await drain(s, await run(s, `await ${tool}(); while (true) {}`));
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'timeout', show(r));
  }
});

// ---------- restartSafe ----------

const RESTART_TOOLS = [
  { name: 'unsafe_write', execute: () => 'wrote' },
  { name: 'safe_read', replaySafe: true, description: 'Read a file safely', execute: () => 'read' },
];

test('restartSafe cells cannot call a tool that is not replaySafe', async () => {
  let ran = 0;
  const s = makeSession({ tools: [{ name: 'unsafe_write', execute: () => { ran++; return 'wrote'; } }] });
  const r = await run(s, { code: 'return await unsafe_write()', restartSafe: true });
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.error, 'restart-safe code mode cannot call tool surfaces that are not proven replay-safe; use audited read, grep, or find tools.');
  assert.equal(typeof r.code, 'string');
  assert.equal(ran, 0);
});

test('restartSafe cells can call replaySafe tools', async () => {
  const s = makeSession({ tools: RESTART_TOOLS });
  const r = await run(s, { code: 'return await safe_read()', restartSafe: true });
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 'read');
});

test('restartSafe cells can search and describe the catalog', async () => {
  const s = makeSession({ tools: RESTART_TOOLS });
  const r = await run(s, { code: 'const f = await catalog.search("read file"); const d = await f[0].describe(); return [f[0] === safe_read, d.name]', restartSafe: true });
  assert.equal(r.status, 'completed', show(r));
  assert.deepEqual(r.value, [true, 'safe_read']);
});

// ---------- headless scripts ----------

const HEADLESS_TOOLS = [
  { name: 'add', execute: ({ a, b }) => a + b },
  neverTool('slow'),
  // Called after the run's clock started, so it ends past timeoutMs (100) on any machine.
  { name: 'medium', execute: async () => { await sleep(300); return 'medium'; } },
];

test('runCodeModeScript completes a two-call script', async () => {
  const r = await runCodeModeScript('const x = await add({ a: 1, b: 2 }); return await add({ a: x, b: 10 })', { sessionId: `headless-${process.pid}`, tools: HEADLESS_TOOLS });
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 13);
});

test('runCodeModeScript auto-drains past the per-call timeoutMs', async () => {
  const r = await runCodeModeScript('return await medium()', { sessionId: `headless-${process.pid}`, tools: HEADLESS_TOOLS, limits: { timeoutMs: 100 }, wallClockMs: 60_000 });
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 'medium');
});

test('runCodeModeScript fails a sixth call with tool_budget_exceeded by default', async () => {
  let calls = 0;
  const tools = [{ name: 'count', execute: () => ++calls }];
  const r = await runCodeModeScript('for (let i = 0; i < 6; i++) await count(); return "all six"', { sessionId: `headless-${process.pid}`, tools });
  assertFailed(r, 'tool_budget_exceeded');
  assert.equal(calls, 5);
  calls = 0;
  const ok = await runCodeModeScript('for (let i = 0; i < 6; i++) await count(); return "all six"', { sessionId: `headless-${process.pid}`, tools, maxToolCalls: 6 });
  assert.equal(ok.status, 'completed', show(ok));
  assert.equal(calls, 6);
});

test('runCodeModeScript fails a yield_control instead of returning waiting', async () => {
  const r = await runCodeModeScript('await yield_control("x"); return 1', { sessionId: `headless-${process.pid}`, tools: HEADLESS_TOOLS });
  assert.equal(r.status, 'failed', show(r));
  assert.equal(typeof r.code, 'string');
  assert.match(r.error, /yield/, r.error);
  assert.equal(r.runId, undefined);
});

test('runCodeModeScript fails with timeout when a tool outlasts wallClockMs', async () => {
  // The tool never answers: the script can only end at its wall clock.
  const r = await runCodeModeScript('return await slow()', { sessionId: `headless-${process.pid}`, tools: HEADLESS_TOOLS, wallClockMs: 200 });
  assertFailed(r, 'timeout');
});

// ---------- scale ----------

test('1,000 concurrent cells awaiting a 200 ms tool all complete', async (t) => {
  // How long this takes is a benchmark figure (bench/run.mjs), not asserted here: the
  // minute-long budget only keeps a slow machine from parking the cells.
  const tool = { name: 'nap', execute: async ({ i }) => { await sleep(200); return i; } };
  const sessions = Array.from({ length: 10 }, () => makeSession({ limits: { timeoutMs: 60_000 }, tools: [tool] }));
  const started = Date.now();
  const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => run(sessions[i % 10], `return await nap({ i: ${i} })`)));
  t.diagnostic(`1,000 concurrent cells awaiting a 200 ms tool: ${Date.now() - started} ms`);
  const bad = results.filter((r, i) => r.status !== 'completed' || r.value !== i);
  assert.equal(bad.length, 0, bad.slice(0, 3).map(show).join('\n'));
});

// ---------- the process-wide cap (keep LAST: it fills the run store) ----------

test('the 65th run that would park fails with too many suspended code mode runs', async () => {
  await closeAll(); // nothing else parked in this process
  // The store also holds runs that a wait is resuming, which runs() does not list: a slot
  // still taken by an earlier test would show here, not as a 64th run refused below.
  await eventually(() => native.codeModeRuntimeStats().parkedRuns === 0, `the process-wide store emptied (stats when the wait began: ${JSON.stringify(native.codeModeRuntimeStats())})`);
  // Runs park by yielding, not by outliving a short deadline: a cell whose deadline passed
  // before a loaded machine started it would time out instead of parking.
  const PARK = 'await yield_control("hold"); return 1';
  const s = makeSession({ limits: { timeoutMs: 60_000 }, tools: [neverTool()] });
  try {
    const parked = await Promise.all(Array.from({ length: 64 }, () => run(s, PARK)));
    assert.equal(parked.filter((r) => r.status === 'waiting').length, 64, parked.filter((r) => r.status !== 'waiting').map(show).slice(0, 2).join('\n'));
    assert.equal(s.runs().length, 64);
    const r65 = await run(s, PARK);
    assertFailed(r65, 'invalid_input', 'too many suspended code mode runs.');
    const quick = await run(s, 'return "no parking needed"');
    assert.equal(quick.status, 'completed', show(quick));
  } finally {
    await s.close();
  }
  assert.deepEqual(s.runs(), []);
  const fresh = makeSession({ limits: { timeoutMs: 60_000 }, tools: [neverTool()] });
  const again = await run(fresh, PARK);
  assertWaiting(again, 'yield');
  await fresh.close();
});

test('an abort signal that fires after its exec or wait answered leaves the parked run resumable', async () => {
  const session = makeSession();
  const execSignal = new AbortController();
  const first = await run(session, 'await yield_control("a"); await yield_control("b"); return 7', { signal: execSignal.signal });
  assert.equal(first.status, 'waiting', show(first));
  // A gateway that aborts its whole turn later: the exec it signalled already answered.
  execSignal.abort();
  const waitSignal = new AbortController();
  const second = await session.wait({ runId: first.runId }, { signal: waitSignal.signal });
  assert.equal(second.status, 'waiting', show(second));
  waitSignal.abort();
  assert.deepEqual(session.runs().map((r) => r.runId), [first.runId]);
  const last = await session.wait({ runId: first.runId });
  assert.equal(last.status, 'completed', show(last));
  assert.equal(last.value, 7);
});

test('a signal reused across many calls keeps no abort listener once each call has answered', async () => {
  const { getEventListeners } = await import('node:events');
  const session = makeSession();
  const turn = new AbortController();
  for (let i = 0; i < 20; i++) {
    const r = await run(session, `return ${i}`, { signal: turn.signal });
    assert.equal(r.value, i, show(r));
  }
  const parked = await run(session, 'await yield_control(); return "later"', { signal: turn.signal });
  assert.equal(parked.status, 'waiting', show(parked));
  await eventually(() => getEventListeners(turn.signal, 'abort').length === 0, 'no abort listener is left');
  const pending = session.wait({ runId: parked.runId }, { signal: turn.signal });
  assert.equal(getEventListeners(turn.signal, 'abort').length, 1, 'the wait in flight listens');
  assert.equal((await pending).value, 'later');
});

test('a signal-like object is honoured, and one whose listener methods throw still gets its results', async () => {
  // A gateway may pass its own EventTarget-shaped signal. Its listener is removed when the
  // result settles; a throw there must not keep that result from arriving.
  class BrittleSignal extends EventTarget {
    aborted = false;
    removeEventListener() {
      throw new Error('not removable');
    }
  }
  // The abort comes once the cell runs (it has called `started`); the cell's timer and
  // budget are far longer, so only the abort can end it.
  const started = heldTool('started');
  const session = makeSession({ limits: { timeoutMs: 60_000 }, tools: [started.tool] });
  const quiet = new BrittleSignal();
  const done = await run(session, 'return 41 + 1', { signal: quiet });
  assert.equal(done.value, 42, show(done));
  const stop = new BrittleSignal();
  const pending = run(session, 'started(); await new Promise((res) => setTimeout(res, 50_000)); return "late"', { signal: stop });
  await started.called;
  stop.aborted = true;
  stop.dispatchEvent(new Event('abort'));
  assertFailed(await pending, 'aborted', 'code mode execution aborted');
  // One that cannot even take a listener: the call runs to its result, unabortable.
  const deaf = { aborted: false, addEventListener() { throw new Error('no listeners'); } };
  const unheard = await run(session, 'return "answered"', { signal: deaf });
  assert.equal(unheard.value, 'answered', show(unheard));
  // Options whose signal getter throws once the call has been read: the same.
  let reads = 0;
  const fickle = {
    get signal() {
      if (++reads > 1) throw new Error('gone');
      return undefined;
    },
  };
  const read = await run(session, 'return "read once"', fickle);
  assert.equal(read.value, 'read once', show(read));
  const after = await run(session, 'return "healthy"');
  assert.equal(after.value, 'healthy', show(after));
});

test('aborting a guest that computes without end stops it with aborted, and the session runs on', async () => {
  // Only the abort can end it (the deadline is a minute away); in process mode the abort
  // is a frame to the sandbox while the guest's command is out.
  const started = heldTool('started');
  const s = makeSession({ tools: [started.tool], limits: { timeoutMs: 60_000 } });
  assert.equal((await run(s, 'return 0')).status, 'completed');
  const sandboxes = sandboxChildren(process.pid);
  const controller = new AbortController();
  const pending = run(s, 'started();\nwhile (true) {}', { signal: controller.signal });
  await started.called;
  controller.abort();
  assertFailed(await pending, 'aborted', ABORTED);
  const next = await run(s, 'return 1 + 1');
  assert.equal(next.status, 'completed', show(next));
  assert.equal(next.value, 2);
  // The guest was stopped, not its process killed (the watchdog's last resort): the next
  // cell ran in the same sandbox.
  assert.deepEqual(sandboxChildren(process.pid).filter((pid) => !sandboxes.includes(pid)), []);
});
