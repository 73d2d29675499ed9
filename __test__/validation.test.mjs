// Mistakes throw at construction (docs/contract.md, Errors and codes): unknown option keys
// with the nearest valid name, limits that are not limits, duplicate tool names, invalid
// schemas, unknown configureCodeModeRuntime keys; each with code "invalid_input" and the
// path of the bad field.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeSession, closeAll, native, run, show } from './_helpers.mjs';

after(closeAll);

const execute = () => null;

function throwsInvalid(fn, message) {
  assert.throws(fn, (error) => {
    assert.equal(error.code, 'invalid_input', String(error));
    if (message instanceof RegExp) assert.match(error.message, message);
    else assert.equal(error.message, message);
    return true;
  });
}

test('an unknown session option names the nearest valid one', () => {
  throwsInvalid(() => makeSession({ tool: [] }), 'tool is not an option; did you mean tools?');
  throwsInvalid(() => makeSession({ onEvents: () => {} }), 'onEvents is not an option; did you mean onEvent?');
});

test('an unknown session option far from every name lists the valid ones', () => {
  throwsInvalid(() => makeSession({ colour: 'red' }), /^colour is not an option; valid options: sessionId, .*isolation, sandboxGroup, telemetry, durableRuns\.$/);
});

test('an unknown limit names the nearest limit with its path', () => {
  throwsInvalid(() => makeSession({ limits: { timeout: 1 } }), 'limits.timeout is not an option; did you mean limits.timeoutMs?');
});

test('a limit of the wrong type or sign throws with its path', () => {
  throwsInvalid(() => makeSession({ limits: { timeoutMs: '5000' } }), 'limits.timeoutMs must be a positive integer (got "5000").');
  throwsInvalid(() => makeSession({ limits: { memoryLimitBytes: -5 } }), 'limits.memoryLimitBytes must be a positive integer (got -5).');
  throwsInvalid(() => makeSession({ limits: { languages: ['python'] } }), /^limits\.languages must be a non-empty array/);
});

test('a non-finite limit throws rather than falling back to the default', () => {
  throwsInvalid(() => makeSession({ limits: { timeoutMs: Infinity } }), 'limits.timeoutMs must be a positive integer (got Infinity).');
  throwsInvalid(() => makeSession({ limits: { maxOutputBytes: NaN } }), 'limits.maxOutputBytes must be a positive integer (got NaN).');
});

test('an unknown tool key names the tool key meant, other formats\' names included', () => {
  throwsInvalid(() => makeSession({ tools: [{ name: 'a', execute, inputSchema: { type: 'object' } }] }), 'tools[0].inputSchema is not an option; did you mean tools[0].parameters?');
  throwsInvalid(() => makeSession({ tools: [{ name: 'a', execute, descripton: 'x' }] }), 'tools[0].descripton is not an option; did you mean tools[0].description?');
});

test('a positive limit outside its range is still clamped, not refused', async () => {
  const s = makeSession({ limits: { timeoutMs: 1, maxOutputBytes: 10 ** 12 } });
  const r = await run(s, 'return 1');
  assert.equal(r.status, 'completed', show(r));
});

test('duplicate tool names in the constructor throw naming both entries', () => {
  throwsInvalid(
    () => makeSession({ tools: [{ name: 'a', execute }, { name: 'b', execute }, { name: 'a', execute }] }),
    'tools[2].name "a" is also the name of tools[0]; tool names must be unique within a source (a client tool may shadow a core tool of the same name).',
  );
});

test('addTools refuses a name already registered and leaves the session as it was', async () => {
  const s = makeSession({ tools: [{ name: 'a', execute: () => 'first' }] });
  throwsInvalid(() => s.addTools([{ name: 'a', execute: () => 'second' }]), 'tools[0].name "a" is already registered in this session; tool names must be unique within a source (a client tool may shadow a core tool of the same name).');
  s.addTools([{ name: 'b', execute: () => 'b' }]);
  const r = await run(s, 'return [await a(), await b()]');
  assert.deepEqual(r.value, ['first', 'b'], show(r));
});

test('a client tool shadows a core tool of the same name, as the seed orders them', async () => {
  const s = makeSession({
    tools: [
      { name: 'lookup', execute: () => 'core' },
      { name: 'lookup', source: 'client', execute: () => 'client' },
    ],
  });
  const r = await run(s, 'return await lookup()');
  assert.equal(r.value, 'client', show(r));
  assert.deepEqual(s.telemetry().sources, { core: 0, openclaw: 0, mcp: 0, client: 1 });
  const later = makeSession({ tools: [{ name: 'lookup', source: 'openclaw', execute: () => 'core' }] });
  later.addTools([{ name: 'lookup', source: 'client', execute: () => 'added client' }]);
  assert.equal((await run(later, 'return await lookup()')).value, 'added client');
  throwsInvalid(() => later.addTools([{ name: 'lookup', execute: () => 'core again' }]), 'tools[0].name "lookup" is already registered in this session; tool names must be unique within a source (a client tool may shadow a core tool of the same name).');
});

