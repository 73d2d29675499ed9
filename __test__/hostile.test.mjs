// Hostile code (docs/contract.md, Hostile code): every attack a model can write fails
// cleanly with the documented status, code and message (or succeeds correctly), the
// process survives, and the next cell on the same session is healthy. Memory and output
// limits are small so each case is fast. Only the attacks whose documented outcome is the
// deadline run on a short clock (300 ms); every other attack gets a minute, so no outcome
// depends on how fast the machine computes (under load, guest threads run at the lowest
// priority).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeSession, closeAll, show, utf8Length, drain } from './_helpers.mjs';

after(closeAll);

// The sessions below differ in timeoutMs; the message names whichever one ran out.
const TIMEOUT = /^code mode timeout exceeded \(timeoutMs \d+\)$/;
const MAX_OUTPUT = 4096;
const QUEUE_LIMIT =
  /^code mode bridge queue limit exceeded \(129 ordinary requests queued; 16 in-flight slots\)\. Await smaller batches before creating more tool calls or timers\./;

/** What the host saw, per tool call: the raw input, checked for plain JSON on arrival. */
const received = [];

function isPlainJson(value, seen = new Set()) {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || seen.has(value)) return false;
  seen.add(value);
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (proto !== Array.prototype) return false;
  } else if (proto !== Object.prototype) {
    return false;
  }
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key === 'symbol') return false;
    const d = Object.getOwnPropertyDescriptor(value, key);
    if (key === 'length' && Array.isArray(value)) continue;
    if (!('value' in d) || !d.enumerable) return false; // an accessor would run host-side
    if (!isPlainJson(d.value, seen)) return false;
  }
  return true;
}

const tools = [
  {
    name: 'echo',
    execute: (input) => {
      received.push({ input, plain: isPlainJson(input), json: JSON.stringify(input) });
      return input;
    },
  },
  { name: 'fail', execute: () => { throw new Error('tool failed on purpose'); } },
  { name: 'never', execute: () => new Promise(() => {}) },
  {
    // Hands back host-side exotica: the guest must only ever see parsed JSON.
    name: 'exotic',
    execute: () => {
      const value = { date: new Date(0), error: new Error('host error'), fn() {}, nested: { n: 1 } };
      Object.defineProperty(value, 'getter', { get: () => 'computed on the host', enumerable: true });
      return value;
    },
  },
  { name: 'deep', execute: ({ depth }) => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) },
  { name: 'proxy', execute: () => new Proxy({}, { ownKeys() { throw new Error('host proxy trap'); } }) },
];

const hostile = makeSession({
  tools,
  limits: { timeoutMs: 60_000, memoryLimitBytes: 8 * 1024 * 1024, maxOutputBytes: MAX_OUTPUT },
});

// The same limits on a short clock, for the attacks that must end at the deadline.
const clocked = makeSession({
  tools,
  limits: { timeoutMs: 300, memoryLimitBytes: 8 * 1024 * 1024, maxOutputBytes: MAX_OUTPUT },
});

// Default memory and a long clock, for the cases that need room rather than a tight limit.
const roomy = makeSession({ tools, limits: { timeoutMs: 60_000, maxOutputBytes: MAX_OUTPUT } });

let cases = 0;

/**
 * Defines one attack: run it, check the outcome, then prove the session is healthy. An
 * attack expected to time out runs on the short clock unless a session is given.
 */
function attack(name, code, check, { session = DEADLINE_CHECKS.has(check) ? clocked : hostile } = {}) {
  cases++;
  test(name, async () => {
    received.length = 0;
    const result = await session.exec({ code });
    await check(result);
    assertWithinBudget(result, MAX_OUTPUT);
    await assertHealthy(session);
  });
}

async function assertHealthy(session) {
  // On the short clock a loaded machine may park even this cell: waiting is then drained.
  const next = await drain(session, await session.exec({ code: 'const r = await echo({ ok: 1 }); return [r.ok, 1 + 1]' }));
  assert.equal(next.status, 'completed', `the next cell must be healthy: ${show(next)}`);
  assert.deepEqual(next.value, [1, 2]);
  assert.deepEqual(session.runs(), [], 'nothing is left parked');
}

function assertWithinBudget(result, max) {
  const used =
    utf8Length(JSON.stringify(result.output ?? [])) +
    utf8Length(JSON.stringify(result.status === 'failed' ? result.error : result.value ?? null));
  // An empty output array costs nothing; value/error plus output fit the budget.
  assert.ok(used <= max + 2, `result uses ${used} bytes of ${max}: ${show(result)}`);
}

