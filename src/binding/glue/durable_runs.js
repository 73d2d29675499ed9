// Durable runs' store side (docs/durable-runs.md): writes a run's record (sealed by Rust)
// when it parks and before a call that is not replaySafe runs, claims it before a wait
// runs a turn, adopts it from the store when this process does not hold it, and resolves
// external calls inside a record. A call that is not replaySafe and runs here is held by
// a note of its own, renewed while it runs and ending with its outcome, which whoever
// holds the run reads before its claim. Operations on one run take turns; Rust keeps the
// version each run was last written or read at, for every session of its scope.
(function durableRuns(deps) {
  "use strict";
  const RUN_UNAVAILABLE = "code mode run is unavailable or expired.";
  const RESOLVE_ATTEMPTS = 8;
  const CLAIM_ATTEMPTS = 3;
  const { store, ttlSeconds, natives } = deps;
  // The tail of each run's operations, so they take turns.
  const chains = new Map();
  // A record write queued and not started, per run: intents join it.
  const queuedWrites = new Map();
  // Calls that are not replaySafe running here, by call id: { version of its note, timer }.
  const heldCalls = new Map();

  function error(code, message, cause) {
    const e = new Error(message);
    e.code = code;
    if (cause !== undefined) e.cause = cause;
    return e;
  }

  // A native's refusal ({ code, message }) as an error.
  function refused(answer) {
    return error(answer.code, answer.message);
  }

  // A store's failure keeps its documented code; anything else it throws is unavailability.
  function fromStore(operation, failure) {
    const code = failure && typeof failure.code === "string" ? failure.code : "store_unavailable";
    const message = failure instanceof Error ? failure.message : String(failure);
    if (["store_unavailable", "record_refused", "snapshot_limit_exceeded", "invalid_input"].includes(code)) return error(code, message, failure);
    return error("store_unavailable", "run store failed to " + operation + ": " + message, failure);
  }

  async function call(operation, run) {
    try {
      return await run();
    } catch (failure) {
      throw fromStore(operation, failure);
    }
  }

  // Runs `operation` after every earlier operation on run `runId` has settled.
  function serial(runId, operation) {
    const previous = chains.get(runId) || Promise.resolve();
    const next = previous.then(operation, operation);
    const tail = next.then(
      () => {},
      () => {}
    );
    chains.set(runId, tail);
    tail.then(() => {
      if (chains.get(runId) === tail) chains.delete(runId);
    });
    return next;
  }

  // Writes the run's record as held here now, one version past the one it was last
  // written or read at; `running`: claimed for the turn under way. False if this process
  // does not hold the run.
  async function write(runId, running) {
    const version = natives.versionOf(runId);
    const sealed = natives.seal(runId, version === null ? 1 : version + 1, running);
    if (sealed === null) return false;
    if (!(sealed instanceof Uint8Array)) throw refused(sealed);
    const answer = await call("put", () => store.put(runId, sealed, { expectVersion: version, ttlSeconds }));
    if (answer === null || typeof answer !== "object" || answer.ok !== true) {
      throw Object.assign(error("invalid_input", "code mode run was moved on by another gateway process since this one last held it; wait for it again to resume it from its record."), { moved: true });
    }
    natives.setVersion(runId, answer.version);
    return true;
  }

  function persist(runId) {
    return serial(runId, () => write(runId, false));
  }

  // The write a call that is not replaySafe waits for: its intent is in the store before
  // it runs. Calls made together share one write.
  function intent(runId) {
    let queued = queuedWrites.get(runId);
    if (queued === undefined) {
      queued = serial(runId, () => {
        queuedWrites.delete(runId);
        return write(runId, true);
      });
      queuedWrites.set(runId, queued);
    }
    return queued;
  }

  // Call `callId` (not replaySafe) runs here: while it does, its note (its own store
  // key, written only here) renews its hold; when it ends, the note carries its outcome.
  // A process that takes the run over reads the note, never waiting on this one.
  function running(runId, callId) {
    const every = Math.max(250, Math.floor(natives.leaseMs() / 3));
    // A tool that never settles is renewed no longer than a parked run can live.
    const lastRenewal = Date.now() + ttlSeconds * 1000;
    const renew = () => (Date.now() > lastRenewal ? clearInterval(held.timer) : note(callId, held, null, ""));
    const held = { version: null, timer: setInterval(renew, every) };
    if (typeof held.timer.unref === "function") held.timer.unref();
    heldCalls.set(callId, held);
  }

  // Tool call `callId` ended here with `ok`/`text` (ok null: it suspended itself, so
  // resolveCall answers it instead).
  function ended(runId, callId, ok, text) {
    const held = heldCalls.get(callId);
    if (held === undefined) return;
    heldCalls.delete(callId);
    clearInterval(held.timer);
    // A turn under way here takes the outcome, and its park writes it into the record.
    if (ok !== null && !natives.turning(runId)) note(callId, held, ok, text);
  }

  // Writes the note of call `callId`: a renewed hold (ok null) or its outcome. Notes of
  // one call take turns; a failed write is left to the next renewal, and past the hold
  // the run's next owner reads the call as lost, as for a process that died.
  function note(callId, held, ok, text) {
    const key = natives.noteKey(callId);
    serial(key, async () => {
      const sealed = natives.sealNote(callId, held.version === null ? 1 : held.version + 1, ok, text);
      if (!(sealed instanceof Uint8Array)) return;
      const ttl = ok === null ? Math.ceil((natives.leaseMs() * 2) / 1000) : ttlSeconds;
      const answer = await store.put(key, sealed, { expectVersion: held.version, ttlSeconds: ttl });
      if (answer !== null && typeof answer === "object" && answer.ok === true) held.version = answer.version;
    }).catch(() => {});
  }

  // Before a claim: the notes of calls of the run that another process holds give this
  // copy their renewed holds and outcomes. A note that does not open is left out: the
  // call's hold then lapses as if its process had died.
  async function readNotes(runId) {
    for (const callId of natives.heldCalls(runId)) {
      const record = await call("get", () => store.get(natives.noteKey(callId)));
      if (record !== null && record !== undefined) natives.absorbNote(runId, callId, record.bytes, record.version);
    }
  }

  // The run ended: its record goes (a failed delete leaves it to expire).
  function finish(runId) {
    return serial(runId, async () => {
      const version = natives.versionOf(runId);
      natives.setVersion(runId, null);
      if (version === null) return;
      try {
        await store.delete(runId, version);
      } catch (_) {
        // Expires after ttlSeconds.
      }
    });
  }

  // Before a wait runs a turn: claim the run (a write past the version this process
  // knows), or adopt it from the store when this process does not hold it or its copy is
  // stale. Exactly one of two processes resuming one run gets past its claim.
  function prepareWait(runId) {
    return serial(runId, async () => {
      if (natives.holds(runId)) {
        if (natives.versionOf(runId) === null) return; // Still in its first exec: the wait answers.
        try {
          await readNotes(runId);
          await write(runId, true);
          return;
        } catch (failure) {
          if (failure.moved !== true) throw failure;
          natives.forget(runId);
        }
      }
      // A write between the read and the claim (another process renewing the calls it
      // runs, say) is read again; a claim there is refused by adopt, with its end.
      for (let attempt = 1; ; attempt++) {
        const record = await call("get", () => store.get(runId));
        if (record === null || record === undefined) return; // Unknown here and there: the wait says so.
        const adopted = natives.adopt(runId, record.bytes, record.version);
        if (adopted !== null) throw refused(adopted);
        try {
          await readNotes(runId);
          await write(runId, true);
          return;
        } catch (failure) {
          natives.forget(runId);
          if (failure.moved !== true) throw failure;
          if (attempt === CLAIM_ATTEMPTS) throw error("invalid_input", "code mode run is already being resumed by another gateway process.");
        }
      }
    });
  }

  // resolveCall: in this process's copy (then written), else inside the stored record.
  function resolve(read) {
    const { runId, callId, ok, text } = read;
    return serial(runId, async () => {
      if (natives.holds(runId)) {
        const answer = natives.resolveLocal(runId, callId, ok, text);
        if (typeof answer !== "string") throw refused(answer);
        if (answer === "resolved" && natives.versionOf(runId) !== null) await write(runId, false);
        return answer;
      }
      for (let attempt = 0; attempt < RESOLVE_ATTEMPTS; attempt++) {
        const record = await call("get", () => store.get(runId));
        if (record === null || record === undefined) throw error("invalid_input", RUN_UNAVAILABLE);
        const answer = natives.resolveRecord(runId, record.bytes, record.version, callId, ok, text);
        if (typeof answer === "string") return answer;
        if (!(answer instanceof Uint8Array)) throw refused(answer);
        const put = await call("put", () => store.put(runId, answer, { expectVersion: record.version, ttlSeconds }));
        if (put !== null && typeof put === "object" && put.ok === true) return "resolved";
      }
      throw error("store_unavailable", "run store kept changing under resolveCall: " + RESOLVE_ATTEMPTS + " attempts lost to other writers.");
    });
  }

  // An exec/wait result on its way to the caller: a waiting run is in the store first
  // (else the result is the failure and this process drops its copy); an ended run
  // leaves the store.
  function settled(runId, result) {
    if (typeof runId !== "string" || runId === "") return Promise.resolve(result);
    if (result !== null && typeof result === "object" && result.status === "waiting") {
      return persist(runId).then(
        () => result,
        (failure) => {
          natives.forget(runId);
          return { status: "failed", error: failure.message, code: failure.code, telemetry: result.telemetry };
        }
      );
    }
    // A run still held here did not end (a second wait of it was refused, say).
    if (natives.holds(runId)) return Promise.resolve(result);
    return finish(runId).then(() => result);
  }

  // cancelRun dropped the run here: its record goes too, so no process resumes it.
  function cancelled(runId, version) {
    serial(runId, () => store.delete(runId, version)).catch(() => {});
  }

  return { intent, running, ended, prepareWait, resolve, settled, cancelled };
})