test('two tools of one source, or a shadow of a direct-only tool, still throw naming both', () => {
  throwsInvalid(
    () => makeSession({ tools: [{ name: 'a', source: 'client', execute }, { name: 'a', source: 'client', execute }] }),
    'tools[1].name "a" is also the name of tools[0]; tool names must be unique within a source (a client tool may shadow a core tool of the same name).',
  );
  throwsInvalid(
    () => makeSession({ tools: [{ name: 'a', directOnly: true, execute }, { name: 'a', source: 'client', execute }] }),
    'tools[1].name "a" is also the name of tools[0]; tool names must be unique within a source (a client tool may shadow a core tool of the same name).',
  );
});

test('an invalid parameters schema throws at construction with its path', () => {
  throwsInvalid(
    () => makeSession({ tools: [{ name: 'ok', execute }, { name: 'bad', parameters: { type: 'strnig' }, execute }] }),
    /^tools\[1\]\.parameters is not a valid JSON Schema: /,
  );
});

test('addTools refuses an invalid schema and registers nothing of its batch', async () => {
  const s = makeSession({ tools: [{ name: 'a', execute: () => 'a' }] });
  throwsInvalid(
    () => s.addTools([{ name: 'b', execute: () => 'b' }, { name: 'c', outputSchema: { required: 'x' }, execute }]),
    /^tools\[1\]\.outputSchema is not a valid JSON Schema: /,
  );
  // The refused batch left no host definitions behind: a later tool still gets its own.
  s.addTools([{ name: 'b', execute: () => 'b again' }]);
  const r = await run(s, 'return [await a(), await b()]');
  assert.deepEqual(r.value, ['a', 'b again'], show(r));
});

test('schemas users have pass: zod, MCP-style and JSON Schema 2020-12', async () => {
  const { z } = await import('zod');
  const zodSchema = z.toJSONSchema(z.object({ q: z.string(), n: z.number().optional() }));
  const s = makeSession({
    tools: [
      { name: 'zod_tool', parameters: zodSchema, execute: ({ q }) => q },
      { name: 'mcp_tool', parameters: { type: 'object', properties: { uri: { type: 'string', format: 'uri' } } }, outputSchema: true, execute },
    ],
  });
  const r = await run(s, 'return await zod_tool({ q: "hi" })');
  assert.equal(r.value, 'hi', show(r));
});

test('a direct-only tool needs an object schema the model can call', () => {
  throwsInvalid(
    () => makeSession({ tools: [{ name: 'd', directOnly: true, parameters: { type: 'string' }, execute }] }),
    'tools[0].parameters of a direct-only tool must be an object schema ({ type: "object", … }).',
  );
  throwsInvalid(() => makeSession({ tools: [{ name: 'd', directOnly: true, parameters: true, execute }] }), /direct-only tool must be an object schema/);
});

test('every modelTools() entry has an object schema as parameters', () => {
  const s = makeSession({ tools: [{ name: 'bare', directOnly: true, execute }, { name: 'typed', directOnly: true, parameters: { type: 'object', properties: { q: { type: 'string' } } }, execute }] });
  const tools = s.modelTools();
  assert.deepEqual(tools.map((t) => t.name), ['exec', 'wait', 'bare', 'typed']);
  for (const t of tools) assert.equal(t.parameters.type, 'object', t.name);
});

test('isolation accepts "process" and "thread" and nothing else', () => {
  makeSession({ isolation: 'thread' });
  makeSession({ isolation: 'process' });
  throwsInvalid(() => makeSession({ isolation: 'fork' }), 'isolation must be "process" or "thread" (got "fork").');
});

test('runCodeModeScript takes its own keys and refuses unknown ones', async () => {
  const r = await native.runCodeModeScript('return 2', { sessionId: 'script-keys', wallClockMs: 5000, maxToolCalls: 1, language: 'javascript' });
  assert.equal(r.value, 2, show(r));
  await assert.rejects(
    async () => native.runCodeModeScript('return 2', { sessionId: 'script-keys', wallClock: 5000 }),
    (e) => e.code === 'invalid_input' && e.message === 'wallClock is not an option; did you mean wallClockMs?',
  );
});

test('configureCodeModeRuntime refuses unknown keys with the nearest name', () => {
  throwsInvalid(() => native.configureCodeModeRuntime({ workers: 4 }), 'workers is not an option; did you mean workerThreads?');
  throwsInvalid(() => native.configureCodeModeRuntime({ isolation: 'fork' }), 'isolation must be "process" or "thread" (got "fork").');
  native.configureCodeModeRuntime({ isolation: 'thread' });
  for (const bad of [-1, 1025, 1.5, '8']) {
    throwsInvalid(() => native.configureCodeModeRuntime({ maxStuckWorkers: bad }), 'maxStuckWorkers must be an integer from 0 to 1024');
  }
  // The default again: other tests of this process keep their replacements.
  native.configureCodeModeRuntime({ maxStuckWorkers: 64 });
});

test('names() reports every rewritten tool name once, and only those', async () => {
  const s = makeSession({ tools: ['plain_name', 'web-search', 'class', '9patch'].map((name) => ({ name, execute })) });
  const names = s.names();
  assert.deepEqual(Object.keys(names), ['web-search', 'class', '9patch']);
  assert.equal(names['web-search'], 'web_search');
  assert.match(names.class, /^class_[0-9a-f]{8}$/);
  assert.equal(names['9patch'], 'tool_9patch');
  const r = await run(s, `return await ${names['9patch']}({})`);
  assert.equal(r.status, 'completed', show(r));
});
