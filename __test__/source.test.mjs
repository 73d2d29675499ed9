// Source front-end: module access, shell rejection, TypeScript, syntax errors, stack traces
// (docs/contract.md, Source front-end).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeSession, closeAll, run, show, hangGuard } from './_helpers.mjs';

const MODULE_DISABLED = 'code mode module access is disabled.';
const SYNTAX_TAIL = '. No tools were dispatched; correct the source and submit it again.';

let dispatched = 0;
const session = makeSession({
  tools: [
    { name: 'boom', description: 'counts dispatches', execute: () => { dispatched++; throw new Error('boom was dispatched'); } },
  ],
});
after(closeAll);

// ---------- §3.1 module access ----------

const MODULE_REJECTED = [
  ["import fs from 'fs'; return 1", 'default import'],
  ["import 'fs'", 'side-effect import'],
  ["import * as x from 'y'", 'namespace import'],
  ["import { a } from 'b'\nreturn a", 'named import'],
  ["const m = await import('fs'); return m", 'dynamic import'],
  ["return typeof import('x')", 'dynamic import in typeof'],
  ['return import.meta', 'import.meta'],
  ["require('fs')", 'require call'],
  ["const x = require('fs').readFileSync; return 1", 'require call in member chain'],
  ["require?.('fs')", 'optional require call'],
  ["(require)('fs')", 'parenthesised require'],
  ["(0, require)('fs')", 'comma-expression require'],
  ["r\\u0065quire('fs')", 'unicode-escaped require'],
  ["function f() { return require('child_process') }\nreturn 1", 'require inside a function'],
];

for (const [code, label] of MODULE_REJECTED) {
  test(`module access via ${label} is rejected before running`, async () => {
    const before = dispatched;
    const r = await run(session, `await boom().catch(() => {});\n${code}`);
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'invalid_input', show(r));
    assert.equal(r.error, MODULE_DISABLED, show(r));
    assert.equal(dispatched, before, 'no tool may be dispatched for a rejected cell');
  });
}

test('module access is rejected in TypeScript cells too', async () => {
  const r = await run(session, { code: "import type { A } from 'a';\nimport b from 'b';\nconst x: number = b;", language: 'typescript' });
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'invalid_input', show(r));
  assert.equal(r.error, MODULE_DISABLED, show(r));
});

const MODULE_ALLOWED = [
  ['return \'import fs from "fs"; require("x")\'', 'import fs from "fs"; require("x")', 'a string literal'],
  ["return `require('fs') ${1} import('x')`", "require('fs') 1 import('x')", 'a template literal'],
  ["// require('fs')\n/* import x from 'y' */\nreturn 1", 1, 'comments'],
  ["return /require\\('fs'\\)|import\\(/.test(\"require('fs')\")", true, 'a regex literal'],
  ["const api = { import: (x) => x + 1, require: (x) => x * 2 }; return [api.import(1), api.require(2), api['require'](3)]", [2, 4, 6], 'member calls named import/require'],
  ['const obj = { require(x) { return x } }; return obj.require("ok")', 'ok', 'a method named require'],
  ['const imports = 1, required = 2; return imports + required', 3, 'identifiers containing the words'],
];

for (const [code, expected, label] of MODULE_ALLOWED) {
  test(`${label} mentioning import or require run normally`, async () => {
    const r = await run(session, code);
    assert.equal(r.status, 'completed', show(r));
    assert.deepEqual(r.value, expected);
  });
}

for (const [code, label] of [
  ['return eval("require(\\"fs\\")")', 'require inside eval'],
  ['return new Function("return require")()', 'require inside Function'],
  ['module.exports = 1', 'module.exports'],
  ['return process.env', 'process.env'],
]) {
  test(`a runtime ReferenceError for ${label} maps to the module access message`, async () => {
    const r = await run(session, code);
    assert.equal(r.status, 'failed', show(r));
    // docs/contract.md (Source front-end) fixes the message; this test does not pin the code.
    assert.ok(r.error.startsWith(MODULE_DISABLED), `${show(r)} (code ${r.code})`);
    assert.ok(!r.error.includes('ReferenceError'), show(r));
  });
}

// ---------- §3.2 shell rejection ----------

