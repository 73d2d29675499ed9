// Value semantics of the guest runtime (docs/contract.md, Guest runtime; Bridge).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeSession, closeAll, run, show, hostEval } from './_helpers.mjs';

const UNAWAITED = '[Unawaited Promise: use await or Promise.all(...) before emitting or returning values.]';

const session = makeSession();
after(closeAll);

async function completed(code) {
  const r = await run(session, code);
  assert.equal(r.status, 'completed', `expected completed for ${JSON.stringify(code)}, got ${show(r)}`);
  return r;
}
async function value(code) {
  return (await completed(code)).value;
}

test('a returned expression is the value (return 1+1 gives 2)', async () => {
  assert.equal(await value('return 1+1'), 2);
});

test('a cell without a return statement yields null', async () => {
  assert.equal(await value('const x = 1;'), null);
});

test('returning undefined yields null', async () => {
  assert.equal(await value('return undefined'), null);
});

test('top-level await works in a cell', async () => {
  assert.equal(await value('const v = await Promise.resolve(20); return v + await 1 + 1;'), 22);
});

test('returned structured values round-trip as JSON', async () => {
  assert.deepEqual(await value('return { a: [1, "two", true, null], b: { c: -1.5 } }'), {
    a: [1, 'two', true, null],
    b: { c: -1.5 },
  });
});

test('a BigInt becomes its decimal string', async () => {
  assert.equal(await value('return 10n ** 20n'), '100000000000000000000');
  assert.deepEqual(await value('return { n: -42n }'), { n: '-42' });
});

test('a boxed BigInt becomes its decimal string too, also in tool input', async () => {
  assert.equal(await value('return Object(7n)'), '7');
  assert.deepEqual(await value('return [1n, Object(-2n), { b: Object(12345678901234567890n) }]'), ['1', '-2', { b: '12345678901234567890' }]);
  const echo = makeSession({ tools: [{ name: 'echo', parameters: { type: 'object' }, execute: async (input) => input }] });
  const r = await run(echo, 'return await echo({ n: Object(3n) })');
  assert.equal(r.status, 'completed', show(r));
  assert.deepEqual(r.value, { n: '3' });
});

test('a lone surrogate becomes U+FFFD in values, output, errors and tool input; pairs are kept', async () => {
  assert.equal(await value('return "a\\ud800b"'), 'a\ufffdb');
  assert.deepEqual(await value('return { s: "\\udc00", ok: "\\ud83d\\ude00" }'), { s: '\ufffd', ok: '\u{1F600}' });
  const out = await completed('text("t\\ud800"); console.log("c\\udfff"); json({ j: "\\ud800" }); return 1');
  assert.deepEqual(out.output, [
    { type: 'text', text: 't\ufffd' },
    { type: 'text', text: 'c\ufffd' },
    { type: 'json', value: { j: '\ufffd' } },
  ]);
  const failed = await run(session, 'throw new Error("bad \\ud800")');
  assert.equal(failed.status, 'failed');
  assert.equal(failed.code, 'guest_error');
  assert.match(failed.error, /^Error: bad \ufffd\n\s+at .*user\.js:1:/);
  const echo = makeSession({ tools: [{ name: 'echo', parameters: { type: 'object' }, execute: async (input) => input }] });
  const r = await run(echo, 'return await echo({ s: "x\\ud800" })');
  assert.equal(r.status, 'completed', show(r));
  assert.deepEqual(r.value, { s: 'x\ufffd' });
});

test('NaN and Infinity become null', async () => {
  assert.deepEqual(await value('return [NaN, Infinity, -Infinity, { x: NaN }]'), [null, null, null, { x: null }]);
});

test('a Map and a Set become empty objects', async () => {
  assert.deepEqual(await value('return [new Map([[1, 2]]), new Set([1, 2])]'), [{}, {}]);
});

test('functions inside objects are dropped', async () => {
  assert.deepEqual(await value('return { a: 1, f() {}, g: () => 1, h: async () => 2 }'), { a: 1 });
});

test('a cyclic value becomes a string fallback', async () => {
  const v = await value('const o = { a: 1 }; o.self = o; return o');
  assert.equal(typeof v, 'string', `cycle fallback should be a string, got ${JSON.stringify(v)}`);
  assert.ok(v.length > 0);
});

