// Reference peer: the architecture codemode-native replaces.
//
// A pool of warm `worker_threads` (size = cores). The quickjs-wasi WebAssembly module is compiled
// ONCE on the main thread and handed to every worker (a compiled `WebAssembly.Module` is
// structured-cloneable, so no worker recompiles it). Every cell gets a fresh quickjs-wasi VM, made
// either by `QuickJS.create()` or by `QuickJS.restore()` of a boot snapshot taken after the guest
// glue was installed (`fresh: 'restore'`, the library's recommended fast path; pick whichever is
// faster on the machine, see `bench/run.mjs`).
//
// Tools run on the main thread. A guest call goes `__call(name, json)` (host callback in the
// worker) → `postMessage` → the tool's `execute()` on the main thread → `postMessage` back → the
// worker settles the guest promise through the guest's `__settle(id, ok, json)`. Values cross
// every boundary as JSON strings: one `JSON.stringify` in the guest, one `JSON.parse` at the end.
//
// Suspension: when the guest awaits `yield_control()` (or a tool named in `suspendTools`) and has
// nothing else to run, the worker takes `vm.snapshot()` (a copy of the whole linear memory),
// disposes the VM and answers `waiting`; `wait(runId)` restores the snapshot into a fresh instance
// on the same worker, re-registers the host callbacks and settles the pending call. All guest-side
// bookkeeping lives in the guest heap, so it survives the snapshot unchanged.
//
// The same file is the worker script (it re-imports itself under a Worker).
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';

const WORKER_FLAG = '__quickjsWasiPoolWorker';
const require = createRequire(import.meta.url);

if (!isMainThread && workerData && workerData[WORKER_FLAG]) runWorker(workerData);

/** Compiles the quickjs-wasi module once (main thread). */
export async function compileQuickJsModule() {
  const path = require.resolve('quickjs-wasi/quickjs.wasm');
  return WebAssembly.compile(readFileSync(path));
}

