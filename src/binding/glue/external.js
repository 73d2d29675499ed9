// External calls: a tool's `ctx.suspend(payload)` parks its call for `resolveCall`
// (docs/durable-runs.md, Approvals without a live promise). This module checks both
// sides' inputs and keeps each parked call's event and span open until the call is
// resolved or cancelled; the run itself keeps the call (Rust, run/state/external.rs).
(function external(deps) {
  "use strict";
  const { events, suspendCall, toJsonText } = deps;
  const telemetry = deps.telemetry === undefined ? null : deps.telemetry;
  const RESOLVE_KEYS = ["runId", "callId", "value", "error"];
  const ABORTED = "code mode execution aborted";
  // Parked calls by call id: { runId, started (-1: nobody listened), span }. An entry
  // leaves when its call is resolved or cancelled, which ends every run's calls.
  const parked = new Map();
  // runCodeModeScript: no session, so nobody could resolve a parked call.
  let script = false;

  function invalid(message) {
    const error = new TypeError(message);
    error.code = "invalid_input";
    return error;
  }

  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  // The reason a value is not JSON, for messages (a thrown cycle, or nothing to write).
  function jsonText(value, what) {
    let text;
    try {
      text = toJsonText(value === undefined ? null : value);
    } catch (error) {
      throw invalid(what + " is not JSON: " + (error instanceof Error ? error.message : String(error)) + ".");
    }
    if (text === undefined) throw invalid(what + " is not JSON: a " + typeof value + " has no JSON form.");
    return text;
  }

  function end(callId, status, text) {
    const entry = parked.get(callId);
    if (entry === undefined) return;
    parked.delete(callId);
    events.toolCallEnd(entry.runId, callId, status, entry.started < 0 ? 0 : Date.now() - entry.started, text);
    if (telemetry !== null && entry.span !== null) telemetry.endTool(entry.span, status, text);
  }

  return {
    setScript(value) {
      script = value === true;
    },
    // ctx.suspend on something that is not a call's ctx (a copy, a detached method).
    notACall() {
      return invalid("ctx.suspend() must be called on the ctx of a running tool call, as ctx.suspend(payload).");
    },
    // ctx.suspend after its call settled: `again` if by an earlier ctx.suspend.
    late(again) {
      if (again) return invalid("ctx.suspend() was already called for this tool call; it parks a call once.");
      return invalid("ctx.suspend() was called after this tool call settled; call it before the tool returns, as `return ctx.suspend(payload)`.");
    },
    // Parks call `token` with `payload`: throws (and parks nothing) for a script, a payload
    // that is not JSON or one over maxOutputBytes; else true, or false if its run ended.
    suspend(token, payload) {
      if (script) throw invalid("ctx.suspend() is not available in runCodeModeScript: a headless script has no session to resolve the call; use a CodeModeSession.");
      const answer = suspendCall(token, jsonText(payload, "ctx.suspend payload"));
      if (typeof answer === "string") throw invalid(answer);
      return answer;
    },
    // The call is parked (`live`) or its run had ended: its end event waits for
    // `resolved`, or is sent now as cancelled.
    parked(live, runId, callId, started, span) {
      parked.set(callId, { runId, started, span });
      if (!live) end(callId, "cancelled", ABORTED);
    },
    // What ctx.suspend returns: for the tool to return, so nothing else runs.
    marker(callId) {
      return Object.freeze({ suspended: true, callId });
    },
    // A letter from Rust: the call was resolved (by any session of its scope).
    resolved(callId, ok, text) {
      end(callId, ok ? "ok" : "error", text);
    },
    // The call's run ended (cancel, close, expiry, failure): false if it is not parked here.
    cancelled(callId) {
      if (!parked.has(callId)) return false;
      end(callId, "cancelled", ABORTED);
      return true;
    },
    // resolveCall's input: { runId, callId, ok, text } or { refused: message }.
    readResolveInput(input) {
      try {
        if (!isObject(input)) throw invalid("resolveCall input must be an object: { runId, callId, value } or { runId, callId, error: { message } }.");
        for (const key of Object.keys(input)) {
          if (!RESOLVE_KEYS.includes(key)) throw invalid('resolveCall input has no key "' + key + '"; its keys are ' + RESOLVE_KEYS.join(", ") + ".");
        }
        const { runId, callId } = input;
        if (typeof runId !== "string" || runId.trim() === "") throw invalid("runId must be a non-empty string.");
        if (typeof callId !== "string" || callId === "") throw invalid("callId must be a non-empty string.");
        const hasValue = Object.prototype.hasOwnProperty.call(input, "value");
        const hasError = Object.prototype.hasOwnProperty.call(input, "error");
        if (hasValue === hasError) throw invalid("resolveCall takes exactly one of value and error.");
        if (hasValue) return { runId: runId.trim(), callId, ok: true, text: jsonText(input.value, "value") };
        const error = input.error;
        if (!isObject(error) || typeof error.message !== "string") throw invalid("error must be an object with a string message: { message }.");
        return { runId: runId.trim(), callId, ok: false, text: error.message };
      } catch (error) {
        // A throwing getter on the caller's input is a bad input too, never an exception.
        return { refused: error instanceof Error && error.code === "invalid_input" ? error.message : "resolveCall input could not be read: " + String(error && error.message) };
      }
    },
  };
})
