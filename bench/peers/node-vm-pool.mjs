// Peer baseline: the "natural" Node answer to running model-written cells.
//
// A pool of warm `worker_threads` (size = os.availableParallelism()). Every cell
// runs in a FRESH `node:vm` context on one of the workers: the cell is wrapped as
// the body of an async function, compiled with `new vm.Script(...)` and started
// with `runInContext(ctx, { timeout })`. Tools are globals inside the context;
// each call is a postMessage round trip to the main thread, where the tool's
// `execute(input, ctx)` runs — the same functions codemode-native calls.
//
// Honest limits of this baseline (it is a speed peer, not a sandbox): `timeout`
// only bounds the synchronous part of a cell, there is no per-cell memory limit,
// and `node:vm` is not a security boundary.
//
// The same file is the worker script (it re-imports itself under a Worker).
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import os from 'node:os';
import vm from 'node:vm';

const WORKER_FLAG = '__nodeVmPoolWorker';

if (!isMainThread && workerData && workerData[WORKER_FLAG]) runWorker(workerData);

/** Main-thread side. */
export class NodeVmPool {
  /**
   * @param {{ tools?: Array<{ name: string, execute: (input: any, ctx: any) => any }>,
   *           size?: number, timeoutMs?: number }} options
   */
  constructor({ tools = [], size = os.availableParallelism(), timeoutMs = 10000 } = {}) {
    this.tools = new Map(tools.map((t) => [t.name, t]));
    this.timeoutMs = timeoutMs;
    this.nextCellId = 1;
    this.cells = new Map(); // cellId -> { resolve, worker }
    this.workers = [];
    const toolNames = [...this.tools.keys()];
    for (let i = 0; i < size; i++) {
      const worker = new Worker(new URL(import.meta.url), {
        workerData: { [WORKER_FLAG]: true, toolNames },
      });
      worker.inflight = 0;
      worker.on('message', (msg) => this.#onMessage(worker, msg));
      worker.on('error', (err) => this.#failWorker(worker, err));
      worker.on('exit', (code) => this.#failWorker(worker, new Error(`worker exited (${code})`)));
      this.workers.push(worker);
    }
  }

  /** Resolves once every worker has started (keeps start-up cost out of timings). */
  async ready() {
    await Promise.all(this.workers.map((w) => this.exec('return 0', w)));
  }

  /** Runs one cell; resolves to { status: 'completed', value } or { status: 'failed', error }. */
  exec(code, worker) {
    if (!worker) {
      // least-loaded worker (ties → first), so busy workers are not queued behind
      worker = this.workers[0];
      for (const w of this.workers) if (w.inflight < worker.inflight) worker = w;
    }
    const cellId = this.nextCellId++;
    worker.inflight++;
    return new Promise((resolve) => {
      this.cells.set(cellId, { resolve, worker });
      worker.postMessage({ t: 'exec', cellId, code, timeoutMs: this.timeoutMs });
    });
  }

  #onMessage(worker, msg) {
    if (msg.t === 'call') {
      const tool = this.tools.get(msg.name);
      const ctx = { callId: `${msg.cellId}:${msg.callId}`, sessionId: 'node-vm-pool' };
      Promise.resolve()
        .then(() => {
          if (!tool) throw new Error(`Unknown tool: ${msg.name}`);
          return tool.execute(msg.input, ctx);
        })
        .then(
          (value) => worker.postMessage({ t: 'ret', cellId: msg.cellId, callId: msg.callId, ok: true, value }),
          (err) => worker.postMessage({ t: 'ret', cellId: msg.cellId, callId: msg.callId, ok: false, error: String(err?.message ?? err) }),
        );
    } else if (msg.t === 'done') {
      const cell = this.cells.get(msg.cellId);
      if (!cell) return;
      this.cells.delete(msg.cellId);
      worker.inflight--;
      cell.resolve(msg.result);
    }
  }

  #failWorker(worker, err) {
    for (const [id, cell] of this.cells) {
      if (cell.worker !== worker) continue;
      this.cells.delete(id);
      cell.resolve({ status: 'failed', error: `peer worker failed: ${err?.message ?? err}` });
    }
    worker.inflight = Infinity; // never pick it again
  }

  async close() {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** Worker side: one fresh vm context per cell, tools proxied to the main thread. */
function runWorker({ toolNames }) {
  const pending = new Map(); // `${cellId}:${callId}` -> { resolve, reject }

  parentPort.on('message', (msg) => {
    if (msg.t === 'exec') runCell(msg);
    else if (msg.t === 'ret') {
      const key = `${msg.cellId}:${msg.callId}`;
      const p = pending.get(key);
      if (!p) return;
      pending.delete(key);
      if (msg.ok) p.resolve(msg.value);
      else p.reject(new Error(msg.error));
    }
  });

  async function runCell({ cellId, code, timeoutMs }) {
    let nextCall = 1;
    const callTool = (name, input) =>
      new Promise((resolve, reject) => {
        const callId = nextCall++;
        pending.set(`${cellId}:${callId}`, { resolve, reject });
        parentPort.postMessage({ t: 'call', cellId, callId, name, input: input ?? null });
      });
    const sandbox = Object.create(null);
    for (const name of toolNames) sandbox[name] = (input) => callTool(name, input);
    let timer;
    let result;
    try {
      const context = vm.createContext(sandbox);
      const script = new vm.Script(`(async () => {\n${code}\n})()`, { filename: `cell-${cellId}.js` });
      const promise = script.runInContext(context, { timeout: timeoutMs });
      const deadline = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('cell timeout exceeded')), timeoutMs);
      });
      const value = await Promise.race([promise, deadline]);
      result = { status: 'completed', value: value === undefined ? null : value };
    } catch (err) {
      result = { status: 'failed', error: String(err?.message ?? err) };
    } finally {
      clearTimeout(timer);
    }
    try {
      parentPort.postMessage({ t: 'done', cellId, result });
    } catch (err) {
      // value not structured-cloneable
      parentPort.postMessage({ t: 'done', cellId, result: { status: 'failed', error: String(err?.message ?? err) } });
    }
  }
}
