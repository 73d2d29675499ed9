// Gateway config helpers (docs/contract.md, Config and activation): resolveCodeModeConfig
// precedence, shorthands and limits; validateCodeModeConfig messages; assertCodeModePayload
// fail-closed checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { native } from './_helpers.mjs';

const { resolveCodeModeConfig, validateCodeModeConfig, assertCodeModePayload } = native;
const MODEL = 'anthropic/claude-opus-5';
const DEFAULT_LIMITS = {
  timeoutMs: 10000, memoryLimitBytes: 67108864, maxOutputBytes: 65536, maxSnapshotBytes: 10485760,
  maxPendingToolCalls: 16, maxToolInputBytes: 1048576, snapshotTtlSeconds: 900, searchDefaultLimit: 8, maxSearchLimit: 50,
  languages: ['javascript', 'typescript'],
};

/** A config with each precedence layer set (undefined leaves a layer out). */
function layered({ agentModel, agent, defaultsModel, global }) {
  return {
    tools: { codeMode: global },
    agents: {
      defaults: { models: { [MODEL]: { codeMode: defaultsModel } } },
      entries: { main: { tools: { codeMode: agent }, models: { [MODEL]: { codeMode: agentModel } } } },
    },
  };
}

const PRECEDENCE = [
  // [agent-model row, agent tools.codeMode, defaults model row, global, expected enabled]
  [false, true, true, true, false],
  [true, false, false, false, true],
  [undefined, false, true, true, false],
  [undefined, 'auto', true, true, 'auto'],
  [undefined, { enabled: true }, false, false, true],
  [undefined, { timeoutMs: 500 }, true, false, true],
  [undefined, undefined, true, false, true],
  [undefined, undefined, false, true, false],
  [undefined, undefined, undefined, 'auto', 'auto'],
  [undefined, undefined, undefined, { enabled: true }, true],
  [undefined, undefined, undefined, { timeoutMs: 500 }, false],
  [undefined, undefined, undefined, undefined, false],
  ['auto', undefined, 'auto', true, true],
];

for (const [agentModel, agent, defaultsModel, global, expected] of PRECEDENCE) {
  const label = JSON.stringify({ agentModel, agent, defaultsModel, global });
  test(`precedence: ${label} resolves to ${JSON.stringify(expected)}`, () => {
    const config = layered({ agentModel, agent, defaultsModel, global });
    const r = resolveCodeModeConfig(config, { agentId: 'main', model: MODEL, compat: { codeMode: 'preferred' } });
    assert.equal(r.enabled, expected);
    assert.equal(r.engaged, expected === true || expected === 'auto');
  });
}

test('shorthands and object forms resolve alike', () => {
  for (const value of [true, false, 'auto']) {
    const short = resolveCodeModeConfig({ tools: { codeMode: value } });
    const long = resolveCodeModeConfig({ tools: { codeMode: { enabled: value } } });
    assert.deepEqual(short, long);
    assert.equal(short.enabled, value);
  }
});

test('an object without enabled, an omitted or an invalid setting is off', () => {
  for (const config of [{}, { tools: {} }, { tools: { codeMode: { timeoutMs: 2000 } } }, { tools: { codeMode: 'yes' } }, { tools: { codeMode: { enabled: 1 } } }, null, undefined, 42]) {
    const r = resolveCodeModeConfig(config, { model: MODEL, compat: { codeMode: 'preferred' } });
    assert.equal(r.enabled, false, JSON.stringify(config));
    assert.equal(r.engaged, false);
  }
});

test('"auto" engages only for models whose compat.codeMode is "preferred"', () => {
  const config = { tools: { codeMode: 'auto' } };
  const engaged = (compat) => resolveCodeModeConfig(config, { model: MODEL, compat }).engaged;
  assert.equal(engaged({ codeMode: 'preferred' }), true);
  assert.equal(engaged({ codeMode: 'capable' }), false);
  assert.equal(engaged({}), false);
  assert.equal(engaged(undefined), false);
  assert.equal(resolveCodeModeConfig(config).enabled, 'auto');
});

test('an explicit model row bypasses the "auto" capability preference', () => {
  const config = { tools: { codeMode: 'auto' }, agents: { defaults: { models: { [MODEL]: { codeMode: true } } } } };
  const r = resolveCodeModeConfig(config, { model: MODEL, compat: { codeMode: 'capable' } });
  assert.deepEqual([r.enabled, r.engaged], [true, true]);
});

test('wildcard and "auto" model rows never change activation', () => {
  const config = { tools: { codeMode: true }, agents: { defaults: { models: { 'anthropic/*': { codeMode: false }, [MODEL]: { codeMode: 'auto' } } } } };
  assert.equal(resolveCodeModeConfig(config, { model: MODEL }).enabled, true);
});

test('a run with no tools never engages', () => {
  const config = { tools: { codeMode: true } };
  assert.equal(resolveCodeModeConfig(config, { toolCount: 0 }).engaged, false);
  assert.equal(resolveCodeModeConfig(config, { toolCount: 0 }).enabled, true);
  assert.equal(resolveCodeModeConfig(config, { toolCount: 3 }).engaged, true);
  assert.equal(resolveCodeModeConfig(config).engaged, true);
});