const timesOut = (r) => {
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'timeout', show(r));
  assert.match(r.error, TIMEOUT);
};
const timesOutOrOutOfMemory = (r) => {
  assert.equal(r.status, 'failed', show(r));
  if (r.code === 'timeout') assert.match(r.error, TIMEOUT);
  else outOfMemory(r);
};
const DEADLINE_CHECKS = new Set([timesOut, timesOutOrOutOfMemory]);
function outOfMemory(r) {
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'memory_limit_exceeded', show(r));
  assert.match(r.error, /memory/i, show(r));
}
const stackOverflow = (r) => {
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'guest_error', show(r));
  assert.match(r.error, /^(RangeError|InternalError): (Maximum call stack size exceeded|stack overflow)/, show(r));
};
const queueOverflow = (r) => {
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'invalid_input', show(r));
  assert.match(r.error, QUEUE_LIMIT, show(r));
};
const completes = (expected) => (r) => {
  assert.equal(r.status, 'completed', show(r));
  assert.deepEqual(r.value, expected);
};

// ---------- infinite loops ----------

attack('a bare infinite loop times out', 'for (;;) {}', timesOut);
attack('an infinite loop inside a getter times out', 'const o = { get x() { for (;;) {} } }; return o.x', timesOut);
attack('an infinite loop inside valueOf coercion times out', 'return 1 + { valueOf() { for (;;) {} } }', timesOut);
attack('an infinite loop inside toString coercion times out', 'return `${{ toString() { for (;;) {} } }}`', timesOut);
attack('an infinite loop in an Array.prototype.sort comparator times out',
  'return [3, 1, 2].sort(() => { for (;;) {} })', timesOut);
attack('a sort comparator that lies forever still terminates or times out',
  'const a = Array.from({ length: 2000 }, (_, i) => i); a.sort(() => Math.random() - 0.5); return a.length',
  completes(2000));
attack('an infinite loop in a getter the bridge reads while serialising tool input times out',
  'return await echo({ get x() { for (;;) {} } })', timesOut);
attack('an infinite loop in toJSON of the returned value times out',
  'return { toJSON() { for (;;) {} } }', timesOut);
attack('an infinite loop in the message getter of a thrown error times out',
  'const e = new Error("x"); Object.defineProperty(e, "message", { get() { for (;;) {} } }); throw e', timesOut);
attack('an infinite loop in the reason of an unhandled rejection times out rather than completing',
  'const e = new Error("x"); Object.defineProperty(e, "message", { get() { for (;;) {} } }); Promise.reject(e); return 1',
  timesOut);
attack('an endless await loop times out', 'for (;;) await null', timesOut);
attack('a self-scheduling promise job loop times out',
  'function again() { Promise.resolve().then(again) } again(); await new Promise(() => {})', timesOut);
attack('an infinite loop inside a timer callback times out',
  'setTimeout(() => { for (;;) {} }, 0); await new Promise((r) => setTimeout(r, 50))', timesOut);
attack('an infinite loop in a microtask after a tool result times out',
  'await echo({}); for (;;) {}', timesOut);
attack('a catch block cannot swallow the timeout', 'try { for (;;) {} } catch (e) { return "caught" } finally { return "finally" }', timesOut);
attack('an infinite regular-expression backtrack times out', 'return /^(a+)+$/.test("a".repeat(40) + "b")', timesOut);

test('a self-rescheduling timer storm parks at the deadline and can be cancelled', async () => {
  cases++;
  const r = await clocked.exec({ code: 'function tick() { setTimeout(tick, 0) } tick(); await new Promise(() => {})' });
  assert.equal(r.status, 'waiting', show(r));
  assert.equal(r.reason, 'pending_tools');
  assert.equal(clocked.cancelRun(r.runId), true);
  await assertHealthy(clocked);
});

// ---------- memory bombs ----------

attack('a string-doubling bomb fails with a memory error', 'let s = "x"; for (;;) s += s', outOfMemory);
attack('an array bomb fails with a memory error', 'const a = []; for (;;) a.push([a.length, "v" + a.length])', outOfMemory);
attack('a typed-array bomb fails with a memory error', 'const a = []; for (;;) a.push(new Float64Array(65536))', outOfMemory);
attack('one huge ArrayBuffer fails with a memory error', 'return new ArrayBuffer(512 * 1024 * 1024).byteLength', outOfMemory);
attack('a URLSearchParams bomb fails with a memory error',
  'const p = new URLSearchParams(); for (let i = 0; ; i++) p.append("k" + i, "v".repeat(200))', outOfMemory);
// Near the limit QuickJS collects garbage on almost every allocation, so small-object
// bombs may reach the deadline first: either is a clean failure.
attack('a Map bomb fails with a memory error or times out', 'const m = new Map(); for (let i = 0; ; i++) m.set(i, { i })', timesOutOrOutOfMemory);
attack('a 256 MB string repeat fails with a memory error', 'return "x".repeat(2 ** 28).length', outOfMemory);
attack('a string longer than QuickJS allows fails with a RangeError', 'return "x".repeat(2 ** 30).length', (r) => {
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'guest_error', show(r));
  assert.match(r.error, /^RangeError: invalid string length/, show(r));
});
attack('10,000 promises resolved under a small memory limit fail with a memory error, not as pending',
  'const v = await Promise.all(Array.from({ length: 10000 }, (_, i) => Promise.resolve(i))); return v.length', outOfMemory);
