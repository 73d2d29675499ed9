// Approvals without a live promise: a tool's `ctx.suspend(payload)` parks its call as
// external, and `session.resolveCall(...)` settles it once for the next wait
// (docs/durable-runs.md, Approvals without a live promise). Runs in the isolation mode of
// CODEMODE_NATIVE_ISOLATION, so `npm test` covers both.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeSession, closeAll, run, show, native, eventually, hangGuard, heldTool, deferred } from './_helpers.mjs';

const { CodeModeSession, runCodeModeScript } = native;
const UNAVAILABLE = 'code mode run is unavailable or expired.';
const ABORTED = 'code mode execution aborted';
// Longer than any test may take: a run that parked only at its deadline would hang the test
// past hangGuard's cap instead of passing slowly.
const NEVER = { timeoutMs: 60_000 };

after(closeAll);

/** A tool that suspends every call with `{ ask: input }`; `contexts` holds each call's ctx. */
function approvalTool(name = 'approve') {
  const contexts = [];
  return {
    contexts,
    tool: { name, execute: (input, ctx) => { contexts.push(ctx); return ctx.suspend({ ask: input }); } },
  };
}

function assertWaiting(r) {
  assert.equal(r.status, 'waiting', show(r));
  assert.equal(r.reason, 'pending_tools', show(r));
}

async function assertRejects(promise, code, message) {
  await assert.rejects(promise, (error) => {
    assert.equal(error.code, code, String(error.message));
    if (message instanceof RegExp) assert.match(error.message, message);
    else if (message !== undefined) assert.equal(error.message, message);
    return true;
  });
}

// ---------- the approval flow ----------

test('a suspended call parks the run at once with its payload, and resolveCall then wait delivers the value', async () => {
  const approve = approvalTool();
  const s = makeSession({ limits: NEVER, tools: [approve.tool] });
  const first = await hangGuard(run(s, 'const answer = await approve({ action: "deploy" }); return { answer }'), 'the exec parking', 30_000);
  assertWaiting(first);
  const [ctx] = approve.contexts;
  assert.deepEqual(first.pendingToolCalls, [{ id: ctx.callId, method: 'tool', toolName: 'approve', external: true, payload: { ask: { action: 'deploy' } } }]);
  assert.equal(first.nestedCalls[0].status, 'pending', show(first));
  assert.equal(ctx.runId, first.runId);
  assert.equal(await s.resolveCall({ runId: first.runId, callId: ctx.callId, value: { approved: true } }), 'resolved');
  const last = await s.wait({ runId: first.runId });
  assert.equal(last.status, 'completed', show(last));
  assert.deepEqual(last.value, { answer: { approved: true } });
  assert.equal(last.nestedCalls[0].status, 'ok');
  assert.equal(last.nestedCalls[0].outputPreview, '{"approved":true}');
  assert.equal(approve.contexts.length, 1, 'the tool is never called again');
  assert.deepEqual(s.runs(), []);
});

test('ctx.suspend returns a frozen marker, and what the tool returns or throws afterwards is ignored', async () => {
  let marker;
  const s = makeSession({ limits: NEVER, tools: [{ name: 'approve', execute: async (input, ctx) => { marker = ctx.suspend(null); await null; throw new Error('ignored'); } }] });
  const first = await run(s, 'return await approve({})');
  assertWaiting(first);
  assert.deepEqual(marker, { suspended: true, callId: first.pendingToolCalls[0].id });
  assert.ok(Object.isFrozen(marker));
  assert.equal(first.pendingToolCalls[0].payload, null, 'a payload of null is carried as null');
  assert.equal(await s.resolveCall({ runId: first.runId, callId: marker.callId, value: 'ok' }), 'resolved');
  const last = await s.wait({ runId: first.runId });
  assert.equal(last.value, 'ok', show(last));
});