test('an Error becomes exactly { name, message }', async () => {
  assert.deepEqual(await value('return new TypeError("bad thing")'), { name: 'TypeError', message: 'bad thing' });
  assert.deepEqual(await value('return { e: new Error("inner") }'), { e: { name: 'Error', message: 'inner' } });
});

test('an unawaited promise in a returned value becomes the exact guidance string', async () => {
  assert.deepEqual(await value('return { p: Promise.resolve(1) }'), { p: UNAWAITED });
  assert.deepEqual(await value('return [new Promise(() => {})]'), [UNAWAITED]);
});

test('an unawaited promise passed to json() becomes the exact guidance string', async () => {
  const r = await completed('json(Promise.resolve(1)); return 0');
  assert.deepEqual(r.output, [{ type: 'json', value: UNAWAITED }]);
});

test('text() and json() produce output entries in call order', async () => {
  const r = await completed('text("a"); json({ b: 1 }); text("c"); json([1, 2]); return 9');
  assert.equal(r.value, 9);
  assert.deepEqual(r.output, [
    { type: 'text', text: 'a' },
    { type: 'json', value: { b: 1 } },
    { type: 'text', text: 'c' },
    { type: 'json', value: [1, 2] },
  ]);
});

test('json() applies the bridge value rules to its argument', async () => {
  const r = await completed('json({ n: 5n, x: NaN, m: new Map(), f() {} })');
  assert.deepEqual(r.output, [{ type: 'json', value: { n: '5', x: null, m: {} } }]);
});

test('console methods write text output with level prefixes and log has none', async () => {
  const r = await completed(
    'console.log("l", 1); console.warn("w"); console.error("e"); console.info("i"); console.debug("d"); text("t")',
  );
  assert.deepEqual(r.output, [
    { type: 'text', text: 'l 1' },
    { type: 'text', text: '[warn] w' },
    { type: 'text', text: '[error] e' },
    { type: 'text', text: '[info] i' },
    { type: 'text', text: '[debug] d' },
    { type: 'text', text: 't' },
  ]);
});

test('TextEncoder and TextDecoder round-trip non-ASCII text with UTF-8 bytes', async () => {
  const str = 'héllo €😀 日本';
  const code = `const s = ${JSON.stringify(str)}; const b = new TextEncoder().encode(s);
    return { len: b.length, bytes: Array.from(b), back: new TextDecoder().decode(b), isU8: b instanceof Uint8Array };`;
  const v = await value(code);
  const hostBytes = Array.from(new TextEncoder().encode(str));
  assert.deepEqual(v, { len: hostBytes.length, bytes: hostBytes, back: str, isU8: true });
});

test('URL parses absolute URLs into WHATWG components', async () => {
  const code = `const u = new URL("https://user:pw@Example.COM:8443/a/b/../c?x=1&y=%20#frag");
    return [u.href, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash, u.origin];`;
  assert.deepEqual(await value(code), await hostEval(code));
});

test('URL resolves relative references against a base', async () => {
  const code = `return [
    new URL("../c/d?x=1#h", "https://ex.com/a/b/").href,
    new URL("/root", "https://ex.com/a/b").href,
    new URL("?q=2", "https://ex.com/a/b?q=1").href,
    new URL("//other.org/p", "https://ex.com/").href,
  ];`;
  const v = await value(code);
  assert.deepEqual(v, await hostEval(code));
  assert.equal(v[0], 'https://ex.com/a/c/d?x=1#h');
});

test('URL setters update href', async () => {
  const code = `const u = new URL("https://ex.com/a?x=1#h");
    u.pathname = "/z"; u.hash = "k"; u.port = "8080"; u.hostname = "host.test"; u.protocol = "http:";
    return [u.href, u.host, u.port];`;
  const v = await value(code);
  assert.deepEqual(v, await hostEval(code));
  assert.equal(v[0], 'http://host.test:8080/z?x=1#k');
});

test('an invalid URL throws a TypeError', async () => {
  assert.deepEqual(
    await value('try { new URL("not a url"); return "no throw" } catch (e) { return [e instanceof TypeError, e.name] }'),
    [true, 'TypeError'],
  );
});

