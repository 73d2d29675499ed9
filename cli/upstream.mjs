// One upstream MCP server: connects it (a child process over stdio, or Streamable HTTP),
// restarts it with capped exponential backoff when it fails to start or dies, and hands
// sessions a client facade that stays the same object across restarts. While the server is
// down, calls through the facade fail at once with an error naming the server.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { log, pipeLines, errorText } from "./log.mjs";
import { createFacade } from "./facade.mjs";
import { onePrefix, UnavailableError } from "./errors.mjs";

/** Restart delays: the first, the cap, and how long a connection must last to reset them. */
export const BACKOFF = { firstMs: 250, maxMs: 30_000, stableMs: 30_000 };

export class Upstream {
  /** `def`: a config server (`{ name, kind, command… | url… }`). */
  /**
   * `onNotice(upstream, method, params)`: a resources/prompts list_changed, a resource
   * update or a log message (`notifications/message`) from the live connection.
   */
  constructor(def, { version, onUp = () => {}, onToolsChanged = () => {}, onNotice = () => {} }) {
    this.name = def.name;
    this.def = def;
    this.version = version;
    this.onUp = onUp;
    this.onToolsChanged = onToolsChanged;
    this.onNotice = onNotice;
    /** "connecting" | "up" | "down" | "closed" */
    this.state = "down";
    this.live = null; // the connected SDK Client while up
    this.connecting = null; // settles (never rejects) when the current attempt ends
    this.capabilities = undefined; // of the last connection, kept while down
    this.lastError = "not started";
    this.failures = 0;
    this.timer = null;
    this.current = null; // { client, ended, upSince } of the latest attempt
    this.client = createFacade(this);
  }

  start() {
    this.connect();
    return this.connecting;
  }

  makeTransport() {
    const def = this.def;
    if (def.kind === "http") {
      return new StreamableHTTPClientTransport(new URL(def.url), { requestInit: { headers: def.headers ?? {} } });
    }
    const transport = new StdioClientTransport({ command: def.command, args: def.args ?? [], env: def.env, cwd: def.cwd, stderr: "pipe" });
    pipeLines(transport.stderr, this.name);
    return transport;
  }

  connect() {
    if (this.state === "closed") return;
    this.state = "connecting";
    const client = new Client({ name: "codemode-native", version: this.version }, { capabilities: {} });
    const transport = this.makeTransport();
    const attempt = { client, ended: false, upSince: 0 };
    this.current = attempt;
    client.onclose = () => this.ended(attempt, new Error(this.def.kind === "stdio" ? "its process exited" : "the connection closed"));
    // Failures to connect are logged once, by ended().
    client.onerror = (error) => {
      if (this.live === client) log(`${this.name}: ${errorText(error)}`);
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (this.live !== client) return;
      this.forgetTools();
      this.onToolsChanged(this);
    });
    for (const schema of [ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema, PromptListChangedNotificationSchema, LoggingMessageNotificationSchema]) {
      client.setNotificationHandler(schema, (notification) => {
        if (this.live === client) this.onNotice(this, notification.method, notification.params);
      });
    }
    this.connecting = client.connect(transport).then(
      () => {
        if (attempt.ended) return;
        if (this.state === "closed") return void client.close().catch(() => {});
        this.live = client;
        this.capabilities = client.getServerCapabilities();
        this.state = "up";
        this.forgetTools();
        attempt.upSince = Date.now();
        if (this.failures > 0) log(`${this.name}: connected again`);
        this.onUp(this);
      },
      (error) => this.ended(attempt, error)
    );
  }

  // An attempt failed or a connection ended: schedule the next attempt.
  ended(attempt, error) {
    if (attempt.ended) return;
    attempt.ended = true;
    if (this.live === attempt.client) this.live = null;
    attempt.client.close().catch(() => {});
    if (this.state === "closed") return;
    if (attempt.upSince > 0 && Date.now() - attempt.upSince >= BACKOFF.stableMs) this.failures = 0;
    this.lastError = errorText(error);
    this.state = "down";
    const delay = Math.min(BACKOFF.firstMs * 2 ** Math.min(this.failures, 20), BACKOFF.maxMs);
    this.failures++;
    log(`${this.name}: ${attempt.upSince > 0 ? "lost" : "failed to start"} (${this.lastError}); restarting in ${delay} ms`, "warning");
    this.timer = setTimeout(() => this.connect(), delay);
    this.timer.unref();
  }

  /**
   * Runs `fn(client)` on the live client, after the attempt under way if there is one;
   * an upstream that is down, or dies during the call, fails it naming the server.
   * `signal`: the call's own, whose abort is the caller's doing, not the server's.
   */
  async call(fn, signal) {
    if (this.state === "connecting") await this.connecting;
    const client = this.live;
    if (client === null) {
      const why = this.state === "closed" ? "the command is shutting down" : "it is being restarted";
      throw new UnavailableError(this.name, `${this.lastError}; ${why}`);
    }
    try {
      return await fn(client);
    } catch (error) {
      if (error?.name === "AbortError" || signal?.aborted) throw error;
      if (this.live !== client || error?.code === ErrorCode.ConnectionClosed) {
        throw new Error(`MCP server "${this.name}" disconnected during the call (${errorText(error)}); it is being restarted`);
      }
      // Over HTTP a server that went away shows as a failed request, not a closed connection.
      if (this.def.kind === "http" && !(error instanceof McpError)) {
        if (this.current.client === client) this.ended(this.current, error);
        throw new Error(`MCP server "${this.name}" is unreachable (${errorText(error)}); reconnecting`);
      }
      // The server's own error, read back by the SDK: its message carries the prefix twice.
      if (error instanceof McpError) error.message = onePrefix(error.message);
      throw error;
    }
  }

  /** Stops restarting and closes the connection, or the attempt under way (its child too). */
  async close() {
    this.state = "closed";
    clearTimeout(this.timer);
    const client = this.current?.client ?? null;
    this.live = null;
    if (client !== null) await client.close().catch(() => {});
  }
}