test('an error resolve rejects the guest await with its message, as a failed tool does', async () => {
  const approve = approvalTool();
  const s = makeSession({ limits: NEVER, tools: [approve.tool] });
  const caught = await run(s, 'try { await approve(1) } catch (e) { return { message: e.message, code: e.code } }');
  assertWaiting(caught);
  assert.equal(await s.resolveCall({ runId: caught.runId, callId: approve.contexts[0].callId, error: { message: 'denied by alice' } }), 'resolved');
  const seen = await s.wait({ runId: caught.runId });
  assert.deepEqual(seen.value, { message: 'denied by alice', code: 'tool_error' }, show(seen));
  const uncaught = await run(s, 'return await approve(2)');
  assert.equal(await s.resolveCall({ runId: uncaught.runId, callId: approve.contexts[1].callId, error: { message: 'denied' } }), 'resolved');
  const failed = await s.wait({ runId: uncaught.runId });
  assert.equal(failed.status, 'failed', show(failed));
  assert.equal(failed.code, 'tool_error');
  assert.match(failed.error, /denied/);
  assert.equal(failed.nestedCalls[0].status, 'error');
});

test('a second resolve answers already_resolved, before and after the wait delivered it and after the run ended', async () => {
  const approve = approvalTool();
  const s = makeSession({ limits: NEVER, tools: [approve.tool] });
  const first = await run(s, 'const a = await approve(1); const b = await approve(2); return [a, b]');
  const one = { runId: first.runId, callId: approve.contexts[0].callId };
  assert.equal(await s.resolveCall({ ...one, value: 'first' }), 'resolved');
  assert.equal(await s.resolveCall({ ...one, value: 'second' }), 'already_resolved');
  assert.equal(await s.resolveCall({ ...one, error: { message: 'late' } }), 'already_resolved');
  const second = await s.wait({ runId: first.runId });
  assertWaiting(second);
  assert.deepEqual(second.pendingToolCalls.map((p) => p.payload), [{ ask: 2 }]);
  assert.equal(await s.resolveCall({ ...one, value: 'after' }), 'already_resolved', 'delivered calls stay resolved');
  assert.equal(await s.resolveCall({ runId: first.runId, callId: approve.contexts[1].callId, value: 'two' }), 'resolved');
  const last = await s.wait({ runId: first.runId });
  assert.deepEqual(last.value, ['first', 'two'], show(last));
  // The run is over: its resolved calls stay resolved (for its scope only); a call it
  // never made is refused as for any ended run.
  assert.equal(await s.resolveCall({ ...one, value: 'x' }), 'already_resolved');
  const stranger = makeSession({ sessionId: 'someone-else' });
  await assertRejects(stranger.resolveCall({ ...one, value: 'x' }), 'invalid_input', UNAVAILABLE);
  await assertRejects(s.resolveCall({ runId: first.runId, callId: `${first.runId}:3`, value: 'x' }), 'invalid_input', UNAVAILABLE);
});

test('of two callers resolving one call at once, exactly one gets resolved and its value wins', async () => {
  const approve = approvalTool();
  const sessionId = `race-${process.pid}`;
  const s = makeSession({ sessionId, limits: NEVER, tools: [approve.tool] });
  const other = makeSession({ sessionId, tools: [] });
  const first = await run(s, 'return await approve(1)');
  const call = { runId: first.runId, callId: approve.contexts[0].callId };
  const answers = await Promise.all([s.resolveCall({ ...call, value: 'mine' }), other.resolveCall({ ...call, value: 'theirs' })]);
  assert.deepEqual(answers.slice().sort(), ['already_resolved', 'resolved']);
  const winner = answers[0] === 'resolved' ? 'mine' : 'theirs';
  const last = await s.wait({ runId: first.runId });
  assert.equal(last.value, winner, show(last));
});

test('several external calls in Promise.all resolved in reverse order each reach their own await', async () => {
  const approve = approvalTool();
  const s = makeSession({ limits: NEVER, tools: [approve.tool] });
  const first = await run(s, 'return await Promise.all([approve("a"), approve("b"), approve("c")])');
  assertWaiting(first);
  assert.deepEqual(first.pendingToolCalls.map((p) => p.payload), [{ ask: 'a' }, { ask: 'b' }, { ask: 'c' }]);
  const ids = first.pendingToolCalls.map((p) => p.id);
  assert.equal(await s.resolveCall({ runId: first.runId, callId: ids[2], value: 'C' }), 'resolved');
  const second = await s.wait({ runId: first.runId });
  assertWaiting(second);
  assert.deepEqual(second.pendingToolCalls.map((p) => p.id), ids.slice(0, 2), 'a resolved call is no longer pending');
  for (const [id, value] of [[ids[1], 'B'], [ids[0], 'A']]) {
    assert.equal(await s.resolveCall({ runId: first.runId, callId: id, value }), 'resolved');
  }
  const last = await s.wait({ runId: first.runId });
  assert.deepEqual(last.value, ['A', 'B', 'C'], show(last));
});

