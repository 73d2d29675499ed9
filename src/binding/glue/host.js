// Entry of one CodeModeSession's host glue: wires the modules (events, invoke, options,
// mcp, telemetry) into the object Rust calls, and owns the exec/wait promises that mailbox letters
// settle. Rust talks to it with JSON strings and small integers only, so no JS object
// ever crosses threads. Compiled on the Node thread; `modules` holds the module factories.
(function glue(modules) {
  "use strict";
  // `limitsJson`: the numbers the modules check against, from Rust (limits::glue_limits).
  return function createHost(done, pauseBudget, resumeBudget, mcpLoaded, nextLetter, abortCall, scheduler, watchToolList, limitsJson, suspendCall) {
    const limits = JSON.parse(limitsJson);
    const events = modules.events({ limits });
    const telemetry = modules.telemetry({ preview: events.preview });
    // `calls` is read only when a payload or value is converted, after it exists.
    const external = modules.external({ events, telemetry, suspendCall, toJsonText: (value) => calls.toJsonText(value) });
    const calls = modules.invoke({ events, telemetry, signals: modules.signals(), done, pauseBudget, resumeBudget, external });
    const options = modules.options({ invoke: calls, limits, redactionAsText: modules.redaction, durable: modules.durable });
    const mcp = modules.mcp({ addSurface: calls.addSurface, errorText: calls.errorText, isObject: options.isObject, mcpLoaded, reportNames: events.reportNames, listening: events.listening, requestSignal: calls.requestSignal, watchToolList, limits });
    // exec/wait promises by token, settled by a letter from the mailbox: { resolve, owner,
    // signal, listener }. owner is the JS session, kept reachable meanwhile; listener is the
    // call's abort listener on signal, removed on settling. While any is pending the
    // scheduler holds the event loop open (the wake-up function is weak, so an idle session
    // never does).
    const results = new Map();
    // `durableRuns`: the store side (glue/durable_runs.js), once Rust installs its natives;
    // and the waits whose store work is done, by run id (each a refusal or null), for the
    // native wait that follows at once.
    let durableOptions = null;
    let durable = null;
    const prepared = new Map();

    function settle(token, text, runId, status) {
      const entry = results.get(token);
      if (entry === undefined) return;
      results.delete(token);
      if (entry.contextRun !== undefined) calls.clearContext(entry.contextRun);
      if (entry.signal !== null) {
        // A caller's signal-like object may throw here; the result must still arrive.
        try {
          entry.signal.removeEventListener("abort", entry.listener);
        } catch (_) {}
      }
      scheduler.hold(-1);
      events.runStatus(runId, status);
      const result = JSON.parse(text);
      telemetry.settle(token, text, result, runId);
      if (durable === null) {
        entry.resolve(result);
        return;
      }
      const run = typeof result.runId === "string" ? result.runId : runId || entry.runId;
      entry.resolve(durable.settled(run, result));
    }

    // One letter from the mailbox (kinds: mailbox.rs, `Letter`); false once it is empty.
    function take() {
      const letter = nextLetter();
      if (letter === null || letter === undefined) return false;
      switch (letter[0]) {
        case 0:
          calls.invoke(letter[1], letter[2], letter[3], letter[4], letter[5], letter[6], letter[7], letter[8], letter[9]);
          break;
        case 1:
          calls.abort(letter[1]);
          break;
        case 2:
          events.emitJson(letter[1]);
          break;
        case 3:
          settle(letter[1], letter[2], letter[3], letter[4]);
          break;
        case 4:
          external.resolved(letter[2], letter[3], letter[4]);
          break;
      }
      return true;
    }

    return {
      // Called through the mailbox's wake-up when its first letter arrives.
      wake() {
        scheduler.wake(take);
      },
      // A pending exec/wait result, settled by `settle`. `kind`: "exec", "wait" or
      // "script"; `runId`: wait's. Called in the caller's tick, so its span (if traced)
      // starts under the caller's active context.
      open(token, owner, kind, runId) {
        const promise = new Promise((resolve) => {
          results.set(token, { resolve, owner, runId, signal: null, listener: null, context: undefined, contextRun: undefined });
          scheduler.hold(1);
        });
        telemetry.open(token, kind, runId);
        return promise;
      },
      normalizeOptions(input, script) {
        const normalized = options.normalizeOptions(input, script);
        external.setScript(script);
        calls.setPolicy(normalized.beforeToolCall);
        durableOptions = normalized.durableRuns;
        events.setListener(normalized.onEvent);
        telemetry.configure(normalized.telemetry, normalized.sessionId);
        normalized.commit();
        mcp.setServers(normalized.servers);
        return normalized.text;
      },
      startMcp: mcp.start,
      close: mcp.close,
      afterMcp: mcp.afterLoad,
      refreshMcp: mcp.refresh,
      readScriptOptions: options.readScriptOptions,
      fail(message) {
        throw options.invalid(message);
      },
      failWith(code, message) {
        const error = options.invalid(message);
        error.code = code;
        throw error;
      },
      rejected(message) {
        return Promise.reject(options.invalid(message));
      },
      setRedactor: events.setRedactor,
      reportNames: events.reportNames,
      addTools: options.addTools,
      directOnlyTools: calls.directOnlyTools,
      readExecInput(input) {
        const text = options.readExecInput(input);
        if (telemetry.active()) telemetry.stageExecInput(text);
        return text;
      },
      readWaitInput: options.readWaitInput,
      readResolveInput: external.readResolveInput,
      readCallOptions: options.readCallOptions,
      // The listener belongs to one exec/wait call: `settle` removes it, so a signal reused
      // across many calls (one per model turn, say) holds none. Returns whether there is a
      // signal to listen to. The cell has already started: a throwing options getter or
      // signal-like object must not turn this exec into an exception while its run goes on
      // unseen; the call then just cannot be aborted.
      onAbort(callOptions, token) {
        try {
          const signal = callOptions && callOptions.signal;
          const entry = results.get(token);
          if (!signal || typeof signal.addEventListener !== "function" || entry === undefined) return false;
          const listener = () => abortCall(token);
          signal.addEventListener("abort", listener, { once: true });
          if (typeof signal.removeEventListener === "function") {
            entry.signal = signal;
            entry.listener = listener;
          }
          return true;
        } catch (_) {
          return false;
        }
      },
      // The call option `context`, kept with the call's promise. True if the call's run id
      // is wanted (`bindContext`): it has a context or a span. Read once, like the signal: a
      // throwing getter just means no context.
      holdContext(callOptions, token) {
        const traced = telemetry.tracing(token);
        try {
          const entry = results.get(token);
          const context = callOptions !== null && typeof callOptions === "object" ? callOptions.context : undefined;
          if (entry === undefined || context === undefined) return traced;
          entry.context = context;
          return true;
        } catch (_) {
          return traced;
        }
      },
      // The call's run has started as `runId`: its tool calls see the context until it
      // settles, and go under the call's span.
      bindContext(token, runId) {
        telemetry.bind(token, runId);
        const entry = results.get(token);
        if (entry === undefined || entry.context === undefined) return;
        entry.contextRun = runId;
        calls.setContext(runId, entry.context);
      },
      // `durableRuns`: Rust's natives for sealing and adopting records.
      installDurable(natives) {
        if (durableOptions === null || durableOptions === undefined) return;
        durable = modules.durableRuns({ store: durableOptions.store, ttlSeconds: durableOptions.ttlSeconds, natives });
        calls.setDurable(durable);
      },
      // A durable session's wait: the store work first, then `owner.wait` again, which
      // finds it done (`durablePrepared`).
      durableWait(owner, input, options, runId) {
        const go = (outcome) => {
          const list = prepared.get(runId) || [];
          list.push(outcome);
          prepared.set(runId, list);
          return owner.wait(input, options);
        };
        return durable.prepareWait(runId).then(
          () => go(null),
          (failure) => go({ code: typeof failure.code === "string" ? failure.code : "store_unavailable", message: failure.message })
        );
      },
      // undefined: no store work done for this wait yet; null: done; { code, message }:
      // refused, for the wait to answer as a failed result.
      durablePrepared(runId) {
        if (durable === null) return null;
        const list = prepared.get(runId);
        if (list === undefined) return undefined;
        const outcome = list.shift();
        if (list.length === 0) prepared.delete(runId);
        return outcome;
      },
      durableCancelled(runId, version) {
        if (durable !== null) durable.cancelled(runId, version);
      },
      durableResolve(read) {
        return durable.resolve(read);
      },
      emit: events.emitJson,
      invoke: calls.invoke,
      abort: calls.abort,
    };
  };
})