const SHELL_REJECTED = [
  'ls',
  'ls -la /workspace',
  'pwd;',
  '#!/usr/bin/env bash\nls -la',
  'pwd && ls /x',
  'echo hello',
  'cat a | grep b',
  'ls > out 2>&1',
  '/bin/ls /x',
  './gradlew test',
  "sh -c 'ls'",
  'export FOO=bar',
  'NODE_ENV=test npm test',
  'git status',
  'if [ -d /x ]; then pwd; fi',
  'for f in *; do echo "$f"; done',
  'jq . f.json',
  'custom-tool --format=json',
  'ls *',
  'make > log',
];

for (const code of SHELL_REJECTED) {
  test(`the shell command ${JSON.stringify(code)} is rejected with actionable guidance`, async () => {
    const before = dispatched;
    const r = await run(session, code);
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'invalid_input', show(r));
    assert.ok(r.error.includes('not shell'), `mentions "not shell": ${r.error}`);
    assert.ok(r.error.includes('catalog.search(query)'), `mentions catalog.search(query): ${r.error}`);
    assert.ok(r.error.includes('Do not retry'), `mentions "Do not retry": ${r.error}`);
    assert.ok(/JavaScript/.test(r.error) && /TypeScript/.test(r.error), `says it runs JavaScript or TypeScript: ${r.error}`);
    assert.equal(dispatched, before);
  });
}

const SHELL_ACCEPTED = [
  ['return 7;', { status: 'completed', value: 7 }],
  ["ls('x')", null],
  ['ls = 7', { status: 'completed', value: null }],
  ['value || fallback', null],
  ['value > limit', null],
  ['ls -1; function ls() {}', { status: 'completed', value: null }],
  ['const r = await exec({ command: "ls" }); return r;', null],
  ['// shell: ls /x\nreturn 7;', { status: 'completed', value: 7 }],
  ['export const answer = 7;', null],
  ['const echo = (s) => s; return echo("hello")', { status: 'completed', value: 'hello' }],
  ['ls + count', null],
  ['ls - count\nvar ls = 5, count = 2', { status: 'completed', value: null }],
  ['cat * 2\nvar cat = 1', { status: 'completed', value: null }],
];

test('a known command name in a valid expression runs as the JavaScript it is', async () => {
  // `ls + count` parses, so the engine runs it: here it fails as JavaScript would.
  const r = await run(session, 'ls + count');
  assert.equal(r.status, 'failed', show(r));
  assert.match(r.error, /^ReferenceError: (ls|count) is not defined/, show(r));
});

for (const [code, expected] of SHELL_ACCEPTED) {
  test(`the JavaScript ${JSON.stringify(code)} is not rejected as shell`, async () => {
    const r = await run(session, code);
    if (r.status === 'failed') assert.ok(!r.error.includes('not shell'), `must not be classified as shell: ${show(r)}`);
    if (expected) {
      assert.equal(r.status, expected.status, show(r));
      assert.deepEqual(r.value, expected.value);
    }
  });
}

test('an empty cell is an input error, not a shell rejection', async () => {
  const r = await run(session, '');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'invalid_input', show(r));
  assert.equal(r.error, 'code or command must be a non-empty string.');
});

test('shell classification of 32,000 chained assignments finishes', async () => {
  // A hang guard, not a speed check: a classifier that backtracks on this input never ends.
  const code = 'A=x '.repeat(32000) + 'ls';
  const r = await hangGuard(run(session, code), 'classification finished');
  assert.equal(r.status, 'failed', show(r));
});

test('shell classification of many escaped quotes finishes', async () => {
  // A hang guard, not a speed check: a classifier that backtracks on this input never ends.
  const code = 'echo "' + '\\"'.repeat(32000) + '"';
  const r = await hangGuard(run(session, code), 'classification finished');
  assert.equal(r.status, 'failed', show(r));
});

// ---------- §3.3 TypeScript ----------

const TS_CELLS = [
  ['interface P { x: number; y?: string }\nconst p: P = { x: 2 };\nreturn p.x * 3;', 6, 'an interface and annotations'],
  ['enum Color { Red, Green = 5, Blue }\nreturn [Color.Red, Color.Green, Color.Blue, Color[5]];', [0, 5, 6, 'Green'], 'an enum'],
  ["function id<T>(v: T): T { return v }\nconst m = new Map<string, number>([['a', 1]]);\nreturn [id<number>(4), m.get('a')];", [4, 1], 'generics'],
  ['type Cfg = { port: number };\nconst c = { port: 80 } satisfies Cfg;\nreturn c.port;', 80, 'satisfies'],
  ["const t = ['a', 'b'] as const;\nconst o = { k: 1 } as const;\nreturn [t.length, o.k];", [2, 1], 'as const'],
  ['namespace NS { export const v = 3 }\nreturn NS.v;', 3, 'a namespace'],
  ['class A { constructor(private readonly n: number) {} get(): number { return this.n } }\nreturn new A(9).get();', 9, 'parameter properties'],
  ['const v = (await Promise.resolve(2 as unknown)) as number;\nreturn v!;', 2, 'top-level await with assertions'],
];