test('external calls holding every in-flight slot park the run with the calls queued behind them', async () => {
  const approve = approvalTool();
  const s = makeSession({ limits: { ...NEVER, maxPendingToolCalls: 2 }, tools: [approve.tool] });
  const first = await hangGuard(run(s, 'return await Promise.all([approve(1), approve(2), approve(3)])'), 'the exec parking', 30_000);
  assertWaiting(first);
  assert.deepEqual(first.pendingToolCalls.map((p) => p.payload ?? 'queued'), [{ ask: 1 }, { ask: 2 }, 'queued']);
  assert.equal(approve.contexts.length, 2, 'the third call waits for a slot');
  assert.equal(await s.resolveCall({ runId: first.runId, callId: first.pendingToolCalls[0].id, value: 'one' }), 'resolved');
  const second = await hangGuard(s.wait({ runId: first.runId }), 'the wait parking', 30_000);
  assertWaiting(second);
  assert.deepEqual(second.pendingToolCalls.map((p) => p.payload), [{ ask: 2 }, { ask: 3 }], 'the freed slot admitted the third call');
  for (const [p, value] of [[second.pendingToolCalls[0], 'two'], [second.pendingToolCalls[1], 'three']]) {
    assert.equal(await s.resolveCall({ runId: first.runId, callId: p.id, value }), 'resolved');
  }
  assert.deepEqual((await s.wait({ runId: first.runId })).value, ['one', 'two', 'three']);
});

test('an external call beside a normal tool: the run waits for the tool, then parks without waiting out its deadline', async () => {
  const slow = heldTool('slow', 'slow value');
  const approve = {
    name: 'approve',
    execute: (input, ctx) => {
      const marker = ctx.suspend({ ask: input });
      // The normal tool answers only once the approval is parked.
      slow.release();
      return marker;
    },
  };
  const s = makeSession({ limits: NEVER, tools: [slow.tool, approve] });
  const first = await hangGuard(run(s, 'const t = slow(); const a = approve("x"); return [await t, await a]'), 'the exec parking', 30_000);
  assertWaiting(first);
  assert.deepEqual(first.pendingToolCalls.map((p) => [p.toolName, p.external]), [['approve', true]]);
  const records = Object.fromEntries(first.nestedCalls.map((c) => [c.toolName, c.status]));
  assert.deepEqual(records, { slow: 'ok', approve: 'pending' });
  assert.equal(await s.resolveCall({ runId: first.runId, callId: first.pendingToolCalls[0].id, value: 'yes' }), 'resolved');
  const last = await s.wait({ runId: first.runId });
  assert.deepEqual(last.value, ['slow value', 'yes'], show(last));
});

test('a run parked at its deadline lists the external call with its payload and the held tool without', async () => {
  const slow = heldTool('slow', 's');
  const approve = approvalTool();
  const s = makeSession({ limits: { timeoutMs: 100 }, tools: [slow.tool, approve.tool] });
  const first = await run(s, 'return await Promise.all([slow(), approve("x")])');
  assertWaiting(first);
  assert.deepEqual(first.pendingToolCalls.map((p) => ({ toolName: p.toolName, external: p.external, payload: p.payload })), [
    { toolName: 'slow', external: undefined, payload: undefined },
    { toolName: 'approve', external: true, payload: { ask: 'x' } },
  ]);
  await assertRejects(s.resolveCall({ runId: first.runId, callId: slow.contexts[0].callId, value: 1 }), 'invalid_input', /is not waiting for resolveCall: its tool did not call ctx\.suspend\(\)/);
  slow.release();
  assert.equal(await s.resolveCall({ runId: first.runId, callId: approve.contexts[0].callId, value: 'a' }), 'resolved');
  const last = await s.wait({ runId: first.runId });
  assert.deepEqual(last.value, ['s', 'a'], show(last));
});