attack('a returned value too big to serialise within the memory limit fails with a memory error',
  'return "v".repeat(5 * 1024 * 1024)', outOfMemory);
attack('tool input too big to serialise within the memory limit fails with a memory error',
  'return await echo({ big: "v".repeat(3 * 1024 * 1024) })', (r) => {
    outOfMemory(r);
    assert.equal(received.length, 0, 'the tool never ran');
  });
attack('text() of a string too big to copy within the memory limit fails with a memory error',
  'text("😀".repeat(1000000)); return 1', (r) => {
    // QuickJS cannot always allocate the real error here; the failure is still a memory failure.
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'memory_limit_exceeded', show(r));
  });
attack('a deep JSON.parse bomb fails cleanly',
  'return JSON.parse("[".repeat(200000) + "]".repeat(200000))', (r) => {
    assert.equal(r.status, 'failed', show(r));
    assert.ok(['guest_error', 'memory_limit_exceeded'].includes(r.code), show(r));
    assert.match(r.error, /stack|memory/i, show(r));
  });
attack('a string-doubling loop the guest catches recovers: it hits the string length wall, not the heap limit',
  // Concatenation builds ropes, so the doubling stops at QuickJS's length limit, a
  // catchable error, long before the heap fills.
  'try { let s = "x"; for (;;) s += s } catch (e) {} return "recovered"', (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.equal(r.value, 'recovered');
  });
attack('an array bomb the guest catches still fails the cell with a memory error',
  'try { const a = []; for (;;) a.push([a.length]) } catch (e) {} return "recovered"', outOfMemory);

// ---------- recursion ----------

attack('plain deep recursion fails with a RangeError', 'function f() { return f() + 1 } return f()', stackOverflow);
attack('recursion through a JSON.stringify replacer fails with a RangeError',
  'return JSON.stringify({ a: 1 }, function r(k, v) { return JSON.stringify(v, r) })', stackOverflow);
attack('recursion through getters fails with a RangeError', 'const o = { get x() { return this.x } }; return o.x', stackOverflow);
attack('recursion through toString fails with a RangeError', 'const o = { toString() { return `${this}` } }; return `${o}`', stackOverflow);
attack('recursion through a Proxy get trap fails with a RangeError',
  'const p = new Proxy({}, { get(t, k, r) { return r[k] } }); return p.x', stackOverflow);
attack('an ever-deepening toJSON fails cleanly or becomes the unserializable string fallback',
  'return { toJSON() { return { a: this } } }', (r) => {
    if (r.status === 'completed') assert.match(r.value, /^\[Unserializable value: /, show(r));
    else timesOutOrOutOfMemory(r);
  });
attack('a value nested too deep for the host still crosses as a string fallback or JSON',
  'let v = 1; for (let i = 0; i < 100000; i++) v = [v]; return v', (r) => {
    assert.ok(r.status === 'completed' || r.code === 'memory_limit_exceeded', show(r));
    if (r.status === 'completed') assert.ok(typeof r.value === 'string' || Array.isArray(r.value), show(r));
  });

// ---------- host-object hunting ----------

const FORBIDDEN = ['native', 'settle', 'fireTimer', 'firstUnhandled', 'installTools', 'invoke', 'done',
  'pauseBudget', 'resumeBudget', 'process', 'require', 'Buffer', 'module', 'exports', '__dirname',
  'fetch', 'WebSocket', 'setImmediate', 'setInterval', 'XMLHttpRequest', 'Deno', 'Bun'];

attack('Function("return this")() is the guest global with no host objects',
  `const g = Function("return this")();
   return [g === globalThis, ${JSON.stringify(FORBIDDEN)}.filter((k) => k in g || typeof g[k] !== "undefined")]`,
  completes([true, []]));
attack('constructor chains reach only the guest realm',
  `const viaTool = echo.constructor.constructor("return this")();
   const viaArrow = (() => {}).constructor("return typeof process + typeof require")();
   const viaAsync = (async () => {}).constructor("return 1");
   return [viaTool === globalThis, viaArrow, typeof viaAsync]`,
  completes([true, 'undefinedundefined', 'function']));
attack('walking __proto__ chains and own properties finds no host surface',
  `const seen = new Set(); const names = new Set(); const queue = [globalThis, echo, catalog, API, console, text, setTimeout, yield_control];
   while (queue.length && seen.size < 20000) {
     const o = queue.shift();
     if (o === null || (typeof o !== "object" && typeof o !== "function") || seen.has(o)) continue;
     seen.add(o);
     let keys = []; try { keys = Reflect.ownKeys(o) } catch (e) {}
     for (const k of keys) {
       names.add(String(k));
       let d; try { d = Object.getOwnPropertyDescriptor(o, k) } catch (e) { continue }
       if (d && "value" in d) queue.push(d.value);
     }
     try { queue.push(Object.getPrototypeOf(o)); queue.push(o.__proto__) } catch (e) {}
   }
   return [seen.size > 100, ${JSON.stringify(FORBIDDEN)}.filter((k) => names.has(k))]`,
  completes([true, []]));
attack('error stacks show guest frames only, never host paths',
  `const stacks = [];
   try { await fail({}) } catch (e) { stacks.push(String(e.stack)) }
   try { null.x } catch (e) { stacks.push(String(e.stack)) }
   await new Promise((r) => setTimeout(() => { stacks.push(String(new Error("t").stack)); r() }, 0));
   return stacks.filter((s) => /\\/work\\/|node_modules|\\.node\\b|\\.rs\\b|host_glue|internal\\//.test(s))`,
  completes([]));
attack('runtime functions print no runtime source through toString',
  'return [text, json, setTimeout, yield_control, echo, catalog.search, console.log, API.read].map(String)',
  (r) => {
    assert.equal(r.status, 'completed', show(r));
    for (const source of r.value) assert.match(source, /^function [\w$]*\(\) \{\s+\[native code\]\s+\}$/, source);
  });
attack('Symbol.species on a subclassed Promise cannot hijack the bridge',
  `class Evil extends Promise { static get [Symbol.species]() { return Promise } }
   Object.defineProperty(Promise, Symbol.species, { get() { throw new Error("species trap") } });
   return await echo({ v: await Evil.resolve(5) })`,
  // Tool calls return intrinsic promises and awaiting them never consults species.
  completes({ v: 5 }));
attack('a species trap the guest itself trips on a tool promise fails the cell as a guest error',
  `Object.defineProperty(Promise, Symbol.species, { get() { throw new Error("species trap") } });
   return await echo({ v: 1 }).then((r) => r)`,
  (r) => {
    // The guest broke its own promise machinery: a guest failure, never runtime_unavailable.
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'guest_error', show(r));
    assert.match(r.error, /^Error: species trap/, show(r));
  });
