// redactSource and the session's `redaction` option: credential literals, recognisable
// tokens, registered secrets and patterns are masked; previews in onEvent and
// nestedCalls pass through the same redaction.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { native, makeSession, closeAll, run, show, drain } from './_helpers.mjs';

const { redactSource, CodeModeSession } = native;
after(closeAll);

const OPENAI = 'sk-proj-AbCdEfGhIjKlMnOpQrSt1234';
const GITHUB = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const SLACK = 'xoxb-1234567890-AbCdEfGhIjKl';
const AWS = 'AKIAIOSFODNN7EXAMPLE';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';

const MASKED = [
  ['const API_TOKEN = "abc123";', 'const API_TOKEN = "[REDACTED]";', 'string assigned to a token name'],
  ["let password = 'hunter2';", "let password = '[REDACTED]';", 'single quotes kept'],
  ['const clientSecret = `s3cr3t`;', 'const clientSecret = `[REDACTED]`;', 'template without expressions'],
  ['const opts = { apiKey: "k-1", region: "eu" };', 'const opts = { apiKey: "[REDACTED]", region: "eu" };', 'property value'],
  ['const h = { "x-api-key": "k-2" };', 'const h = { "x-api-key": "[REDACTED]" };', 'quoted property key'],
  ['cfg.auth = "Basic Zm9vOmJhcg==";', 'cfg.auth = "[REDACTED]";', 'member assignment'],
  ['const credentials = ["a", "b"];', 'const credentials = ["[REDACTED]", "[REDACTED]"];', 'array of credentials'],
  ['const token = process.env.T ?? "dev-token";', 'const token = process.env.T ?? "[REDACTED]";', 'fallback literal'],
  ['headers.set("Authorization", "Bearer abc");', 'headers.set("Authorization", "[REDACTED]");', 'header pair argument'],
  ['async function login(user, password = "changeme") {}', 'async function login(user, password = "[REDACTED]") {}', 'parameter default'],
  ['const db_password: string = "pw";', 'const db_password: string = "[REDACTED]";', 'TypeScript annotation'],
  [`const x = "${OPENAI}";`, 'const x = "[REDACTED]";', 'OpenAI-style key anywhere'],
  [`// ${GITHUB}`, '// [REDACTED]', 'GitHub token in a comment'],
  [`post({ text: "${SLACK}" });`, 'post({ text: "[REDACTED]" });', 'Slack token'],
  [`const id = '${AWS}';`, "const id = '[REDACTED]';", 'AWS access key id'],
  [`const h = "Bearer ${JWT}";`, 'const h = "Bearer [REDACTED]";', 'JWT inside a header value'],
];

for (const [input, expected, label] of MASKED) {
  test(`redactSource masks: ${label}`, () => {
    assert.equal(redactSource(input), expected);
  });
}

const PRESERVED = [
  ['const API_TOKEN = computeToken();', 'computation'],
  ['const secret = true; const token = null; const password = 42;', 'booleans, null, numbers'],
  ['const auth = `Bearer ${token}`;', 'template with expressions'],
  ['const author = "Jane Doe";', 'author is not auth'],
  ['const note = "rotate the token weekly";', 'ordinary string'],
  ['return await tools.search({ query: "api token docs", limit: 5 });', 'tool call'],
  ['const password = "";', 'empty string'],
];

for (const [input, label] of PRESERVED) {
  test(`redactSource keeps: ${label}`, () => {
    assert.equal(redactSource(input), input);
  });
}

test('registered secrets and configured patterns are masked', () => {
  const code = 'const door = "open-sesame-42"; const ticket = "CORP-1234"; const n = 1;';
  assert.equal(
    redactSource(code, { secrets: ['open-sesame-42'], patterns: ['CORP-[0-9]{4}'] }),
    'const door = "[REDACTED]"; const ticket = "[REDACTED]"; const n = 1;',
  );
});

test('redactSource takes RegExp patterns, with their i flag', () => {
  const out = redactSource('const note = "ref CORP-1234 and corp-5678";', { patterns: [/corp-\d{4}/i] });
  assert.equal(out, 'const note = "ref [REDACTED] and [REDACTED]";');
});

test('redacting twice gives the same text', () => {
  const options = { secrets: ['RED', 'hunter2'], patterns: ['[A-Z]{4,}'] };
  const code = `const password = "hunter2"; const k = "${OPENAI}"; const WOOD = "REDWOOD"; log("hunter2 was here");`;
  const once = redactSource(code, options);
  assert.equal(redactSource(once, options), once);
  assert.ok(!once.includes('hunter2') && !once.includes(OPENAI), once);
});

test('unparsable source falls back to the token patterns', () => {
  const code = `const token = "plain"; if ( { ${OPENAI} )`;
  assert.equal(redactSource(code), 'const token = "plain"; if ( { [REDACTED] )');
});

test('an invalid pattern or option is an invalid_input error', () => {
  assert.throws(() => redactSource('x', { patterns: ['ok', '(unclosed'] }), (e) => {
    assert.equal(e.code, 'invalid_input');
    assert.match(e.message, /^options\.patterns\[1\] is not a valid regular expression: /);
    return true;
  });
  assert.throws(() => redactSource('x', { secrets: 'abc' }), { code: 'invalid_input', message: 'options.secrets must be an array of strings.' });
  assert.throws(() => redactSource(5), { code: 'invalid_input', message: 'code must be a string.' });
});