test('a resolve during a wait in flight reaches the guest in that wait', async () => {
  const slow = heldTool('slow', 'late');
  const approve = approvalTool();
  const s = makeSession({ limits: { timeoutMs: 100 }, tools: [slow.tool, approve.tool] });
  const first = await run(s, 'const a = approve(1); const t = slow(); const got = await a; text("approved " + got); return [got, await t]');
  assertWaiting(first);
  const waiting = s.wait({ runId: first.runId });
  // The wait is running (it waits for `slow`): the resolve is delivered in it.
  assert.equal(await s.resolveCall({ runId: first.runId, callId: approve.contexts[0].callId, value: 'yes' }), 'resolved');
  const second = await waiting;
  assert.deepEqual(second.output, [{ type: 'text', text: 'approved yes' }], show(second));
  slow.release();
  const last = second.status === 'waiting' ? await s.wait({ runId: first.runId }) : second;
  assert.deepEqual(last.value, ['yes', 'late'], show(last));
});

test('a resolve while the first exec still runs is delivered in that exec', async () => {
  const slow = heldTool('slow', 'tool');
  let s;
  const approve = {
    name: 'approve',
    execute: (input, ctx) => {
      const marker = ctx.suspend(input);
      // The run is in no store yet: its exec is still in flight, waiting for `slow`.
      s.resolveCall({ runId: ctx.runId, callId: ctx.callId, value: 'auto' }).then((answer) => {
        assert.equal(answer, 'resolved');
        slow.release();
      });
      return marker;
    },
  };
  s = makeSession({ limits: NEVER, tools: [slow.tool, approve] });
  const r = await hangGuard(run(s, 'const t = slow(); return [await approve(1), await t]'), 'the exec', 30_000);
  assert.equal(r.status, 'completed', show(r));
  assert.deepEqual(r.value, ['auto', 'tool']);
});

test('a wait while the external call is unresolved parks again at once, with the payload', async () => {
  const approve = approvalTool();
  const s = makeSession({ limits: NEVER, tools: [approve.tool] });
  const first = await run(s, 'return await approve(7)');
  const again = await hangGuard(s.wait({ runId: first.runId }), 'the wait', 30_000);
  assertWaiting(again);
  assert.equal(again.runId, first.runId);
  assert.deepEqual(again.pendingToolCalls, first.pendingToolCalls);
  assert.equal(await s.resolveCall({ runId: first.runId, callId: first.pendingToolCalls[0].id, value: 8 }), 'resolved');
  assert.equal((await s.wait({ runId: first.runId })).value, 8);
});

// ---------- time ----------

test('a parked external call spends none of the timeoutMs: a wait long after timeoutMs completes', async () => {
  const approve = approvalTool();
  const s = makeSession({ limits: { timeoutMs: 100 }, tools: [approve.tool] });
  const first = await run(s, 'const a = await approve(1); return a * 2');
  assertWaiting(first);
  // Parked for many times its timeoutMs, as a held tool's run may be.
  await eventually(() => s.runs().some((r) => r.runId === first.runId && r.parkedMs > 500), 'the run parked for 500 ms');
  assert.equal(await s.resolveCall({ runId: first.runId, callId: approve.contexts[0].callId, value: 21 }), 'resolved');
  const last = await s.wait({ runId: first.runId });
  assert.equal(last.status, 'completed', show(last));
  assert.equal(last.value, 42);
});

test('a run whose snapshotTtlSeconds pass while parked expires: its call ends cancelled and cannot be resolved', async () => {
  const events = [];
  const approve = approvalTool();
  const s = makeSession({ limits: { snapshotTtlSeconds: 1 }, tools: [approve.tool], onEvent: (e) => events.push(e) });
  const first = await run(s, 'return await approve(1)');
  assertWaiting(first);
  const callId = approve.contexts[0].callId;
  await eventually(() => events.some((e) => e.type === 'tool_call_end' && e.callId === callId), 'the expired call ended');
  assert.deepEqual(s.runs(), []);
  const end = events.find((e) => e.type === 'tool_call_end');
  assert.equal(end.status, 'cancelled');
  await assertRejects(s.resolveCall({ runId: first.runId, callId, value: 1 }), 'invalid_input', UNAVAILABLE);
});