attack('a throwing Promise.prototype.constructor cannot break how the cell finishes',
  `Object.defineProperty(Promise.prototype, "constructor", { get() { throw new Error("constructor trap") } });
   return await echo({ ok: true })`,
  (r) => {
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'guest_error', show(r));
    assert.match(r.error, /^Error: constructor trap/, show(r));
  });
attack('Symbol.species on an Array handed to a tool is ignored by the bridge',
  `class Weird extends Array { static get [Symbol.species]() { throw new Error("species") } }
   const w = Weird.from([1, 2, 3]); return await echo({ w })`,
  completes({ w: [1, 2, 3] }));

// Frames the runtime puts on the stack under guest code: a `then` getter the settling of
// a tool call trips, a timer callback, a thrown error's getters. Their CallSites, `caller`
// and `arguments` must hand the guest no function of the runtime (V8's answer for strict
// frames: `getFunction()` is undefined), so a guest can never settle its own calls.
const COLLECT_FRAMES = `
  const reached = [];
  const names = [];
  Error.prepareStackTrace = (e, sites) => sites;
  function frames() {
    const sites = new Error("probe").stack;
    const holder = {};
    Error.captureStackTrace(holder);
    for (const site of [...sites, ...holder.stack]) {
      names.push(String(site.getFunctionName()));
      const f = site.getFunction();
      if (f !== undefined) reached.push(String(f).slice(0, 60));
    }
  }
`;
attack('CallSites under a then getter tripped by a tool result reach no runtime function',
  `${COLLECT_FRAMES}
   Object.defineProperty(Object.prototype, "then", { configurable: true, get() { frames(); return undefined } });
   const value = await echo({ v: "real" });
   delete Object.prototype.then;
   return { reached, value, sawRuntimeFrame: names.includes("settle") }`,
  completes({ reached: [], value: { v: 'real' }, sawRuntimeFrame: true }));
attack('CallSites in a timer callback reach no runtime function',
  `${COLLECT_FRAMES}
   await new Promise((resolve) => setTimeout(() => { frames(); resolve() }, 0));
   return reached`,
  completes([]));
attack('CallSites in error getters the runtime reads reach no runtime function',
  `${COLLECT_FRAMES}
   const e = new Error("x");
   Object.defineProperty(e, "message", { get() { frames(); return "m" } });
   try { await echo({ e }) } catch {}
   return reached`,
  completes([]));
attack('getFunction cannot be put back on the shared CallSite prototype',
  `let proto;
   Error.prepareStackTrace = (e, sites) => { proto = Object.getPrototypeOf(sites[0]); return "" };
   new Error().stack;
   let replaced = true;
   try { proto.getFunction = function () { return "swapped" } } catch { replaced = false }
   try { Object.defineProperty(proto, "getFunction", { value: () => "swapped" }) } catch { replaced = false }
   return [replaced, Object.isFrozen(proto), proto.getFunction.call(proto) === undefined]`,
  completes([false, true, true]));
attack('caller and arguments of guest functions the runtime calls expose nothing',
  `const seen = [];
   function sloppy() {
     try { seen.push(typeof sloppy.caller) } catch { seen.push("throws") }
     try { seen.push(typeof arguments.callee.caller) } catch { seen.push("throws") }
   }
   await new Promise((resolve) => setTimeout(() => { sloppy(); resolve() }, 0));
   Object.defineProperty(Object.prototype, "then", { configurable: true, get() { sloppy(); return undefined } });
   await echo({});
   delete Object.prototype.then;
   return seen.filter((t) => t === "function")`,
  completes([]));