test('the session rejects an invalid redaction option when constructed', () => {
  assert.throws(
    () => new CodeModeSession({ sessionId: 'bad-redaction', redaction: { patterns: ['[z-a]'] } }),
    (e) => e.code === 'invalid_input' && /^redaction\.patterns\[0\] is not a valid regular expression/.test(e.message),
  );
  assert.throws(() => new CodeModeSession({ sessionId: 'bad-redaction', redaction: 'x' }), { code: 'invalid_input', message: 'redaction must be an object.' });
});

test('nested-call previews in onEvent and nestedCalls are redacted', async () => {
  const events = [];
  const session = makeSession({
    redaction: { secrets: ['db-pass-778899'], patterns: [/corp-\d{4}/i] },
    onEvent: (e) => events.push(e),
    tools: [
      { name: 'lookup', execute: (input) => ({ echoed: input, key: OPENAI, ticket: 'CORP-5678' }) },
      { name: 'explode', execute: () => { throw new Error('login failed for db-pass-778899'); } },
    ],
  });
  const r = await run(session, `
    const a = await lookup({ password: "db-pass-778899", note: "ref corp-1234" });
    let failure = null;
    try { await explode({}); } catch (e) { failure = e.message; }
    return { keyLength: a.key.length, failure };
  `);
  assert.equal(r.status, 'completed', show(r));
  // The guest itself sees real values: redaction is display-only.
  assert.equal(r.value.keyLength, OPENAI.length);
  const previews = [
    ...events.filter((e) => e.type === 'tool_call_start').map((e) => e.inputPreview),
    ...events.filter((e) => e.type === 'tool_call_end').map((e) => e.outputPreview ?? e.error),
    ...r.nestedCalls.flatMap((c) => [c.inputPreview, c.outputPreview, c.error]).filter(Boolean),
  ];
  assert.equal(previews.length, 8, JSON.stringify(previews));
  for (const text of previews) {
    for (const secret of ['db-pass-778899', 'corp-1234', 'CORP-5678', OPENAI]) {
      assert.ok(!text.includes(secret), `${secret} leaked in ${text}`);
    }
  }
  assert.ok(previews.some((p) => p.includes('[REDACTED]')));
  const lookup = r.nestedCalls.find((c) => c.toolName === 'lookup');
  assert.equal(lookup.inputPreview, '{"password":"[REDACTED]","note":"ref [REDACTED]"}');
});

// Records keep short texts as they came until a result reads them (src/run/nested_calls.rs):
// every result that shows a record must show it redacted, including a text settled after
// an earlier result already read the record.
test('nestedCalls are redacted in a waiting result and again after a call settles past it', async () => {
  let release;
  const gate = new Promise((resolve) => { release = resolve; });
  const session = makeSession({
    redaction: { secrets: ['db-pass-778899'] },
    tools: [
      { name: 'lookup', execute: () => ({ key: OPENAI }) },
      { name: 'explode', execute: () => { throw new Error('login failed for db-pass-778899'); } },
      { name: 'held', execute: () => gate },
    ],
  });
  const first = await run(session, `
    await lookup({ password: "db-pass-778899" });
    try { await explode({}); } catch {}
    const pending = held({ auth: "${GITHUB}" });
    await yield_control("park");
    return (await pending).key.length;
  `);
  assert.equal(first.status, 'waiting', show(first));
  const byTool = (r) => Object.fromEntries(r.nestedCalls.map((c) => [c.toolName, c]));
  const parked = byTool(first);
  assert.equal(parked.lookup.inputPreview, '{"password":"[REDACTED]"}');
  assert.equal(parked.lookup.outputPreview, '{"key":"[REDACTED]"}');
  assert.equal(parked.explode.error, 'login failed for [REDACTED]');
  assert.equal(parked.held.status, 'pending', JSON.stringify(first.nestedCalls));
  assert.equal(parked.held.inputPreview, '{"auth":"[REDACTED]"}');
  assert.deepEqual(first.pendingToolCalls.map((p) => [p.id, p.toolName]), [[parked.held.callId, 'held']]);
  release({ key: SLACK });
  const last = await drain(session, await session.wait({ runId: first.runId }));
  assert.equal(last.status, 'completed', show(last));
  assert.equal(last.value, SLACK.length);
  const done = byTool(last);
  assert.equal(done.held.status, 'ok', JSON.stringify(last.nestedCalls));
  assert.equal(done.held.inputPreview, '{"auth":"[REDACTED]"}');
  assert.equal(done.held.outputPreview, '{"key":"[REDACTED]"}');
  for (const secret of ['db-pass-778899', OPENAI, GITHUB, SLACK]) {
    assert.ok(!JSON.stringify([first, last]).includes(secret), `${secret} leaked`);
  }
});

test('recognisable tokens are masked in previews without a redaction option', async () => {
  const events = [];
  const session = makeSession({ onEvent: (e) => events.push(e), tools: [{ name: 'echo', execute: (x) => x }] });
  const r = await run(session, `return await echo({ auth: "${GITHUB}" })`);
  assert.equal(r.status, 'completed', show(r));
  const start = events.find((e) => e.type === 'tool_call_start');
  assert.equal(start.inputPreview, '{"auth":"[REDACTED]"}');
  assert.equal(r.nestedCalls[0].outputPreview, '{"auth":"[REDACTED]"}');
});