/** Main-thread side. */
export class QuickJsWasiPool {
  /**
   * @param {{ module: WebAssembly.Module, tools?: Array<{ name: string, execute: Function }>,
   *           size?: number, timeoutMs?: number, memoryLimit?: number, fresh?: 'create' | 'restore',
   *           suspendTools?: string[] }} options
   */
  constructor({ module, tools = [], size = os.availableParallelism(), timeoutMs = 10_000, memoryLimit = 64 * 1024 * 1024, fresh = 'restore', suspendTools = [] }) {
    this.tools = new Map(tools.map((t) => [t.name, t]));
    this.nextCellId = 1;
    this.cells = new Map(); // cellId -> { resolve, worker }
    this.runs = new Map(); // runId (= cellId) -> worker holding its snapshot
    this.workers = [];
    const init = { [WORKER_FLAG]: true, module, toolNames: [...this.tools.keys()], timeoutMs, memoryLimit, fresh, suspendTools };
    for (let i = 0; i < size; i++) {
      const worker = new Worker(new URL(import.meta.url), { workerData: init });
      worker.inflight = 0;
      worker.on('message', (msg) => this.#onMessage(worker, msg));
      worker.on('error', (err) => this.#failWorker(worker, err));
      worker.on('exit', (code) => this.#failWorker(worker, new Error(`worker exited (${code})`)));
      this.workers.push(worker);
    }
  }

  /** Resolves once every worker has run a cell (keeps start-up and warm-up out of timings). */
  async ready() {
    for (let i = 0; i < 3; i++) await Promise.all(this.workers.map((w) => this.exec('return 0', w)));
  }

  /** Runs one cell: { status: 'completed', value } | { status: 'waiting', runId } | { status: 'failed', error }. */
  exec(code, worker) {
    if (!worker) {
      worker = this.workers[0];
      for (const w of this.workers) if (w.inflight < worker.inflight) worker = w;
    }
    const cellId = this.nextCellId++;
    return this.#send(worker, cellId, { t: 'exec', cellId, code });
  }

  /** Resumes a suspended cell: restore its snapshot, settle the pending call with `null`. */
  wait(runId) {
    const worker = this.runs.get(runId);
    if (!worker) return Promise.resolve({ status: 'failed', error: `unknown run ${runId}` });
    this.runs.delete(runId);
    return this.#send(worker, runId, { t: 'resume', cellId: runId });
  }

  /** Drops every parked snapshot. */
  async dropRuns() {
    await Promise.all(this.workers.map((w, i) => this.#send(w, -(i + 1), { t: 'drop', cellId: -(i + 1) })));
    this.runs.clear();
  }

  #send(worker, cellId, msg) {
    worker.inflight++;
    return new Promise((resolve) => {
      this.cells.set(cellId, { resolve, worker });
      worker.postMessage(msg);
    });
  }

  #onMessage(worker, msg) {
    if (msg.t === 'call') {
      const tool = this.tools.get(msg.name);
      const ctx = { callId: `${msg.cellId}:${msg.callId}`, sessionId: 'quickjs-wasi-pool' };
      Promise.resolve()
        .then(() => {
          if (!tool) throw new Error(`Unknown tool: ${msg.name}`);
          return tool.execute(JSON.parse(msg.json), ctx);
        })
        .then(
          (value) => worker.postMessage({ t: 'ret', cellId: msg.cellId, callId: msg.callId, ok: true, json: JSON.stringify(value ?? null) }),
          (err) => worker.postMessage({ t: 'ret', cellId: msg.cellId, callId: msg.callId, ok: false, json: String(err?.message ?? err) }),
        );
      return;
    }
    const cell = this.cells.get(msg.cellId);
    if (!cell) return;
    this.cells.delete(msg.cellId);
    worker.inflight--;
    if (msg.t === 'done') cell.resolve(msg.ok ? { status: 'completed', value: JSON.parse(msg.json) } : { status: 'failed', error: msg.json });
    else if (msg.t === 'waiting') {
      this.runs.set(msg.cellId, worker);
      cell.resolve({ status: 'waiting', runId: msg.cellId, snapshotBytes: msg.bytes });
    } else cell.resolve({ status: 'completed', value: null }); // 'dropped'
  }

  #failWorker(worker, err) {
    for (const [id, cell] of this.cells) {
      if (cell.worker !== worker) continue;
      this.cells.delete(id);
      cell.resolve({ status: 'failed', error: `peer worker failed: ${err?.message ?? err}` });
    }
    worker.inflight = Infinity;
  }

  async close() {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

// ---------------------------------------------------------------- worker side

// Guest glue: tool stubs, the pending-call table and the settle entry point, all in the guest heap.
const glue = (toolNames) => `
globalThis.__p = new Map();
globalThis.__tool = (name, input) => new Promise((res, rej) => {
  const id = __call(name, JSON.stringify(input === undefined ? null : input));
  __p.set(id, [res, rej]);
});
globalThis.__settle = (id, ok, json) => {
  const p = __p.get(id);
  __p.delete(id);
  if (ok) p[0](JSON.parse(json)); else p[1](new Error(json));
};
globalThis.yield_control = (reason) => __tool("yield_control", reason ?? null);
${toolNames.map((n) => `globalThis[${JSON.stringify(n)}] = (input) => __tool(${JSON.stringify(n)}, input);`).join('\n')}
`;

async function runWorker({ module, toolNames, timeoutMs, memoryLimit, fresh, suspendTools }) {
  const { QuickJS } = await import('quickjs-wasi');
  const suspending = new Set(['yield_control', ...suspendTools]);
  const cells = new Map(); // cellId -> cell
  const parked = new Map(); // cellId -> { snapshot, cell }
  const GLUE = glue(toolNames);

  const options = (cell) => ({
    wasm: module,
    memoryLimit,
    // quickjs polls this every ~10k interpreter ticks, so the deadline check is cheap.
    interruptHandler: () => performance.now() > cell.deadline,
  });

  // The host callbacks are looked up by name, so a restored VM gets them with registerHostCallback.
  const callbacks = (cell) => ({
    __call(nameH, jsonH) {
      const name = nameH.toString();
      const callId = cell.nextCall++;
      if (suspending.has(name)) cell.suspendOn = callId;
      else parentPort.postMessage({ t: 'call', cellId: cell.id, callId, name, json: jsonH.toString() });
      return cell.vm.newNumber(callId);
    },
    __done(okH, jsonH) {
      cell.result = { ok: okH.toNumber() === 1, json: jsonH.toString() };
      return cell.vm.undefined;
    },
  });

  let boot = null; // snapshot of a VM with the glue installed (fresh: 'restore')
  if (fresh === 'restore') {
    const cell = { deadline: Infinity };
    const vm = await QuickJS.create(options(cell));
    for (const [name, fn] of Object.entries(callbacks(cell))) vm.setProp(vm.global, name, vm.newFunction(name, fn));
    vm.evalCode(GLUE).dispose();
    boot = vm.snapshot();
    vm.dispose();
  }

  async function freshVm(cell) {
    if (boot) {
      const vm = await QuickJS.restore(boot, options(cell));
      for (const [name, fn] of Object.entries(callbacks(cell))) vm.registerHostCallback(name, fn);
      return vm;
    }
    const vm = await QuickJS.create(options(cell));
    for (const [name, fn] of Object.entries(callbacks(cell))) {
      const h = vm.newFunction(name, fn);
      vm.setProp(vm.global, name, h);
      h.dispose();
    }
    vm.evalCode(GLUE).dispose();
    return vm;
  }

  function finish(cell, msg) {
    cells.delete(cell.id);
    try {
      cell.vm?.dispose();
    } catch {}
    cell.vm = null;
    parentPort.postMessage(msg);
  }

  // Runs the guest until it is done, blocked on host calls, or asks to suspend.
  function drive(cell, step) {
    cell.deadline = performance.now() + timeoutMs;
    try {
      step();
      cell.vm.executePendingJobs();
    } catch (err) {
      return finish(cell, { t: 'done', cellId: cell.id, ok: false, json: String(err?.message ?? err) });
    }
    if (cell.result) return finish(cell, { t: 'done', cellId: cell.id, ...cell.result });
    if (cell.suspendOn != null) {
      const snapshot = cell.vm.snapshot();
      cell.vm.dispose();
      cell.vm = null;
      cells.delete(cell.id);
      parked.set(cell.id, { snapshot, cell });
      parentPort.postMessage({ t: 'waiting', cellId: cell.id, bytes: snapshot.memory.byteLength });
    }
  }

  function settle(cell, callId, ok, json) {
    const vm = cell.vm;
    const fn = vm.global.getProp('__settle');
    const a = vm.newNumber(callId);
    const b = ok ? vm.true : vm.false;
    const c = vm.newString(json);
    try {
      vm.callFunction(fn, vm.undefined, a, b, c).dispose();
    } finally {
      fn.dispose();
      a.dispose();
      c.dispose();
    }
  }

  parentPort.on('message', async (msg) => {
    if (msg.t === 'exec') {
      const cell = { id: msg.cellId, vm: null, nextCall: 1, suspendOn: null, result: null, deadline: Infinity };
      try {
        cell.vm = await freshVm(cell);
      } catch (err) {
        return finish(cell, { t: 'done', cellId: cell.id, ok: false, json: `VM start failed: ${err?.message ?? err}` });
      }
      cells.set(cell.id, cell);
      const src =
        `(async () => {\n${msg.code}\n})().then((v) => __done(1, JSON.stringify(v === undefined ? null : v)), ` +
        `(e) => __done(0, String(e && e.message || e)))`;
      drive(cell, () => cell.vm.evalCode(src, `cell-${cell.id}.js`).dispose());
    } else if (msg.t === 'ret') {
      const cell = cells.get(msg.cellId);
      if (cell) drive(cell, () => settle(cell, msg.callId, msg.ok, msg.json));
    } else if (msg.t === 'resume') {
      const p = parked.get(msg.cellId);
      if (!p) return parentPort.postMessage({ t: 'done', cellId: msg.cellId, ok: false, json: 'no such parked run' });
      parked.delete(msg.cellId);
      const cell = p.cell;
      try {
        cell.vm = await QuickJS.restore(p.snapshot, options(cell));
        for (const [name, fn] of Object.entries(callbacks(cell))) cell.vm.registerHostCallback(name, fn);
      } catch (err) {
        return finish(cell, { t: 'done', cellId: cell.id, ok: false, json: `restore failed: ${err?.message ?? err}` });
      }
      cells.set(cell.id, cell);
      const callId = cell.suspendOn;
      cell.suspendOn = null;
      drive(cell, () => settle(cell, callId, true, 'null'));
    } else if (msg.t === 'drop') {
      parked.clear();
      parentPort.postMessage({ t: 'dropped', cellId: msg.cellId });
    }
  });
}
