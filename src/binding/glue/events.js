// Events of one session: the objects handed to the host's onEvent and their delivery.
// onEvent is display-only: a listener that throws never affects a run. Previews pass
// through the session's redaction (set by Rust) before any listener sees them.
(function events(deps) {
  "use strict";
  const PREVIEW = deps.limits.eventPreviewChars;
  let onEvent = null;
  // Set by Rust to the session's redaction (secrets, patterns, tokens) plus the cut.
  let redactPreview = null;
  // "server\u0000toolName\u0000callableName" of each rename already reported by a `names` event.
  const reported = new Set();

  function emit(event) {
    if (onEvent === null) return;
    try {
      onEvent(event);
    } catch (_) {}
  }

  function preview(text) {
    if (redactPreview !== null) return redactPreview(text);
    return text.length <= PREVIEW ? text : text.slice(0, PREVIEW) + "…";
  }

  return {
    PREVIEW,
    emit,
    preview,
    // The session's onEvent (null: nobody listens, and no event is built).
    setListener(listener) {
      onEvent = typeof listener === "function" ? listener : null;
    },
    listening() {
      return onEvent !== null;
    },
    setRedactor(fn) {
      redactPreview = fn;
    },
    // The renamed tools as JSON `[{ toolName, callableName, server? }, …]` (from Rust,
    // after construction, addTools and each MCP load): one `names` event with those not yet
    // reported, none when every one was.
    reportNames(renamedJson) {
      if (onEvent === null || typeof renamedJson !== "string") return;
      const renamed = [];
      for (const entry of JSON.parse(renamedJson)) {
        const key = (entry.server ?? "") + "\u0000" + entry.toolName + "\u0000" + entry.callableName;
        if (reported.has(key)) continue;
        reported.add(key);
        renamed.push(entry);
      }
      if (renamed.length > 0) emit({ type: "names", renamed });
    },
    // An event built by Rust (the cell's own), as JSON text.
    emitJson(eventJson) {
      if (onEvent !== null) emit(JSON.parse(eventJson));
    },
    // An exec/wait promise settled: the run's new status (a settled call without a run
    // has runId "" and no event).
    runStatus(runId, status) {
      if (onEvent !== null && runId !== "") emit({ type: "run_status", runId, status });
    },
    toolCallStart(runId, callId, parentCallId, toolName, callableName, source, inputJson) {
      emit({ type: "tool_call_start", runId, callId, parentCallId, toolName, callableName, source, inputPreview: preview(inputJson) });
    },
    // `partial`: plain JSON already (ctx.onUpdate converts it).
    toolCallUpdate(runId, callId, partial) {
      emit({ type: "tool_call_update", runId, callId, partial });
    },
    // `text`: the result's JSON text, or the error's text when `status` is not "ok".
    toolCallEnd(runId, callId, status, durationMs, text) {
      if (onEvent === null) return;
      const end = { type: "tool_call_end", runId, callId, status, durationMs };
      if (status === "ok") end.outputPreview = preview(text);
      else end.error = preview(text);
      emit(end);
    },
  };
})