// ---------- ending the run ----------

test('cancelRun during suspension ends the call as cancelled, and a later resolve finds no run', async () => {
  const events = [];
  const approve = approvalTool();
  const s = makeSession({ limits: NEVER, tools: [approve.tool], onEvent: (e) => events.push(e) });
  const first = await run(s, 'return await approve(1)');
  const callId = approve.contexts[0].callId;
  assert.equal(events.filter((e) => e.type === 'tool_call_end').length, 0, 'no end while parked');
  assert.equal(s.cancelRun(first.runId), true);
  await assertRejects(s.resolveCall({ runId: first.runId, callId, value: 1 }), 'invalid_input', UNAVAILABLE);
  await eventually(() => events.some((e) => e.type === 'tool_call_end'), 'the cancelled call ended');
  const end = events.find((e) => e.type === 'tool_call_end');
  assert.deepEqual({ callId: end.callId, status: end.status, error: end.error }, { callId, status: 'cancelled', error: ABORTED });
});

test('close during suspension: the closed session refuses resolveCall, and a session of its scope finds no run', async () => {
  const approve = approvalTool();
  const sessionId = `closing-${process.pid}`;
  const s = new CodeModeSession({ sessionId, limits: NEVER, tools: [approve.tool] });
  const other = makeSession({ sessionId });
  const first = await run(s, 'return await approve(1)');
  const call = { runId: first.runId, callId: approve.contexts[0].callId, value: 1 };
  await s.close();
  await assertRejects(s.resolveCall(call), 'invalid_input', 'code mode session is closed.');
  await assertRejects(other.resolveCall(call), 'invalid_input', UNAVAILABLE);
});

// ---------- scope ----------

test('a session of the same scope may resolve; another sessionId, sessionKey or agentId gets the unknown-run answer', async () => {
  const approve = approvalTool();
  const scope = { sessionId: `scope-${process.pid}`, sessionKey: 'k', agentId: 'a' };
  const s = makeSession({ ...scope, limits: NEVER, tools: [approve.tool] });
  const first = await run(s, 'return await approve(1)');
  const call = { runId: first.runId, callId: approve.contexts[0].callId, value: 'ok' };
  for (const foreign of [{ sessionId: 'someone-else' }, { sessionKey: 'other' }, { agentId: 'other' }, { sessionKey: undefined }]) {
    const stranger = makeSession({ ...scope, ...foreign });
    await assertRejects(stranger.resolveCall(call), 'invalid_input', UNAVAILABLE);
    await assertRejects(stranger.resolveCall({ ...call, runId: 'cm_nothing' }), 'invalid_input', UNAVAILABLE);
  }
  const same = makeSession(scope);
  assert.equal(await same.resolveCall(call), 'resolved');
  assert.equal((await s.wait({ runId: first.runId })).value, 'ok');
});

// ---------- bad input ----------