attack('overridden Function.prototype, iterator and Promise methods receive no runtime function',
  `const got = [];
   const note = (args) => { for (let i = 0; i < args.length; i++) if (typeof args[i] === "function") got.push(args[i].name) };
   const { call, apply, bind } = Function.prototype;
   const then = Promise.prototype.then;
   const iterator = Array.prototype[Symbol.iterator];
   Function.prototype.call = function (...args) { note(args); return Reflect.apply(call, this, args) };
   Function.prototype.apply = function (...args) { note(args); return Reflect.apply(apply, this, args) };
   Function.prototype.bind = function (...args) { note(args); return Reflect.apply(bind, this, args) };
   Promise.prototype.then = function (...args) { note(args); return Reflect.apply(then, this, args) };
   Array.prototype[Symbol.iterator] = function () { note([this]); return Reflect.apply(iterator, this, []) };
   const value = await echo({ v: 1 });
   await new Promise((resolve) => setTimeout(resolve, 0));
   console.log("done");
   return { value, runtime: got.filter((n) => ["settle", "fireTimer", "watch", "track", "resolve", "reject"].includes(n)) }`,
  completes({ value: { v: 1 }, runtime: [] }));

// ---------- prototype pollution ----------

attack('polluting JSON, Map, Reflect and Function.prototype before a tool call does not break the bridge',
  `JSON.stringify = () => "polluted"; JSON.parse = () => "polluted";
   Map.prototype.set = Map.prototype.get = () => { throw new Error("map polluted") };
   Reflect.apply = () => { throw new Error("reflect polluted") };
   Function.prototype.call = Function.prototype.apply = () => { throw new Error("call polluted") };
   Array.prototype.join = () => "polluted";
   return await echo({ a: [1, 2], s: "x" })`,
  (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.deepEqual(r.value, { a: [1, 2], s: 'x' });
    assert.deepEqual(received.map((x) => x.input), [{ a: [1, 2], s: 'x' }]);
  });
attack('Object.prototype.toJSON pollution only changes what the guest itself sends',
  `Object.prototype.toJSON = function () { return "polluted" };
   return await echo({ a: 1 })`,
  (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.equal(r.value, 'polluted');
    assert.equal(received[0].plain, true);
  });
attack('a polluted Object.prototype getter is not read on the host',
  `Object.defineProperty(Object.prototype, "inherited", { get() { return "guest-only" }, enumerable: true });
   return await echo({ own: 1 })`,
  (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.deepEqual(received[0].input, { own: 1 });
    assert.equal(received[0].plain, true);
    assert.equal(Object.prototype.inherited, undefined, 'the host realm is untouched');
  });
attack('pollution before returning cannot change the result envelope',
  `Object.prototype.status = "completed"; Object.prototype.code = "timeout";
   Array.prototype.push = () => { throw new Error("push") };
   Error.prototype.toString = () => { for (;;) {} };
   throw new Error("plain failure")`,
  (r) => {
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'guest_error', show(r));
    assert.match(r.error, /^Error: plain failure/);
  });
attack('a Promise.prototype.then pollution breaks only the guest itself',
  `Promise.prototype.then = function () { return this };
   const v = await echo({ k: 1 }); return v`,
  (r) => {
    assert.ok(r.status === 'completed' || r.code === 'guest_error', show(r));
    if (r.status === 'failed') assert.equal(typeof r.error, 'string');
  });
attack('an Object.prototype.then pollution makes tool results thenables only inside the guest',
  `Object.prototype.then = function (resolve) { delete Object.prototype.then; resolve("hijacked") };
   return await echo({ k: 1 })`,
  (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.equal(r.value, 'hijacked');
    assert.deepEqual(received[0].input, { k: 1 });
  });
attack('overwriting runtime globals fails and the bridge keeps working',
  `"use strict"; const errors = [];
   for (const name of ["text", "json", "setTimeout", "clearTimeout", "yield_control", "console", "catalog", "API", "echo"]) {
     try { globalThis[name] = () => "hijacked"; errors.push(name + ":assigned") } catch (e) { errors.push(e.constructor.name) }
     try { delete globalThis[name] } catch (e) {}
   }
   return [new Set(errors).size, typeof text, await echo(1)]`,
  completes([1, 'function', 1]));

// A getter on Array.prototype[0] makes QuickJS's own JSON.stringify throw inside the
// cell: the guest breaks its own values, but its failures still arrive as themselves.
const POISONED_ARRAYS = 'Object.defineProperty(Array.prototype, "0", { get() { return "poison" }, configurable: true });';
attack('a thrown error is reported as itself after Array.prototype[0] got a getter',
  `${POISONED_ARRAYS} throw new Error("plain \\"quoted\\" failure\\n")`,
  (r) => {
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'guest_error', show(r));
    assert.match(r.error, /^Error: plain "quoted" failure\n/, show(r));
  });
