// Peer: isolated-vm (V8 isolates in-process, each on its own thread while it runs).
//
// A pool of warm isolates (size = cores; every context of an isolate shares its `memoryLimit`). Every cell gets a FRESH
// context in the least-loaded isolate (contexts are the cheap unit in isolated-vm; a fresh isolate
// per cell would cost milliseconds). The guest glue is compiled once per isolate and run in each
// new context. Tools run on the main thread: a guest tool call is
// `__host.apply(undefined, [name, json], { result: { promise: true } })`, an async call into the
// main isolate whose promise settles back in the guest. Values cross as JSON strings.
// No suspension: a context cannot be snapshotted, so a "parked" run is a live context.
//
// isolated-vm is not a devDependency (its install needs node-gyp); `ensure-isolated-vm.mjs`
// installs it on demand into bench/.peers/. `loadIsolatedVm()` returns null when it is absent.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

const PEERS_DIR = fileURLToPath(new URL('../.peers/', import.meta.url));

/** The isolated-vm module from bench/.peers, or throws why it cannot load. */
export function loadIsolatedVm() {
  const require = createRequire(PEERS_DIR + 'index.js');
  return require('isolated-vm');
}

const glue = (toolNames) => `
globalThis.__tool = (name, input) =>
  __host.apply(undefined, [name, JSON.stringify(input === undefined ? null : input)], { arguments: { copy: true }, result: { promise: true, copy: true } })
    .then((r) => { if (r[0]) return JSON.parse(r[1]); throw new Error(r[1]); });
globalThis.yield_control = (reason) => __tool("yield_control", reason ?? null);
${toolNames.map((n) => `globalThis[${JSON.stringify(n)}] = (input) => __tool(${JSON.stringify(n)}, input);`).join('\n')}
`;

export class IsolatedVmPool {
  constructor({ ivm, tools = [], size = os.availableParallelism(), timeoutMs = 10_000, memoryLimitMb = 64 }) {
    this.ivm = ivm;
    this.tools = new Map(tools.map((t) => [t.name, t]));
    this.timeoutMs = timeoutMs;
    this.nextCellId = 1;
    const host = new ivm.Reference(async (name, json) => {
      const tool = this.tools.get(name);
      try {
        if (!tool) throw new Error(`Unknown tool: ${name}`);
        return [true, JSON.stringify((await tool.execute(JSON.parse(json), { sessionId: 'isolated-vm-pool' })) ?? null)];
      } catch (err) {
        return [false, String(err?.message ?? err)];
      }
    });
    this.host = host;
    this.memoryLimitMb = memoryLimitMb;
    this.isolates = Array.from({ length: size }, () => ({ ...this.makeIsolate(), inflight: 0 }));
  }

  makeIsolate() {
    const isolate = new this.ivm.Isolate({ memoryLimit: this.memoryLimitMb });
    const script = isolate.compileScriptSync(glue([...this.tools.keys()]));
    return { isolate, script };
  }

  async ready() {
    for (let i = 0; i < 3; i++) await Promise.all(this.isolates.map((slot) => this.exec('return 0', slot)));
  }

  async exec(code, slot) {
    if (!slot) {
      slot = this.isolates[0];
      for (const s of this.isolates) if (s.inflight < slot.inflight) slot = s;
    }
    slot.inflight++;
    let context = null;
    try {
      context = await slot.isolate.createContext();
      await context.global.set('__host', this.host);
      await slot.script.run(context);
      const src =
        `(async () => {\n${code}\n})().then((v) => JSON.stringify(v === undefined ? null : v))`;
      const json = await context.eval(src, { promise: true, timeout: this.timeoutMs, filename: `cell-${this.nextCellId++}.js` });
      return { status: 'completed', value: JSON.parse(json) };
    } catch (err) {
      // An isolate that hit its memory limit is disposed with every context in it; a real
      // gateway would start a new one, so the pool does too (the cell itself failed).
      if (slot.isolate.isDisposed) Object.assign(slot, this.makeIsolate());
      return { status: 'failed', error: String(err?.message ?? err) };
    } finally {
      slot.inflight--;
      if (!context?.isolate?.isDisposed) context?.release();
    }
  }

  async close() {
    for (const s of this.isolates) if (!s.isolate.isDisposed) s.isolate.dispose();
  }
}