test('limits merge global then agent, are clamped, and ignore model rows', () => {
  const config = {
    tools: { codeMode: { enabled: true, timeoutMs: 2000, maxOutputBytes: 10, searchDefaultLimit: 30 } },
    agents: {
      defaults: { models: { [MODEL]: { codeMode: true, timeoutMs: 1 } } },
      entries: { main: { tools: { codeMode: { timeoutMs: 999999, maxSearchLimit: 20, languages: ['typescript'] } } } },
    },
  };
  const r = resolveCodeModeConfig(config, { agentId: 'main', model: MODEL });
  assert.deepEqual(r.limits, {
    ...DEFAULT_LIMITS, timeoutMs: 60000, maxOutputBytes: 1024, searchDefaultLimit: 20, maxSearchLimit: 20, languages: ['typescript'],
  });
  const other = resolveCodeModeConfig(config, { agentId: 'other' });
  assert.equal(other.limits.timeoutMs, 2000);
  assert.deepEqual(resolveCodeModeConfig({}).limits, DEFAULT_LIMITS);
});

test('non-integer and non-positive limits fall back to the defaults', () => {
  const r = resolveCodeModeConfig({ tools: { codeMode: { timeoutMs: 1.5, maxOutputBytes: -3, maxPendingToolCalls: '4' } } });
  assert.deepEqual([r.limits.timeoutMs, r.limits.maxOutputBytes, r.limits.maxPendingToolCalls], [10000, 65536, 16]);
});

test('resolve reads functions and undefined properties the way JSON does', () => {
  const r = resolveCodeModeConfig({ tools: { codeMode: { enabled: true, timeoutMs: undefined, hook() {} } } }, { agentId: undefined });
  assert.deepEqual([r.enabled, r.limits.timeoutMs], [true, 10000]);
  const cyclic = {}; cyclic.self = cyclic;
  assert.throws(() => resolveCodeModeConfig(cyclic), (e) => e.code === 'invalid_input' && /config must be plain JSON/.test(e.message));
});

test('validateCodeModeConfig returns [] for a valid config', () => {
  assert.deepEqual(validateCodeModeConfig({
    tools: { codeMode: { enabled: 'auto', timeoutMs: 5000 } },
    agents: { defaults: { models: { [MODEL]: { codeMode: true }, 'openai/*': { agentRuntime: { id: 'openclaw' } } } }, entries: { main: { tools: { codeMode: false } } } },
  }), []);
  assert.deepEqual(validateCodeModeConfig(undefined), []);
});

test('validateCodeModeConfig names the path of each problem', () => {
  const problems = validateCodeModeConfig({
    tools: { codeMode: { enabled: 'sometimes', timeoutMs: 0 } },
    agents: {
      defaults: { models: { 'openai/*': { codeMode: true }, [MODEL]: { codeMode: 'auto' } } },
      entries: { 'ops-bot': { tools: { codeMode: 3 }, models: { 'x/y': { codeMode: 'yes' } } } },
    },
  });
  assert.deepEqual(problems, [
    'tools.codeMode.enabled: must be true, false or "auto" (got "sometimes"); code mode stays off.',
    'tools.codeMode.timeoutMs: must be a positive integer (got 0); the default 10000 applies.',
    'agents.defaults.models["openai/*"].codeMode: wildcard model rows cannot set codeMode; set it on each exact "provider/model" row.',
    `agents.defaults.models["${MODEL}"].codeMode: "auto" is not allowed on a model row (true or false only); set "auto" on tools.codeMode instead.`,
    'agents.entries["ops-bot"].tools.codeMode: must be true, false, "auto" or an object with enabled (got 3); code mode stays off.',
    'agents.entries["ops-bot"].models["x/y"].codeMode: must be true or false (got "yes"); the row is ignored.',
  ]);
});

test('validateCodeModeConfig reports clamped limits and unknown keys', () => {
  assert.deepEqual(validateCodeModeConfig({ tools: { codeMode: { maxOutputBytes: 5, timeoutMS: 100 } } }), [
    'tools.codeMode.maxOutputBytes: 5 is outside 1024..10485760 and is clamped to 1024.',
    'tools.codeMode.timeoutMS: unknown code mode setting (ignored).',
  ]);
  assert.deepEqual(validateCodeModeConfig('nope'), ['config: must be an object.']);
});

test('assertCodeModePayload accepts exec, wait and approved direct-only tools', () => {
  assert.equal(assertCodeModePayload(['exec', 'wait']), undefined);
  assert.equal(assertCodeModePayload(['wait', 'ask_user', 'exec'], ['ask_user', 'notify']), undefined);
});

function rejects(names, direct, pattern) {
  assert.throws(() => assertCodeModePayload(names, direct), (e) => {
    assert.ok(e instanceof Error);
    assert.equal(e.code, 'invalid_input');
    assert.match(e.message, pattern);
    return true;
  });
}

test('assertCodeModePayload fails closed on missing, repeated or unapproved tools', () => {
  rejects(['exec'], [], /exactly one "wait" tool is required \(found 0\)/);
  rejects(['exec', 'wait', 'wait'], [], /exactly one "wait" tool is required \(found 2\)/);
  rejects(['exec', 'wait', 'read_file', 'web_search'], ['ask_user'], /not approved direct-only tools must stay in the catalog: "read_file", "web_search"/);
  rejects(['exec', 'wait', 'ask_user', 'ask_user'], ['ask_user'], /direct-only tools listed more than once: "ask_user"/);
  rejects([], undefined, /exactly one "exec" tool is required \(found 0\); exactly one "wait"/);
});

test('assertCodeModePayload rejects non-string lists', () => {
  rejects('exec,wait', undefined, /^toolNames must be an array of strings\.$/);
  rejects(['exec', 'wait', 3], undefined, /^toolNames must be an array of strings\.$/);
  rejects(['exec', 'wait'], [null], /^directOnly must be an array of strings\.$/);
});