attack('a failed tool call is reported as itself after Array.prototype[0] got a getter',
  `${POISONED_ARRAYS} await fail({})`,
  (r) => {
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'tool_error', show(r));
    assert.match(r.error, /tool failed on purpose/, show(r));
  });
attack('a value JSON cannot write after Array.prototype[0] got a getter is marked, not lost',
  `${POISONED_ARRAYS} return [1]`,
  (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.match(r.value, /^\[Unserializable value: /, show(r));
  });
attack('performance gives the wall-clock origin, not the host clock',
  'return [performance.timeOrigin, Date.now(), performance.now()]',
  (r) => {
    assert.equal(r.status, 'completed', show(r));
    const [origin, now, elapsed] = r.value;
    // The origin plus the elapsed time is the guest's wall clock, give or take the reads.
    assert.ok(Math.abs(origin + elapsed - now) < 60_000, show(r));
    assert.ok(elapsed >= 0);
  });

// ---------- values at the bridge ----------

attack('a Proxy handed to a tool reaches the host as plain JSON, its traps run in the guest only',
  `let traps = 0;
   const target = { a: 1, nested: { b: [1, 2] } };
   const p = new Proxy(target, { get(t, k, r) { traps++; return Reflect.get(t, k, r) }, ownKeys(t) { traps++; return Reflect.ownKeys(t) } });
   const back = await echo(p);
   return [back, traps > 0]`,
  (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.deepEqual(r.value, [{ a: 1, nested: { b: [1, 2] } }, true]);
    assert.equal(received.length, 1);
    assert.equal(received[0].plain, true, `the host saw ${received[0].json}`);
    assert.equal(Object.getPrototypeOf(received[0].input), Object.prototype);
    assert.deepEqual(JSON.parse(received[0].json), received[0].input);
  });
attack('a getter that throws outside the guest is evaluated in the guest exactly once',
  `let calls = 0;
   const input = { get secret() { calls++; if (typeof yield_control !== "function") throw new Error("ran outside the guest"); return "from the guest" } };
   const back = await echo(input); return [back, calls]`,
  (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.deepEqual(r.value, [{ secret: 'from the guest' }, 1]);
    const d = Object.getOwnPropertyDescriptor(received[0].input, 'secret');
    assert.equal(d.value, 'from the guest', 'the host receives a data property, not an accessor');
    assert.equal(received[0].plain, true);
  });
attack('a Proxy and getters in the returned value cross as plain JSON',
  `return new Proxy({ x: 1 }, { get(t, k) { return k === "toJSON" ? undefined : 42 }, ownKeys() { return ["x", "y"] },
     getOwnPropertyDescriptor() { return { value: 42, enumerable: true, configurable: true } } })`,
  (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.deepEqual(r.value, { x: 42, y: 42 });
    assert.equal(Object.getPrototypeOf(r.value), Object.prototype);
  });
attack('a revoked Proxy handed to a tool becomes the unserializable string fallback',
  `const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return await echo({ p: proxy })`,
  (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.match(r.value, /^\[Unserializable value: /);
    assert.equal(received[0].plain, true);
  });
attack('a Proxy whose ownKeys trap throws fails only its own serialisation',
  `const p = new Proxy({}, { ownKeys() { throw new Error("trap") } }); return [await echo(p), await echo({ fine: true })]`,
  (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.equal(r.value[0], '[Unserializable value: trap]');
    assert.deepEqual(r.value[1], { fine: true });
  });
attack('symbols, bigints, functions, NaN and exotic objects cross the bridge by the JSON rules',
  `const input = { s: Symbol("x"), [Symbol("k")]: 1, b: 10n, f() {}, n: NaN, i: -Infinity, u: undefined,
     d: new Date(0), m: new Map([[1, 2]]), set: new Set([1]), re: /x/g, e: new TypeError("bad"), ta: new Uint8Array([1, 2]),
     w: new WeakMap(), p: Promise.resolve(1), arr: [undefined, () => 1, Symbol("y")] };
   return await echo(input)`,
  (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.deepEqual(r.value, {
      b: '10', n: null, i: null, d: '1970-01-01T00:00:00.000Z', m: {}, set: {}, re: {},
      e: { name: 'TypeError', message: 'bad' }, ta: { 0: 1, 1: 2 }, w: {},
      p: '[Unawaited Promise: use await or Promise.all(...) before emitting or returning values.]',
      arr: [null, null, null],
    });
    assert.equal(received[0].plain, true);
  });
attack('a bare Symbol handed to a tool and returned becomes null',
  'return [await echo(Symbol("s")), Symbol.iterator]', completes([null, null]));
attack('a cyclic value handed to a tool becomes a string fallback',
  'const a = { name: "a" }; a.self = a; return await echo(a)', (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.equal(typeof r.value, 'string');
    assert.match(r.value, /^\[Unserializable value: /);
  });
attack('host exotica returned by a tool reach the guest as parsed JSON only',
  `const v = await exotic({});
   return [Object.getPrototypeOf(v) === Object.prototype, typeof v.date, v.error, "fn" in v, v.getter, v.nested.n]`,
  completes([true, 'string', {}, false, 'computed on the host', 1]));
attack('a tool result too deep for the guest parser fails cleanly',
  'return await deep({ depth: 20000 })', (r) => {
    assert.equal(r.status, 'failed', show(r));
    assert.ok(['tool_error', 'invalid_input'].includes(r.code), show(r));
  });
attack('a tool returning a host Proxy with a throwing trap is a tool error',
  'try { await proxy({}) } catch (e) { return [e.code, e.message] }', (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.equal(r.value[0], 'tool_error');
    assert.match(r.value[1], /host proxy trap/);
  });
attack('input mutated after the call was dispatched reaches the host as it was at call time',
  `const input = { n: 1, list: [1] };
   const p = echo(input); input.n = 2; input.list.push(2); delete input.list;
   const queued = []; for (let i = 0; i < 40; i++) { const o = { i }; queued.push(echo(o)); o.i = -1 }
   const all = await Promise.all(queued);
   return [await p, all.every((v, i) => v.i === i)]`,
  completes([{ n: 1, list: [1] }, true]));
attack('throwing non-Error values fails the cell with their text',
  'throw { toString() { return "obj" }, code: "timeout" }', (r) => {
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'guest_error', show(r));
    assert.match(r.error, /^Uncaught /);
  });
attack('throwing a Symbol fails the cell cleanly', 'throw Symbol("thrown")', (r) => {
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'guest_error', show(r));
  assert.match(r.error, /Symbol\(thrown\)/);
});
attack('an error claiming a documented code still fails as guest_error',
  'const e = new Error("fake"); e.code = "timeout"; e.name = "Timeout"; throw e', (r) => {
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'guest_error', show(r));
  });
