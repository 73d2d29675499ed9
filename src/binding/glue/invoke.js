// Calls into host code: the registries of tools and surfaces (indices are Rust's and never
// reused), each call's ctx, the beforeToolCall policy, the fixed refusals (node shell
// commands, skill paths leaving the skill) and BigInt-safe conversion of results to JSON.
(function invoke(deps) {
  "use strict";
  const { events, signals, done, pauseBudget, resumeBudget } = deps;
  // glue/telemetry.js: a span per call when tracing (absent in tests of this module alone).
  const telemetry = deps.telemetry === undefined ? null : deps.telemetry;
  // glue/external.js: ctx.suspend's checks and parked calls (absent in tests of this
  // module alone, where ctx.suspend refuses as on a copy of a ctx).
  const external = deps.external === undefined ? null : deps.external;
  // Catalog tools by host index, and everything else called like one (namespace leaves,
  // MCP tools and operations, nodes, skills, Swarm): { name, source, execute }.
  const definitions = [];
  const surfaces = [];
  // Calls in flight by call id: { controller, aborted, loan }.
  const controllers = new Map();
  let beforeToolCall = null;
  // `durableRuns` (glue/durable_runs.js): `intent(runId)` resolves once a run's record,
  // with the calls it has made, is in the store (a call that is not replaySafe waits for
  // it); `running`/`ended` tell it which such calls run here until their outcome.
  let durable = null;
  // The `context` call option of the exec/wait each run is in, by run id (while it lasts).
  const contexts = new Map();

  // Guest BigInts cross as decimal strings; a tool's BigInts (also boxed ones) do the same.
  // The replacer only runs after a plain stringify threw, so the usual path stays fast.
  const bigintValueOf = BigInt.prototype.valueOf;
  function bigintAsString(_key, value) {
    if (typeof value === "bigint") return value.toString();
    if (value !== null && typeof value === "object") {
      try {
        return bigintValueOf.call(value).toString();
      } catch (_) {
        // Not a boxed BigInt.
      }
    }
    return value;
  }
  function toJsonText(value) {
    try {
      return JSON.stringify(value);
    } catch (error) {
      if (!(error instanceof TypeError) || !/BigInt/i.test(String(error.message))) throw error;
      return JSON.stringify(value, bigintAsString);
    }
  }

  function plainJson(value) {
    const text = toJsonText(value === undefined ? null : value);
    return text === undefined ? null : JSON.parse(text);
  }

  function errorText(error) {
    try {
      if (error instanceof Error) return String(error.message);
      if (typeof error === "string") return error;
      return JSON.stringify(error) ?? String(error);
    } catch (_) {
      return "tool failed with an unreadable error";
    }
  }

  function abortReason() {
    return new Error("code mode execution aborted");
  }

  // A call's ctx. ctx.signal is an own, enumerable accessor (so destructuring and `{ ...ctx }`
  // see it) whose AbortController is made on first read; most tools never read it. One
  // getter for every ctx: a getter made per call gives each ctx its own shape, which V8
  // stores as a slow dictionary (770 B a ctx instead of 310, and twice the time to build).
  // The call's abort state is a private field, hidden from spreads and inspection like a
  // non-enumerable property but without defineProperty's slow path (~1.5 µs a call).
  class ToolCallContext {
    #call;
    constructor(callId, parentCallId, runId, sessionId, context, call) {
      this.callId = callId;
      this.parentCallId = parentCallId;
      this.runId = runId;
      this.sessionId = sessionId;
      this.context = context;
      Object.defineProperty(this, "signal", SIGNAL_PROPERTY);
      this.#call = call;
    }
    // Parks this call for session.resolveCall (glue/external.js): `return ctx.suspend(p)`.
    // On the prototype, so spreads and copies of a ctx do not carry it.
    suspend(payload) {
      const call = ToolCallContext.callOf(this);
      if (call === undefined || call.suspend === null) throw external.notACall();
      return call.suspend(payload);
    }
    // The abort state behind `ctx`, or undefined for anything not a call's ctx (a copy).
    static callOf(ctx) {
      return ctx !== null && typeof ctx === "object" && #call in ctx ? ctx.#call : undefined;
    }
  }
  const SIGNAL_PROPERTY = {
    enumerable: true,
    configurable: true,
    get() {
      const call = ToolCallContext.callOf(this);
      if (call === undefined) return undefined;
      if (call.controller === null) {
        call.controller = new AbortController();
        if (call.aborted) call.controller.abort(abortReason());
      }
      return call.controller.signal;
    },
  };

  class BlockedCall extends Error {}

  // beforeToolCall may block the call or rewrite its input before the tool runs.
  async function withPolicy(definition, toolName, callableName, inputJson, callId, ctx) {
    let input = JSON.parse(inputJson);
    const decision = await beforeToolCall({ toolName, callableName, input: plainJson(input), callId });
    if (decision !== null && typeof decision === "object") {
      if (decision.block !== undefined && decision.block !== null && decision.block !== false) {
        const reason = typeof decision.block === "string" ? decision.block : "blocked by policy";
        // The addon's own text names the tool as the guest called it; the reason is the
        // policy's and passes unchanged.
        throw new BlockedCall('Tool "' + callableName + '" was blocked before execution: ' + reason);
      }
      if (Object.prototype.hasOwnProperty.call(decision, "input")) input = plainJson(decision.input);
    }
    return definition.execute(input, ctx);
  }

  function addSurface(name, source, execute) {
    surfaces.push({ name, source, execute });
    return surfaces.length - 1;
  }

  // The surfaces of the nodes, skills and swarm hosts (already checked to have their
  // methods), by operation: their host indices.
  const hostSurfaces = {
    nodes(nodes) {
      return {
        list: addSurface("nodes.list", "nodes", async (_input, ctx) => {
          const list = await nodes.list(ctx);
          if (!Array.isArray(list)) throw new Error("nodes.list returned a value that is not an array.");
          return list;
        }),
        invoke: addSurface("nodes.invoke", "nodes", async (input, ctx) => {
          const command = input.command;
          // The generic surface never runs shell commands: those go through the exec tool.
          if (command === "system.run" || command === "exec") {
            throw new Error('node command "' + command + '" is reserved for the exec tool and cannot run from code mode.');
          }
          return nodes.invoke(String(input.nodeId), command, input.params === undefined ? null : input.params, ctx);
        }),
      };
    },
    skills(skills) {
      return {
        list: addSurface("skills.list", "skills", (_input, ctx) => skills.list(ctx)),
        read: addSurface("skills.read", "skills", async (input, ctx) => {
          const rel = typeof input.relativePath === "string" ? input.relativePath : undefined;
          if (rel !== undefined && (rel.startsWith("/") || rel.split(/[\\/]/).includes(".."))) {
            throw new Error("skills.read relativePath must stay inside the skill.");
          }
          return skills.read(String(input.name), rel, ctx);
        }),
      };
    },
    // `methods`: the optional ones (phase, log) the host has.
    swarm(swarm, methods) {
      const ops = { run: addSurface("agents.run", "swarm", (input, ctx) => swarm.run(input, ctx)) };
      for (const method of methods) {
        ops[method] = addSurface(method, "swarm", async (input, ctx) => {
          await swarm[method](String(input), ctx);
          return null;
        });
      }
      return ops;
    },
  };

  // Calls tool `index` (a surface if `surface`) and reports to Rust with done(token, ok,
  // text) exactly once: a throw, a rejection or a result that is not JSON is a failed call.
  function invoke(index, surface, callableName, inputJson, callId, parentCallId, runId, sessionId, token) {
    const definition = surface ? surfaces[index] : definitions[index];
    const toolName = definition.name;
    // A durable run's call that is not replaySafe, once its tool runs: its outcome is
    // recorded even if another gateway process takes the run meanwhile.
    let held = false;
    const unhold = (ok, text) => {
      if (!held) return;
      held = false;
      durable.ended(runId, callId, ok, text);
    };
    // The call's abort state; ctx.signal makes its controller on first read (already
    // aborted if the call was cancelled before that).
    const call = { controller: null, aborted: false, loan: null, suspend: null };
    controllers.set(callId, call);
    const listening = events.listening();
    const started = listening ? Date.now() : 0;
    // Open pauseBudget() windows of this call; each resume function closes its own once,
    // and the call's end closes whatever is still open.
    let pauses = 0;
    let settled = false;
    const parent = parentCallId === "" ? undefined : parentCallId;
    const ctx = new ToolCallContext(callId, parent, runId, sessionId, contexts.get(runId), call);
    ctx.onUpdate = (partial) => {
      if (settled || !events.listening()) return;
      let value;
      try {
        value = plainJson(partial);
      } catch (_) {
        return;
      }
      events.toolCallUpdate(runId, callId, value);
    };
    ctx.pauseBudget = () => {
      pauseBudget(token);
      pauses++;
      let open = true;
      return () => {
        if (open && pauses > 0) {
          open = false;
          pauses--;
          resumeBudget(token);
        }
      };
    };
    const source = definition.source || "core";
    if (listening) events.toolCallStart(runId, callId, parent, toolName, callableName, source, inputJson);
    const span = telemetry === null ? null : telemetry.startTool(runId, callId, parent, toolName, callableName, source, inputJson);
    // The call's host-side state ends: it settled, or it was parked by ctx.suspend.
    const release = () => {
      settled = true;
      controllers.delete(callId);
      if (call.loan !== null) signals.giveBack(call.loan);
      for (; pauses > 0; pauses--) resumeBudget(token);
    };
    if (external !== null) {
      let suspended = false;
      // From now on the run, not the tool, answers the call: what the tool returns or
      // throws afterwards is ignored.
      call.suspend = (payload) => {
        if (settled) throw external.late(suspended);
        const live = external.suspend(token, payload);
        suspended = true;
        release();
        unhold(null, null);
        external.parked(live, runId, callId, listening ? started : -1, span);
        return external.marker(callId);
      };
    }
    const finish = (ok, text) => {
      if (settled) return;
      release();
      const status = ok ? "ok" : call.aborted ? "cancelled" : "error";
      events.toolCallEnd(runId, callId, status, listening ? Date.now() - started : 0, text);
      if (span !== null) telemetry.endTool(span, status, text);
      done(token, ok, text);
      unhold(ok, text);
    };
    const succeed = (value) => {
      let text;
      try {
        text = toJsonText(value === undefined ? null : value);
      } catch (e) {
        finish(false, "tool returned a value that is not JSON: " + errorText(e));
        return;
      }
      finish(true, text === undefined ? "null" : text);
    };
    const fail = (error) => finish(false, errorText(error));
    // Without a policy hook the tool starts in this tick (one hop fewer per call); a
    // synchronous throw is still a failed call, never an exception out of invoke. A traced
    // call runs with its span active, so the tool's own spans nest under it.
    const start = () => (beforeToolCall === null ? definition.execute(JSON.parse(inputJson), ctx) : withPolicy(definition, toolName, callableName, inputJson, callId, ctx));
    const run = () => {
      let result;
      try {
        result = span === null ? start() : telemetry.within(span, start);
        if (result !== null && typeof result === "object" && typeof result.then === "function") {
          Promise.resolve(result).then(succeed, fail);
          return;
        }
      } catch (error) {
        fail(error);
        return;
      }
      succeed(result);
    };
    if (durable === null || definition.replaySafe === true) {
      run();
      return;
    }
    // At most once across processes: the call runs only once the store has it.
    durable.intent(runId).then(
      () => {
        if (call.aborted) return fail(abortReason());
        held = true;
        durable.running(runId, callId);
        run();
      },
      (failure) => fail(new Error("this call was not made: the run store could not record it first (" + errorText(failure) + ")."))
    );
  }

  return {
    toJsonText,
    plainJson,
    errorText,
    addSurface,
    hostSurfaces,
    invoke,
    // Tools register once Rust accepted their specs, so host indices match Rust's count.
    definitionCount() {
      return definitions.length;
    },
    addDefinitions(tools) {
      for (const tool of tools) definitions.push(tool);
    },
    // The direct-only definitions, the last of each name (a client tool shadows a core one).
    directOnlyTools() {
      const byName = new Map();
      for (const tool of definitions) if (tool.directOnly === true) byName.set(tool.name, tool);
      return [...byName.values()];
    },
    // `context` reaches every call of run `runId` until clearContext(runId).
    setContext(runId, context) {
      contexts.set(runId, context);
    },
    clearContext(runId) {
      contexts.delete(runId);
    },
    setDurable(hooks) {
      durable = hooks;
    },
    setPolicy(hook) {
      beforeToolCall = typeof hook === "function" ? hook : null;
    },
    // The abort signal for the requests the call behind `ctx` sends (MCP requests): its
    // ctx.signal, borrowed from the pool when nothing made one yet (the pool may lend it:
    // the requests' listeners are removed when the call settles).
    requestSignal(ctx) {
      const call = ToolCallContext.callOf(ctx);
      if (call === undefined) return ctx.signal;
      if (call.controller === null && !call.aborted) {
        call.loan = signals.lend();
        call.controller = call.loan.controller;
      }
      return ctx.signal;
    },
    // Cancels call `callId`: its ctx.signal aborts (now, or when first read).
    abort(callId) {
      const call = controllers.get(callId);
      if (call !== undefined) {
        controllers.delete(callId);
        call.aborted = true;
        if (call.controller !== null) call.controller.abort(abortReason());
      } else if (external !== null) {
        // A parked call has no tool left to abort: only its end event is owed.
        external.cancelled(callId);
      }
    },
  };
})
