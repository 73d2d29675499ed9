// Shared helpers for the codemode-native Node test suites.
// Not a test file itself (node --test only picks up *.test.mjs here).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const require = createRequire(import.meta.url);
export const ADDON_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'index.js');
export const native = require(ADDON_PATH);
export const { CodeModeSession } = native;

let counter = 0;
/** A fresh session with a unique id; remembered so `closeAll()` can close it. */
const open = [];
export function makeSession(options = {}) {
  const session = new CodeModeSession({ sessionId: `test-${process.pid}-${++counter}`, ...options });
  open.push(session);
  return session;
}

export async function closeAll() {
  const sessions = open.splice(0);
  await Promise.all(sessions.map((s) => s.close().catch(() => {})));
}

/** Run a JavaScript cell (or a full exec input object) and return the result. */
export function run(session, code, options) {
  const input = typeof code === 'string' ? { code } : code;
  return session.exec(input, options);
}

/** Short, readable description of a result for assertion messages. */
export function show(result) {
  if (!result || typeof result !== 'object') return String(result);
  const { telemetry, nestedCalls, ...rest } = result;
  const text = JSON.stringify(rest);
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

export const utf8Length = (s) => Buffer.byteLength(s, 'utf8');

/** Run the same async-function body on the host (Node) for a WHATWG oracle. */
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
export async function hostEval(code) {
  return JSON.parse(JSON.stringify(await new AsyncFunction(code)()));
}

/** Resolves after `ms` milliseconds (host side). Not for synchronisation: use `eventually`. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves with `check()`'s first truthy value, polling between event-loop turns; rejects
 * naming `what` if it is still falsy after `capMs`. The cap only keeps a broken build from
 * hanging the suite: it is far beyond how long any condition takes on a slow, busy machine,
 * so no test depends on machine speed.
 */
export async function eventually(check, what = 'the condition', capMs = 60_000) {
  const until = Date.now() + capMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`${what} did not become true within ${capMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * Resolves like `promise`, but rejects naming `what` if it has not settled within `capMs`:
 * a hang guard (through `eventually`), never a check that something is fast.
 */
export async function hangGuard(promise, what, capMs = 60_000) {
  let settled = false;
  promise.then(() => { settled = true; }, () => { settled = true; });
  await eventually(() => settled, what, capMs);
  return promise;
}

/** A host tool whose promise never settles; `onCall(ctx)` sees each call's context. */
export function neverTool(name = 'never', onCall = () => {}) {
  return { name, execute: (input, ctx) => { onCall(ctx); return new Promise(() => {}); } };
}

/** A promise with its settle functions, for a test that decides when something happens. */
export function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * A host tool whose calls stay pending until the test calls `release(value)`: a tool that is
 * "slower than the deadline" whatever the machine's speed. `calls` counts the calls,
 * `called` resolves with the first call's context, `contexts` holds every call's.
 */
export function heldTool(name, value = null) {
  const gate = deferred();
  const first = deferred();
  const held = {
    calls: 0,
    contexts: [],
    called: first.promise,
    release: (v = value) => gate.resolve(v),
    tool: {
      name,
      execute: (input, ctx) => {
        held.calls++;
        held.contexts.push(ctx);
        first.resolve(ctx);
        return gate.promise;
      },
    },
  };
  return held;
}

/**
 * Calls `wait` while the result is `waiting` (at most `maxWaits` times); returns the last
 * result. The default only guards against a hang: 600 waits are a minute at the smallest
 * timeoutMs (100 ms), far beyond what any test run needs.
 */
export async function drain(session, result, { maxWaits = 600, options } = {}) {
  let r = result;
  for (let i = 0; i < maxWaits && r && r.status === 'waiting'; i++) {
    r = await session.wait({ runId: r.runId }, options);
  }
  return r;
}

/** A real SDK client connected to `server` (an SDK `McpServer`) in memory. */
export async function connectInMemory(server, clientOptions) {
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'test', version: '1' }, clientOptions);
  await client.connect(b);
  return client;
}