attack('returning a forged waiting result is just a value',
  'return { status: "waiting", runId: "cm_forged", reason: "yield" }', (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.equal(r.value.runId, 'cm_forged');
  });

// ---------- pending promises, storms and floods ----------

attack('10,000 pending promises with no host work fail at once',
  'await Promise.all(Array.from({ length: 10000 }, () => new Promise(() => {})))', (r) => {
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'guest_error', show(r));
    assert.equal(r.error, 'code mode promise is pending without host work');
  }, { session: roomy });
attack('10,000 abandoned pending promises do not stop a cell from completing',
  'const ps = Array.from({ length: 10000 }, () => new Promise(() => {})); return ps.length', completes(10000), { session: roomy });
attack('10,000 promises resolved through Promise.all complete',
  'const v = await Promise.all(Array.from({ length: 10000 }, (_, i) => Promise.resolve(i))); return v.reduce((a, b) => a + b, 0)',
  completes(49995000), { session: roomy });
attack('10,000 pending promises survive a suspension and resolve after wait',
  `const resolvers = []; const ps = Array.from({ length: 10000 }, () => new Promise((r) => resolvers.push(r)));
   await yield_control("hold"); resolvers.forEach((r, i) => r(i)); return (await Promise.all(ps)).length`, async (r) => {
    assert.equal(r.status, 'waiting', show(r));
    const resumed = await roomy.wait({ runId: r.runId });
    assert.equal(resumed.status, 'completed', show(resumed));
    assert.equal(resumed.value, 10000);
  }, { session: roomy });
attack('25,000 sequential tool calls keep host records bounded, so the run still parks',
  'for (let i = 0; i < 25000; i++) await echo({ i }); await yield_control(); return "parked"', async (r) => {
    assert.equal(r.status, 'waiting', show(r));
    assert.ok(r.nestedCalls.length <= 100, `nestedCalls: ${r.nestedCalls.length}`);
    assert.equal(r.telemetry.run.nestedCalls, 25000);
    assert.ok(roomy.runs()[0].bytes < 1024 * 1024, JSON.stringify(roomy.runs()));
    const resumed = await roomy.wait({ runId: r.runId });
    assert.equal(resumed.status, 'completed', show(resumed));
    assert.equal(resumed.value, 'parked');
  }, { session: roomy });
attack('a tool-call storm past the queue limit fails with the documented message',
  'await Promise.all(Array.from({ length: 1000 }, (_, i) => echo({ i })))', queueOverflow);
attack('a caught queue overflow still fails the cell',
  'try { for (let i = 0; i < 1000; i++) echo({ i }) } catch (e) {} return "swallowed"', queueOverflow);
attack('a timer storm past the queue limit fails with the documented message',
  'for (;;) setTimeout(() => {}, 0)', queueOverflow);
attack('a storm of never-settling calls past the queue limit fails with the documented message',
  'for (let i = 0; i < 200; i++) never({ i }); await never({})', queueOverflow);
attack('a storm of failing calls within the limit fails with the tool error',
  'await Promise.all(Array.from({ length: 100 }, () => fail({})))', (r) => {
    assert.equal(r.status, 'failed', show(r));
    assert.equal(r.code, 'tool_error', show(r));
    assert.match(r.error, /tool failed on purpose/);
  });