for (const [code, expected, label] of TS_CELLS) {
  test(`a TypeScript cell with ${label} runs`, async () => {
    const r = await run(session, { code, language: 'typescript' });
    assert.equal(r.status, 'completed', show(r));
    assert.deepEqual(r.value, expected);
  });
}

test('TypeScript syntax is a syntax error in a JavaScript cell', async () => {
  const r = await run(session, 'return 1 as any');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'invalid_input', show(r));
  assert.match(r.error, /^SyntaxError at user\.js:1:\d+: /, show(r));
});

// ---------- §3.4 syntax errors ----------

const SYNTAX_CASES = [
  ['const a = 1;\nconst b = ;\n', 'javascript', 'user.js', 2],
  ['const a = 1;\nconst b = 2;\nconst c = 3 +* 4;', 'javascript', 'user.js', 3],
  ['const a = 1;\n\n  let = = 3;', 'javascript', 'user.js', 3],
  ['return (', 'javascript', 'user.js', 1],
  ['let a = 1;\nlet b = 2;\nlet a = 3;', 'javascript', 'user.js', 3],
  ['const x = 1;\n\nbreak;', 'javascript', 'user.js', 3],
  ['const x: number = 1;\nconst y = x +;\nreturn y;', 'typescript', 'user.ts', 2],
  ['const x: number = 1;\n\nconst y: = 2;', 'typescript', 'user.ts', 3],
];

for (const [code, language, file, line] of SYNTAX_CASES) {
  test(`a syntax error on line ${line} of a ${language} cell reports ${file}:${line} (${JSON.stringify(code)})`, async () => {
    const r = await run(session, { code, language });
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'invalid_input', show(r));
    assert.ok(r.error.startsWith(`SyntaxError at ${file}:${line}:`), `expected ${file}:${line}: ${r.error}`);
    assert.match(r.error, new RegExp(`^SyntaxError at ${file.replace('.', '\\.')}:${line}:\\d+: .+`));
    assert.ok(r.error.endsWith(SYNTAX_TAIL), `ends with the guidance: ${r.error}`);
    assert.ok(r.error.length < 500, `bounded diagnostic (${r.error.length} chars)`);
  });
}

test('the syntax error column is 1-based and user-relative', async () => {
  const r = await run(session, 'const b = ;');
  assert.equal(r.status, 'failed', show(r));
  assert.ok(r.error.startsWith('SyntaxError at user.js:1:11:'), r.error);
});

test('a cell with a syntax error dispatches none of its tool calls', async () => {
  const before = dispatched;
  const r = await run(session, 'await boom();\nawait boom();\nconst broken = {;\n');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'invalid_input', show(r));
  assert.ok(r.error.startsWith('SyntaxError at user.js:3:'), r.error);
  assert.equal(dispatched, before, 'boom must not run');
  assert.ok(!r.nestedCalls || r.nestedCalls.length === 0, 'no nested calls recorded');
});

test('a cell with an early (semantic) syntax error dispatches none of its tool calls', async () => {
  const before = dispatched;
  const r = await run(session, 'await boom();\nlet a = 1;\nlet a = 2;');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'invalid_input', show(r));
  assert.ok(r.error.startsWith('SyntaxError at user.js:3:'), r.error);
  assert.equal(dispatched, before, 'boom must not run');
});

test('a TypeScript cell with a syntax error dispatches none of its tool calls', async () => {
  const before = dispatched;
  const r = await run(session, { code: 'await boom();\nlet x: = 1;', language: 'typescript' });
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'invalid_input', show(r));
  assert.ok(r.error.startsWith('SyntaxError at user.ts:2:'), r.error);
  assert.equal(dispatched, before, 'boom must not run');
});

test('a counter tool is dispatched when the cell is valid (control for the syntax tests)', async () => {
  const before = dispatched;
  const r = await run(session, 'try { await boom() } catch (e) { return e.message }');
  assert.equal(r.status, 'completed', show(r));
  assert.equal(r.value, 'boom was dispatched');
  assert.equal(dispatched, before + 1);
});

// ---------- §3.5 stack traces ----------