test('URL.canParse answers as WHATWG does, with and without a base', async () => {
  const code = `return [
    URL.canParse("nope"), URL.canParse(""), URL.canParse("https://ex.com/a"),
    URL.canParse("/a", "https://ex.com"), URL.canParse("/a", "not a base"), URL.canParse("a", undefined),
  ];`;
  const v = await value(code);
  assert.deepEqual(v, await hostEval(code));
  assert.deepEqual(v, [false, false, true, true, false, false]);
});

test('URLSearchParams supports get, getAll, append, set, has and toString', async () => {
  const code = `const p = new URLSearchParams("a=1&b=2&a=3");
    p.append("c", "x y&z"); const r = [p.get("a"), p.getAll("a"), p.get("zz"), p.has("b")];
    p.set("a", "9"); p.delete("b"); r.push(p.toString()); return r;`;
  const v = await value(code);
  assert.deepEqual(v, await hostEval(code));
  assert.deepEqual(v, ['1', ['1', '3'], null, true, 'a=9&c=x+y%26z']);
});

test('url.searchParams is linked to the URL in both directions', async () => {
  const code = `const u = new URL("https://e.com/p?q=1");
    u.searchParams.append("r", "2"); u.searchParams.set("q", "z"); const afterParams = u.href;
    u.search = "?m=5"; return [afterParams, u.searchParams.get("m"), u.searchParams.get("q"), u.href];`;
  const v = await value(code);
  assert.deepEqual(v, ['https://e.com/p?q=z&r=2', '5', null, 'https://e.com/p?m=5']);
  assert.deepEqual(v, await hostEval(code));
});

test('fetch, require, process, Buffer, module and WebSocket are undefined in the guest', async () => {
  assert.deepEqual(
    await value('return [typeof fetch, typeof require, typeof process, typeof Buffer, typeof module, typeof WebSocket]'),
    ['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined'],
  );
});

test('assigning a runtime global in sloppy code leaves it unchanged', async () => {
  assert.deepEqual(
    await value('text = 1; console = 2; URL = 3; catalog = 4; return [typeof text, typeof console.log, typeof URL, typeof catalog.all]'),
    ['function', 'function', 'function', 'function'],
  );
});

test('assigning a runtime global in strict code throws a TypeError', async () => {
  assert.deepEqual(
    await value('"use strict"; try { text = 1; return "no throw" } catch (e) { return [e.name, typeof text] }'),
    ['TypeError', 'function'],
  );
});

test('runtime globals are non-writable and non-configurable', async () => {
  const names = ['text', 'json', 'yield_control', 'setTimeout', 'clearTimeout', 'console', 'URL',
    'URLSearchParams', 'TextEncoder', 'TextDecoder', 'catalog'];
  const v = await value(`return ${JSON.stringify(names)}.map((n) => {
    const d = Object.getOwnPropertyDescriptor(globalThis, n);
    // Web globals are lazy getters without a setter: just as non-writable as data properties.
    const writable = d && ('get' in d ? d.set !== undefined : d.writable);
    return [n, !!d, d ? writable : null, d ? d.configurable : null];
  })`);
  assert.deepEqual(v, names.map((n) => [n, true, false, false]));
  assert.deepEqual(await value('return [delete globalThis.text, typeof text]'), [false, 'function']);
  assert.deepEqual(await value('URL = 1; TextEncoder = 2; return [typeof URL, typeof TextEncoder]'), ['function', 'function']);
});

test('Function("return this")() reaches only the guest global object', async () => {
  assert.deepEqual(
    await value(`const g = Function("return this")();
      return [g === globalThis, typeof g.process, typeof g.require, typeof g.Buffer, typeof g.text,
        Object.getOwnPropertyNames(g).includes("process")]`),
    [true, 'undefined', 'undefined', 'undefined', 'function', false],
  );
});

test('eval and constructor chains see no host objects', async () => {
  assert.deepEqual(
    await value(`return [
      eval("typeof process"),
      eval("this") === globalThis,
      ({}).constructor.constructor("return typeof process")(),
      (async function () {}).constructor("return typeof require")() instanceof Promise,
      await (async function () {}).constructor("return typeof Buffer")(),
    ]`),
    ['undefined', true, 'undefined', true, 'undefined'],
  );
});
