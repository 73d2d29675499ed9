// exec / wait input validation and constructor options (docs/contract.md, Inputs and
// languages; index.d.ts).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { CodeModeSession, makeSession, closeAll, show } from './_helpers.mjs';

const MISSING = 'code or command must be a non-empty string.';
const MISMATCH = 'code and command must match when both are provided.';
const BAD_LANGUAGE = 'language must be javascript or typescript.';
const TS_DISABLED = 'code mode typescript input is disabled.';
const JS_DISABLED = 'code mode javascript input is disabled.';
const BAD_RESTART = 'restartSafe must be a boolean.';
const BAD_RUN_ID = 'runId must be a non-empty string.';
const UNKNOWN_RUN = 'code mode run is unavailable or expired.';

const session = makeSession();
after(closeAll);

/** Calls exec/wait and asserts it resolves (never rejects) to an invalid_input failure with `message`. */
async function expectInvalid(promiseFactory, message, label) {
  let result;
  await assert.doesNotReject(async () => {
    result = await promiseFactory();
  }, `${label}: the promise must resolve, not reject`);
  assert.equal(result.status, 'failed', `${label}: ${show(result)}`);
  assert.equal(result.code, 'invalid_input', `${label}: ${show(result)}`);
  assert.equal(result.error, message, `${label}: ${show(result)}`);
  assert.ok(result.telemetry && typeof result.telemetry === 'object', `${label}: failed results carry telemetry`);
}

test('exec with no code or command fails with invalid_input', async () => {
  await expectInvalid(() => session.exec({}), MISSING, '{}');
  await expectInvalid(() => session.exec({ language: 'javascript' }), MISSING, 'language only');
});

test('exec with a non-object input fails with invalid_input', async () => {
  await expectInvalid(() => session.exec(undefined), MISSING, 'undefined');
  await expectInvalid(() => session.exec(null), MISSING, 'null');
  await expectInvalid(() => session.exec('return 1'), MISSING, 'bare string');
  await expectInvalid(() => session.exec(42), MISSING, 'number');
});

test('exec with blank code fails with invalid_input', async () => {
  await expectInvalid(() => session.exec({ code: '' }), MISSING, 'empty');
  await expectInvalid(() => session.exec({ code: '   \n\t ' }), MISSING, 'whitespace');
  await expectInvalid(() => session.exec({ command: '  ' }), MISSING, 'blank command');
  await expectInvalid(() => session.exec({ code: ' ', command: '' }), MISSING, 'both blank');
});

test('exec with a non-string code fails with invalid_input', async () => {
  await expectInvalid(() => session.exec({ code: 5 }), MISSING, 'number code');
  await expectInvalid(() => session.exec({ code: ['return 1'] }), MISSING, 'array code');
  await expectInvalid(() => session.exec({ code: { toString: () => 'return 1' } }), MISSING, 'object code');
});

test('a non-string alias makes exec fail closed even when the other field is valid', async () => {
  await expectInvalid(() => session.exec({ code: 'return 1', command: 5 }), MISSING, 'numeric command');
  await expectInvalid(() => session.exec({ command: 'return 1', code: true }), MISSING, 'boolean code');
});

test('exec with different non-blank code and command fails with invalid_input', async () => {
  await expectInvalid(() => session.exec({ code: 'return 3', command: 'return 4' }), MISMATCH, 'mismatch');
});

test('the command alias alone runs the cell', async () => {
  const r = await session.exec({ command: 'return 3' });
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 3);
});

test('identical code and command run the cell', async () => {
  const r = await session.exec({ code: 'return 4', command: 'return 4' });
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 4);
});

test('a blank alias next to non-blank code counts as absent', async () => {
  const r = await session.exec({ code: 'return 5', command: '   ' });
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 5);
});

test('exec with an unknown language fails with invalid_input', async () => {
  await expectInvalid(() => session.exec({ code: 'return 1', language: 'python' }), BAD_LANGUAGE, 'python');
  await expectInvalid(() => session.exec({ code: 'return 1', language: 'JavaScript ' }), BAD_LANGUAGE, 'wrong case');
  await expectInvalid(() => session.exec({ code: 'return 1', language: 1 }), BAD_LANGUAGE, 'number');
});

test('exec with language javascript runs the cell', async () => {
  const r = await session.exec({ code: 'return 6', language: 'javascript' });
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 6);
});

test('typescript input is rejected when limits.languages excludes it', async () => {
  const jsOnly = makeSession({ limits: { languages: ['javascript'] } });
  await expectInvalid(() => jsOnly.exec({ code: 'return 1', language: 'typescript' }), TS_DISABLED, 'ts disabled');
  const r = await jsOnly.exec({ code: 'return 1' });
  assert.equal(r.status, 'completed', show(r));
});