test('a thrown error reports the user line and no prelude frames', async () => {
  const r = await run(session, 'const a = 1;\nconst b = 2;\nthrow new Error("boom");');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'guest_error', show(r));
  assert.ok(r.error.startsWith('Error: boom'), r.error);
  assert.match(r.error, /\(user\.js:3:\d+\)/, r.error);
  assert.ok(!r.error.includes('prelude'), r.error);
});

test('a runtime error inside a function reports each user frame at its own line', async () => {
  const r = await run(session, 'const a = 1;\nfunction g() {\n  null.x;\n}\ng();');
  assert.equal(r.status, 'failed', show(r));
  assert.ok(r.error.startsWith('TypeError'), r.error);
  assert.match(r.error, /at g \(user\.js:3:\d+\)/, r.error);
  assert.match(r.error, /user\.js:5:\d+/, r.error);
  assert.ok(!r.error.includes('prelude'), r.error);
});

test('an error thrown after an await still reports the user line', async () => {
  const r = await run(session, 'await null;\nconst a = 1;\nthrow new Error("after await");');
  assert.equal(r.status, 'failed', show(r));
  assert.match(r.error, /user\.js:3:\d+/, r.error);
  assert.ok(!r.error.includes('prelude'), r.error);
});

test('a TypeScript runtime error reports a user frame and no prelude', async () => {
  const r = await run(session, { code: 'const a: number = 1;\nconst b: string = "x";\nthrow new Error("ts boom");', language: 'typescript' });
  assert.equal(r.status, 'failed', show(r));
  assert.ok(r.error.startsWith('Error: ts boom'), r.error);
  assert.match(r.error, /user\.(ts|js):3:\d+/, r.error);
  assert.ok(!r.error.includes('prelude'), r.error);
});

test('error.stack read by the guest shows the user line and no prelude frames', async () => {
  const r = await run(session, 'const a = 1;\nreturn new Error("x").stack;');
  assert.equal(r.status, 'completed', show(r));
  assert.equal(typeof r.value, 'string');
  assert.match(r.value, /user\.js:2:\d+/, `stack: ${JSON.stringify(r.value)}`);
  assert.ok(!r.value.includes('prelude'), `stack: ${JSON.stringify(r.value)}`);
});

// ---------- nesting and size: the front-end cannot be driven into a stack overflow ----------

const TOO_DEEP = /nesting is too deep/;

test('a deeply nested cell after `a++ /` fails with invalid_input and the process lives', async () => {
  const s = makeSession();
  const code = `let a = 0;\nreturn a++ / ` + '('.repeat(30000) + '1' + ')'.repeat(30000) + ' / 1;';
  for (const language of ['javascript', 'typescript']) {
    const r = await run(s, { code, language });
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'invalid_input', show(r));
    assert.match(r.error, TOO_DEEP, show(r));
  }
  const member = await run(s, 'x.if(0) / ' + '('.repeat(30000) + '1' + ')'.repeat(30000));
  assert.match(member.error, TOO_DEEP, show(member));
  assert.equal((await run(s, 'return 1')).value, 1, 'the session still runs cells');
});

test('a source over 256 KiB fails with invalid_input before anything runs', async () => {
  const s = makeSession();
  const r = await run(s, 'return 1;' + ' '.repeat(256 * 1024));
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'invalid_input', show(r));
  assert.match(r.error, /^code is too large: \d+ bytes, the limit is 262144\./, show(r));
});

test('transformTypeScript and redactSource survive the deepest sources on the Node thread', async () => {
  const { transformTypeScript, redactSource } = await import('../index.js').then((m) => m.default ?? m);
  const chain = transformTypeScript('type T = {}' + ' extends {} ? 1 : {}'.repeat(12000));
  assert.equal(typeof chain.code === 'string' || typeof chain.error === 'string', true);
  const parens = transformTypeScript('(' .repeat(200000) + '1');
  assert.equal(typeof parens.error, 'string');
  const tooLarge = transformTypeScript('type T = {}' + ' extends {} ? 1 : {}'.repeat(100000));
  assert.match(tooLarge.error, /^code is too large/);
  const secret = 'const apiKey = "sk-live-1234567890abcdef";\n';
  for (const body of ['('.repeat(10000) + '1' + ')'.repeat(10000), '['.repeat(200000)]) {
    const redacted = redactSource(secret + 'return ' + body);
    assert.ok(!redacted.includes('sk-live-1234567890abcdef'), redacted.slice(0, 80));
  }
});