test('bad resolveCall inputs reject with invalid_input and a message naming what is wrong', async () => {
  const approve = approvalTool();
  const s = makeSession({ limits: NEVER, tools: [approve.tool] });
  const first = await run(s, 'return await approve(1)');
  const runId = first.runId;
  const callId = approve.contexts[0].callId;
  const cyclic = {};
  cyclic.self = cyclic;
  const cases = [
    [null, /^resolveCall input must be an object/],
    ['cm_1', /^resolveCall input must be an object/],
    [[runId, callId], /^resolveCall input must be an object/],
    [{ runId, callId, value: 1, extra: 2 }, 'resolveCall input has no key "extra"; its keys are runId, callId, value, error.'],
    [{ callId, value: 1 }, 'runId must be a non-empty string.'],
    [{ runId: '  ', callId, value: 1 }, 'runId must be a non-empty string.'],
    [{ runId, callId: 7, value: 1 }, 'callId must be a non-empty string.'],
    [{ runId, callId }, 'resolveCall takes exactly one of value and error.'],
    [{ runId, callId, value: 1, error: { message: 'x' } }, 'resolveCall takes exactly one of value and error.'],
    [{ runId, callId, error: 'denied' }, 'error must be an object with a string message: { message }.'],
    [{ runId, callId, error: { message: 3 } }, 'error must be an object with a string message: { message }.'],
    [{ runId, callId, value: () => 1 }, 'value is not JSON: a function has no JSON form.'],
    [{ runId, callId, value: cyclic }, /^value is not JSON: .*circular/i],
    [{ get runId() { throw new Error('getter'); }, callId, value: 1 }, /^resolveCall input could not be read: getter/],
    [{ runId: 'cm_unknown', callId, value: 1 }, UNAVAILABLE],
    [{ runId, callId: `${runId}:2`, value: 1 }, `code mode run has no call "${runId}:2".`],
    [{ runId, callId: 'other', value: 1 }, 'code mode run has no call "other".'],
    [{ runId, callId: `${runId}:01`, value: 1 }, `code mode run has no call "${runId}:01".`],
  ];
  for (const [input, message] of cases) {
    await assertRejects(s.resolveCall(input), 'invalid_input', message);
  }
  // None of them touched the call.
  assert.equal(await s.resolveCall({ runId, callId, value: 10n }), 'resolved');
  assert.equal((await s.wait({ runId })).value, '10', 'a BigInt crosses as its decimal string, as a tool value does');
});

// ---------- ctx.suspend misuse ----------

test('ctx.suspend refuses a payload that is not JSON or is over maxOutputBytes, and the call stays the tool\'s', async () => {
  const s = makeSession({
    limits: { ...NEVER, maxOutputBytes: 1024 },
    tools: [{
      name: 'ask',
      execute: (input, ctx) => {
        const payloads = { fn: () => 1, symbol: Symbol('s'), big: 'x'.repeat(2000) };
        try {
          return ctx.suspend(payloads[input.kind]);
        } catch (error) {
          return { code: error.code, message: error.message, type: error.constructor.name };
        }
      },
    }],
  });
  const r = await run(s, 'return [await ask({ kind: "fn" }), await ask({ kind: "symbol" }), await ask({ kind: "big" })]');
  assert.equal(r.status, 'completed', show(r));
  assert.deepEqual(r.value, [
    { code: 'invalid_input', message: 'ctx.suspend payload is not JSON: a function has no JSON form.', type: 'TypeError' },
    { code: 'invalid_input', message: 'ctx.suspend payload is not JSON: a symbol has no JSON form.', type: 'TypeError' },
    { code: 'invalid_input', message: 'ctx.suspend payload is 2002 bytes of JSON; this session allows 1024 (maxOutputBytes). Pass a reference (an id the host can look up) instead.', type: 'TypeError' },
  ]);
});

test('an uncaught ctx.suspend refusal fails the call in the guest with its message', async () => {
  const s = makeSession({ limits: { ...NEVER, maxOutputBytes: 1024 }, tools: [{ name: 'ask', execute: (input, ctx) => ctx.suspend('y'.repeat(5000)) }] });
  const r = await run(s, 'try { await ask({}) } catch (e) { return e.message }');
  assert.equal(r.status, 'completed', show(r));
  assert.match(r.value, /^ctx\.suspend payload is 5002 bytes of JSON; this session allows 1024 \(maxOutputBytes\)/);
});

test('ctx.suspend twice, after the tool settled, or off a copy of ctx throws invalid_input', async () => {
  const errors = {};
  const settledCtx = deferred();
  const catchIt = (key, fn) => {
    try {
      fn();
      errors[key] = 'no error';
    } catch (error) {
      errors[key] = `${error.code}: ${error.message}`;
    }
  };
  const s = makeSession({
    limits: NEVER,
    tools: [
      { name: 'twice', execute: (input, ctx) => { const marker = ctx.suspend(1); catchIt('twice', () => ctx.suspend(2)); return marker; } },
      { name: 'done', execute: (input, ctx) => { settledCtx.resolve(ctx); return 'done'; } },
      { name: 'copy', execute: (input, ctx) => { catchIt('copy', () => ctx.suspend.call({ ...ctx }, 1)); errors.spread = typeof { ...ctx }.suspend; return 'copied'; } },
    ],
  });
  const r = await run(s, 'const d = await done(); const c = await copy(); return [d, c, await twice()]');
  assertWaiting(r);
  const ctx = await settledCtx.promise;
  catchIt('late', () => ctx.suspend(3));
  assert.deepEqual(errors, {
    copy: 'invalid_input: ctx.suspend() must be called on the ctx of a running tool call, as ctx.suspend(payload).',
    spread: 'undefined',
    twice: 'invalid_input: ctx.suspend() was already called for this tool call; it parks a call once.',
    late: 'invalid_input: ctx.suspend() was called after this tool call settled; call it before the tool returns, as `return ctx.suspend(payload)`.',
  });
  assert.deepEqual(r.pendingToolCalls.map((p) => p.payload), [1], 'the first suspend holds');
  assert.equal(s.cancelRun(r.runId), true);
});