test('javascript input is rejected when limits.languages excludes it', async () => {
  const tsOnly = makeSession({ limits: { languages: ['typescript'] } });
  await expectInvalid(() => tsOnly.exec({ code: 'return 1' }), JS_DISABLED, 'js disabled');
  const r = await tsOnly.exec({ code: 'const n: number = 1; return n', language: 'typescript' });
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 1);
});

test("exec's schema and description offer only the languages limits.languages enables", () => {
  const execOf = (languages) => makeSession({ limits: { languages } }).modelTools()[0];
  const jsOnly = execOf(['javascript']);
  assert.deepEqual(jsOnly.parameters.properties.language.enum, ['javascript']);
  assert.deepEqual(jsOnly.parameters.required, ['code']);
  assert.ok(!/typescript/i.test(jsOnly.description.split('\n')[0]), jsOnly.description.split('\n')[0]);
  const tsOnly = execOf(['typescript']);
  assert.deepEqual(tsOnly.parameters.properties.language.enum, ['typescript']);
  assert.deepEqual(tsOnly.parameters.required, ['code', 'language'], 'the default (javascript) is disabled');
  assert.match(tsOnly.description, /^Run a short TypeScript/);
  const both = execOf(['typescript', 'javascript']);
  assert.deepEqual(both.parameters.properties.language.enum, ['javascript', 'typescript']);
  assert.match(both.description, /^Run a short JavaScript or TypeScript program/);
});

test('exec with a non-boolean restartSafe fails with invalid_input', async () => {
  await expectInvalid(() => session.exec({ code: 'return 1', restartSafe: 'yes' }), BAD_RESTART, 'string');
  await expectInvalid(() => session.exec({ code: 'return 1', restartSafe: 1 }), BAD_RESTART, 'number');
  await expectInvalid(() => session.exec({ code: 'return 1', restartSafe: 'false' }), BAD_RESTART, 'string false');
});

test('exec with a boolean restartSafe runs a cell that calls no tools', async () => {
  for (const restartSafe of [true, false]) {
    const r = await session.exec({ code: 'return 7', restartSafe });
    assert.equal(r.status, 'completed', `restartSafe=${restartSafe}: ${show(r)}`);
    assert.equal(r.value, 7);
  }
});

test('exec input is validated in order: code, then language, then restartSafe', async () => {
  await expectInvalid(() => session.exec({ language: 'python', restartSafe: 'x' }), MISSING, 'code first');
  await expectInvalid(() => session.exec({ code: 'return 1', language: 'python', restartSafe: 'x' }), BAD_LANGUAGE, 'language second');
});

test('wait with a missing runId fails with invalid_input', async () => {
  await expectInvalid(() => session.wait({}), BAD_RUN_ID, '{}');
  await expectInvalid(() => session.wait(), BAD_RUN_ID, 'no argument');
  await expectInvalid(() => session.wait(null), BAD_RUN_ID, 'null');
});

test('wait with a blank or non-string runId fails with invalid_input', async () => {
  await expectInvalid(() => session.wait({ runId: '' }), BAD_RUN_ID, 'empty');
  await expectInvalid(() => session.wait({ runId: '   ' }), BAD_RUN_ID, 'whitespace');
  await expectInvalid(() => session.wait({ runId: 17 }), BAD_RUN_ID, 'number');
});

test('wait with an unknown runId reports the run as unavailable', async () => {
  await expectInvalid(() => session.wait({ runId: 'cm_doesnotexist' }), UNKNOWN_RUN, 'unknown');
  await expectInvalid(() => session.wait({ runId: '  cm_doesnotexist  ' }), UNKNOWN_RUN, 'trimmed unknown');
});

test('wait accepts the run_id alias', async () => {
  await expectInvalid(() => session.wait({ run_id: 'cm_doesnotexist' }), UNKNOWN_RUN, 'run_id alias');
});

test('the constructor throws when sessionId is missing', () => {
  for (const options of [{}, { sessionId: '' }, { sessionId: 5 }, undefined]) {
    assert.throws(
      () => new CodeModeSession(options),
      (err) => {
        assert.ok(err instanceof Error, 'throws an Error');
        assert.equal(err.code, 'invalid_input', `options ${JSON.stringify(options)}: err.code was ${err.code} (${err.message})`);
        return true;
      },
    );
  }
});

test('the constructor throws when tools is not an array', () => {
  for (const tools of ['nope', {}, 5]) {
    assert.throws(
      () => new CodeModeSession({ sessionId: 'bad-tools', tools }),
      (err) => {
        assert.ok(err instanceof Error, 'throws an Error');
        assert.equal(err.code, 'invalid_input', `tools ${JSON.stringify(tools)}: err.code was ${err.code} (${err.message})`);
        return true;
      },
    );
  }
});

test('a constructed session exposes its sessionId', () => {
  const s = new CodeModeSession({ sessionId: 'exposed-id' });
  assert.equal(s.sessionId, 'exposed-id');
  return s.close();
});