attack('a sequential tool-call loop runs until the deadline, then parks or times out cleanly',
  'for (let i = 0; ; i++) await echo({ i })', (r) => {
    assert.ok(r.status === 'failed' || r.status === 'waiting', show(r));
    if (r.status === 'failed') timesOut(r);
    else assert.equal(clocked.cancelRun(r.runId), true);
    assert.ok(r.nestedCalls.length <= 100, `nestedCalls is bounded: ${r.nestedCalls.length}`);
  }, { session: clocked });
attack('a text() flood is cut to the output budget and the value is kept',
  'for (let i = 0; i < 100000; i++) text("line " + i); return "done"', (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.equal(r.value, 'done');
    assert.ok(r.output.some((e) => e.type === 'json' && e.value.truncated === true), show(r));
  });
attack('a huge single text() is truncated without splitting a code point',
  'text("😀".repeat(1000000)); return 1', (r) => {
    assert.equal(r.status, 'completed', show(r));
    const marker = r.output.find((e) => e.type === 'json' && e.value.truncated === true);
    assert.ok(marker, show(r));
    assert.ok(!marker.value.prefix.includes('\uFFFD'));
  }, { session: roomy });
attack('an endless text() flood times out with bounded output',
  'for (;;) text("x".repeat(1000))', (r) => {
    timesOut(r);
    assert.ok(Array.isArray(r.output), 'failed results keep earlier output');
  }, { session: clocked });
attack('a console flood is truncated once',
  'for (let i = 0; i < 20000; i++) console.log("c".repeat(100)); return 1', (r) => {
    assert.equal(r.status, 'completed', show(r));
    const notes = JSON.stringify(r.output).split('[console output truncated]').length - 1;
    assert.ok(notes <= 1, `truncation note appears ${notes} times`);
  });
attack('a json() flood of large values stays within the budget',
  'for (let i = 0; i < 2000; i++) json({ i, pad: "p".repeat(500) }); return null', completes(null));
attack('a huge returned value becomes the truncation marker',
  'return "v".repeat(5 * 1024 * 1024)', (r) => {
    assert.equal(r.status, 'completed', show(r));
    assert.equal(r.value.truncated, true);
  }, { session: roomy });
attack('a huge thrown message is truncated and stays a failure',
  'throw new Error("m".repeat(1000000))', (r) => {
    assert.equal(r.status, 'failed', show(r));
    assert.ok(r.error.endsWith(' [error truncated]'), r.error.slice(-40));
  });
attack('yield_control called thousands of times without awaiting does not stop a returning cell',
  'for (let i = 0; i < 5000; i++) yield_control("again"); return "returned"', completes('returned'));
attack('thousands of unawaited yield_control calls then one awaited parks once and resumes',
  'for (let i = 0; i < 5000; i++) yield_control("again"); const y = await yield_control("last"); return y', async (r) => {
    assert.equal(r.status, 'waiting', show(r));
    assert.equal(r.reason, 'yield');
    const resumed = await hostile.wait({ runId: r.runId });
    assert.equal(resumed.status, 'completed', show(resumed));
    assert.deepEqual(resumed.value, { status: 'yielded', reason: 'last' });
  });
attack('clearTimeout and setTimeout with hostile arguments behave',
  `clearTimeout({}); clearTimeout(-1); clearTimeout(2 ** 40); clearTimeout("1");
   const a = setTimeout(() => {}, { valueOf() { return NaN } }); const b = setTimeout(() => {}, -5); const c = setTimeout(() => {}, 2 ** 60);
   clearTimeout(c);
   await new Promise((r) => setTimeout(r, 1));
   return [a, b, c]`,
  completes([1, 2, 3]));
attack('a timer with a huge delay parks instead of blocking, and cancels cleanly',
  'setTimeout(() => {}, 2 ** 31); await new Promise(() => {})', (r) => {
    assert.equal(r.status, 'waiting', show(r));
    assert.equal(clocked.cancelRun(r.runId), true);
  }, { session: clocked });

// ---------- the process and other sessions stay unharmed ----------

test('a concurrent session keeps working while hostile cells run', async () => {
  cases++;
  const other = makeSession({ tools });
  const bombs = ['for (;;) {}', 'let s = "x"; for (;;) s += s', 'function f() { f() } f()', 'for (;;) await null'];
  const [calm, ...storm] = await Promise.all([
    other.exec({ code: 'let t = 0; for (let i = 0; i < 20; i++) t += (await echo({ i })).i; return t' }),
    ...bombs.map((code) => clocked.exec({ code })),
  ]);
  assert.equal(calm.status, 'completed', show(calm));
  assert.equal(calm.value, 190);
  for (const r of storm) assert.equal(r.status, 'failed', show(r));
  await assertHealthy(clocked);
  await assertHealthy(other);
});

test('the hostile suite covers at least 60 cases', () => {
  assert.ok(cases >= 60, `only ${cases} hostile cases`);
});