test('in runCodeModeScript ctx.suspend throws: a headless script has no session to resolve the call', async () => {
  const r = await runCodeModeScript('return await approve(1)', {
    sessionId: `script-${process.pid}`,
    tools: [{ name: 'approve', execute: (input, ctx) => { try { return ctx.suspend(1); } catch (error) { return `${error.code}: ${error.message}`; } } }],
  });
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 'invalid_input: ctx.suspend() is not available in runCodeModeScript: a headless script has no session to resolve the call; use a CodeModeSession.');
});

// ---------- the value's way in ----------

test('a resolved value meets maxOutputBytes and the output contract on its way in, as a tool result does', async () => {
  const approve = approvalTool();
  const checked = {
    name: 'checked',
    outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    execute: (input, ctx) => ctx.suspend(null),
  };
  const s = makeSession({ limits: { ...NEVER, maxOutputBytes: 1024 }, tools: [approve.tool, checked] });
  const first = await run(s, 'const big = await approve(1); let contract; try { await checked() } catch (e) { contract = e.message } return { truncated: big.truncated, guidance: big.guidance, contract }');
  assert.equal(await s.resolveCall({ runId: first.runId, callId: first.pendingToolCalls[0].id, value: 'z'.repeat(4000) }), 'resolved');
  const second = await s.wait({ runId: first.runId });
  assertWaiting(second);
  assert.equal(await s.resolveCall({ runId: first.runId, callId: second.pendingToolCalls[0].id, value: { n: 'not a number' } }), 'resolved');
  const last = await s.wait({ runId: first.runId });
  assert.equal(last.status, 'completed', show(last));
  assert.deepEqual(last.value, {
    // An oversized value becomes the truncation marker.
    truncated: true,
    guidance: 'Output truncated; rerun with narrower args.',
    contract: 'Tool "checked" returned details that do not match its declared outputSchema.',
  });
});

// ---------- events ----------

test('events: tool_call_start at dispatch, no end while parked, and tool_call_end with the outcome on resolve', async () => {
  const events = [];
  const approve = approvalTool();
  const s = makeSession({ limits: NEVER, tools: [approve.tool], onEvent: (e) => { if (e.type.startsWith('tool_call')) events.push(e); } });
  const first = await run(s, 'const a = await approve(1); try { await approve(2) } catch (e) { return [a, e.message] }');
  const [one] = approve.contexts;
  assert.deepEqual(events.map((e) => [e.type, e.callId]), [['tool_call_start', one.callId]]);
  assert.equal(await s.resolveCall({ runId: first.runId, callId: one.callId, value: { ok: 1 } }), 'resolved');
  await eventually(() => events.length === 2, 'the end event');
  assert.deepEqual({ ...events[1], durationMs: typeof events[1].durationMs }, { type: 'tool_call_end', runId: first.runId, callId: one.callId, status: 'ok', durationMs: 'number', outputPreview: '{"ok":1}' });
  const second = await s.wait({ runId: first.runId });
  assertWaiting(second);
  const two = approve.contexts[1];
  assert.equal(await s.resolveCall({ runId: first.runId, callId: two.callId, error: { message: 'no' } }), 'resolved');
  await eventually(() => events.length === 4, 'the second end event');
  assert.deepEqual([events[3].status, events[3].error, events[3].outputPreview], ['error', 'no', undefined]);
  assert.deepEqual((await s.wait({ runId: first.runId })).value, [{ ok: 1 }, 'no']);
});
