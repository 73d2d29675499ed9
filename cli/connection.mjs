// One MCP connection of the command: its own CodeModeSession (so parked runs belong to
// it) behind a low-level SDK Server that serves exactly exec and wait, with the session's
// descriptions. Closing the connection closes the session, unless it was lent one.
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { ProgressRouter } from "./progress.mjs";
import { argumentProblem } from "./arguments.mjs";
import { protocolError } from "./errors.mjs";
import { wire } from "./wire.mjs";
import { nearest } from "./suggest.mjs";
import { servePassthrough, passthroughCapabilities } from "./passthrough.mjs";
import { Subscriptions } from "./subscriptions.mjs";
import { log, errorText, LEVELS } from "./log.mjs";
import { native, VERSION } from "./addon.mjs";

const { CodeModeSession, toModelResult } = native;

/** exec/wait as MCP tools: the session's model tools with `parameters` as `inputSchema`. */
export function mcpTools(session) {
  return session.modelTools().map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters }));
}

/** An exec/wait result as an MCP tool result: the model-ready part, as text and structured. */
export function toolResult(result) {
  const model = toModelResult(result);
  return { content: [{ type: "text", text: JSON.stringify(model) }], structuredContent: model, isError: model.status === "failed" };
}

/** A refused call, in the shape of every other failed exec/wait result. */
function refused(error) {
  const model = { status: "failed", error, code: "invalid_input" };
  return { content: [{ type: "text", text: JSON.stringify(model) }], structuredContent: model, isError: true };
}

/** What the command's Server declares, before hello() settles `resources.subscribe`. */
export const capabilities = () => ({ tools: { listChanged: true }, ...passthroughCapabilities() });

/** A session and its progress router for connections of the command's `hub`. */
export function openSession(hub, codeMode) {
  const router = new ProgressRouter();
  const session = new CodeModeSession({
    sessionId: `mcp-${randomUUID()}`,
    mcpServers: hub.upstreams.map((u) => ({ name: u.name, client: u.client })),
    limits: codeMode.limits,
    ...(codeMode.isolation !== undefined ? { isolation: codeMode.isolation } : {}),
    onEvent: (event) => router.event(event),
  });
  return { session, router };
}

export class Connection {
  /**
   * `hub`: the command's Hub (its upstreams); `codeMode`: `{ limits, isolation }` from the
   * config; `shared`: a `{ session, router }` to use (and leave open) instead of its own.
   */
  constructor(hub, codeMode, shared = undefined) {
    const { session, router } = shared ?? openSession(hub, codeMode);
    this.router = router;
    this.session = session;
    this.ownsSession = shared === undefined;
    this.hub = hub;
    // The Server reads this object when it answers initialize: hello() completes it first.
    this.capabilities = capabilities();
    this.server = new Server({ name: "codemode-native", version: VERSION }, { capabilities: this.capabilities });
    this.logLevel = undefined; // set by logging/setLevel; until then every message is sent
    this.passthrough = servePassthrough(this, hub);
    this.server.setRequestHandler(ListToolsRequestSchema, async () => {
      await this.session.ready();
      return { tools: mcpTools(this.session) };
    });
    this.server.setRequestHandler(CallToolRequestSchema, (request, extra) => this.callTool(request.params, extra));
    this.server.onerror = (error) => log(`connection: ${errorText(error)}`);
    this.closed = false;
  }

  /** Serves this connection over `transport` (a server transport not yet started). */
  async connect(transport) {
    await this.server.connect(transport);
    wire(transport, this.capabilities, {
      hello: () => this.hello(),
      listen: (uris) => this.listenResources(uris),
    });
  }

  /**
   * Before initialize or server/discover is answered: waits for the upstreams starting now
   * (as listings do) and declares `resources.subscribe` when one of them offers it.
   */
  async hello() {
    const upstreams = this.hub.upstreams;
    await Promise.all(upstreams.filter((u) => u.state === "connecting").map((u) => u.connecting));
    if (Subscriptions.offered(upstreams)) this.capabilities.resources.subscribe = true;
  }

  /** A modern listen stream names `uris`: subscribes each; resolves with those it could. */
  async listenResources(uris) {
    const done = [];
    for (const uri of uris) {
      try {
        await this.passthrough.subscribe(uri);
        done.push(uri);
      } catch (error) {
        log(`cannot subscribe to ${uri}: ${errorText(error)}`, "warning");
      }
    }
    return done;
  }

  async callTool(params, extra) {
    const { name } = params;
    const input = params.arguments ?? {};
    if (name !== "exec" && name !== "wait") {
      const near = nearest(String(name), ["exec", "wait"]);
      const tail = near !== undefined ? `; did you mean "${near}"? This server has exec and wait` : ": this server has exec and wait";
      throw protocolError(ErrorCode.InvalidParams, `Unknown tool ${JSON.stringify(name)}${tail}`);
    }
    // The schemas do not depend on the catalog: the first listing serves every call.
    this.schemas ??= Object.fromEntries(mcpTools(this.session).map((tool) => [tool.name, tool.inputSchema]));
    const problem = argumentProblem(name, input, this.schemas[name]);
    if (problem !== undefined) return refused(problem);
    const token = params._meta?.progressToken;
    const notify = (message, progress) =>
      extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, message } }).catch(() => {});
    const options = { signal: extra.signal };
    let untrack = () => {};
    if (name === "exec") {
      options.callId = `mcp-${randomUUID()}`;
      if (token !== undefined) untrack = this.router.trackExec(options.callId, notify);
    } else if (token !== undefined && typeof input.runId === "string") {
      untrack = this.router.trackRun(input.runId.trim(), notify);
    }
    try {
      const result = name === "exec" ? await this.session.exec(input, options) : await this.session.wait(input, options);
      return toolResult(result);
    } finally {
      untrack();
    }
  }

  /** An upstream's tools changed (or it came back): re-list, then tell the client. */
  async toolsChanged() {
    if (this.closed) return;
    try {
      await this.session.refreshMcp();
      if (!this.closed) await this.server.sendToolListChanged();
    } catch (error) {
      if (!this.closed) log(`could not refresh the tool list: ${errorText(error)}`);
    }
  }

  /** An upstream's resources or prompts changed (`method`: the list_changed notification). */
  listChanged(method) {
    if (this.closed) return;
    this.server.notification({ method }).catch(() => {});
  }

  /** An upstream resource this connection subscribed to changed. */
  resourceUpdated(params) {
    if (this.closed) return;
    this.server.notification({ method: "notifications/resources/updated", params }).catch(() => {});
  }

  /** A log message (an upstream's, or the command's own) for this client, at its level. */
  logMessage(params) {
    if (this.closed || LEVELS.indexOf(params.level) < LEVELS.indexOf(this.logLevel ?? "debug")) return;
    this.server.notification({ method: "notifications/message", params }).catch(() => {});
  }

  async close() {
    if (this.closed) return;
    this.closed = true;
    this.hub.subscriptions.drop(this);
    if (this.ownsSession) await this.session.close().catch(() => {});
    await this.server.close().catch(() => {});
  }
}
