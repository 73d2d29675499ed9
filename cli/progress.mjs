// Routes a session's trajectory events to the exec/wait request they belong to, so a
// client that sent a progress token sees each nested call as notifications/progress.
// An exec is known by the callId it passed (its nested calls' parentCallId), a wait by its runId.

/** One line for an event (`name`: the callable of its call), or undefined for events a client does not need. */
function describe(event, name = "a tool call") {
  switch (event.type) {
    case "tool_call_start":
      return `${event.callableName} started`;
    case "tool_call_update": {
      const p = event.partial;
      return `${name}: ${p !== null && typeof p === "object" && typeof p.message === "string" ? p.message : "update"}`;
    }
    case "tool_call_end":
      return `${name} ${event.status}${event.error ? `: ${event.error}` : ""} (${event.durationMs} ms)`;
    case "run_status":
      return event.status === "running" ? undefined : `run ${event.status}`;
    default:
      return undefined;
  }
}

export class ProgressRouter {
  constructor() {
    this.byCallId = new Map(); // exec callId -> listener, until its runId is known
    this.byRunId = new Map(); // runId -> listener
    this.callNames = new Map(); // nested callId -> callable name, for end events
  }

  /** Sends `notify(message, count)` for each event of the exec started with `callId`. */
  trackExec(callId, notify) {
    this.byCallId.set(callId, { notify, count: 0, runId: undefined });
    return () => {
      const entry = this.byCallId.get(callId);
      this.byCallId.delete(callId);
      if (entry?.runId !== undefined && this.byRunId.get(entry.runId) === entry) this.byRunId.delete(entry.runId);
    };
  }

  /** The same for a wait on `runId`. */
  trackRun(runId, notify) {
    const entry = { notify, count: 0, runId };
    this.byRunId.set(runId, entry);
    return () => {
      if (this.byRunId.get(runId) === entry) this.byRunId.delete(runId);
    };
  }

  /** A session's onEvent. */
  event(event) {
    if (event.parentCallId !== undefined && event.runId !== undefined) {
      const entry = this.byCallId.get(event.parentCallId);
      if (entry !== undefined && entry.runId === undefined) {
        entry.runId = event.runId;
        this.byRunId.set(event.runId, entry);
      }
    }
    if (event.type === "tool_call_start") this.callNames.set(event.callId, event.callableName);
    const entry = this.byRunId.get(event.runId);
    const message = describe(event, this.callNames.get(event.callId));
    if (event.type === "tool_call_end") this.callNames.delete(event.callId);
    if (entry === undefined || message === undefined) return;
    entry.count++;
    try {
      entry.notify(message, entry.count);
    } catch {
      // A client that went away must not break the run.
    }
  }
}
