// Streamable HTTP in the modern era: no MCP session id, every POST stands alone. Each gets
// its own SDK Server for the one request it carries; all of them share one CodeModeSession,
// so a run one request parks is resumed by a later `wait`. A `subscriptions/listen`
// request keeps its event stream open for the list changes it asked for.
import { Connection, openSession } from "./connection.mjs";
import { isModernRequest, MODERN_VERSIONS } from "./era.mjs";
import { log, errorText } from "./log.mjs";

/** Whether a request without an MCP session id speaks the modern era. */
export function isModernHttp(req, body) {
  if (req.method !== "POST" || body === null || typeof body !== "object" || Array.isArray(body)) return false;
  const header = req.headers["mcp-protocol-version"];
  return isModernRequest(body) || (typeof header === "string" && header >= MODERN_VERSIONS[0]);
}

// A server transport that carries one request and writes what answers it: a JSON body,
// or an event stream when the client accepts one (so progress reaches it on the way).
class OneRequest {
  constructor(res, stream) {
    this.res = res;
    this.stream = stream;
    this.done = new Promise((resolve) => {
      this.finish = resolve;
    });
  }

  async start() {}

  async send(message) {
    const { res } = this;
    if (res.writableEnded) return;
    const answers = message.method === undefined && message.id === this.id;
    if (this.stream) {
      if (!res.headersSent) res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
      if (answers) this.close();
    } else if (answers) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(message));
      this.close();
    }
  }

  async close() {
    if (!this.res.writableEnded) this.res.end();
    this.finish();
    const onclose = this.onclose;
    this.onclose = undefined;
    onclose?.();
  }

  deliver(message) {
    this.id = message.id;
    this.onmessage?.(message);
  }
}

/** The modern era's HTTP side for the command's `hub`: `handle(req, res, body)`. */
export function statelessHttp(hub, codeMode) {
  const live = new Set(); // connections with a request in flight (or a listen open)
  let shared; // { session, router }, opened by the first modern request

  // What the hub tells about upstream changes reaches every open request's Server; the
  // wire passes on only what a listen stream asked for.
  const peer = {
    logLevel: undefined,
    async toolsChanged() {
      if (shared === undefined) return;
      await shared.session.refreshMcp().catch((error) => log(`could not refresh the tool list: ${errorText(error)}`));
      for (const c of live) c.server.sendToolListChanged().catch(() => {});
    },
    listChanged(method) {
      for (const c of live) c.server.notification({ method }).catch(() => {});
    },
    logMessage() {},
    async close() {
      await Promise.all([...live].map((c) => c.close()));
      await shared?.session.close().catch(() => {});
    },
  };

  async function handle(req, res, body) {
    // A notification (a cancellation, say) has no request here to act on.
    if (body.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (shared === undefined) {
      shared = openSession(hub, codeMode);
      hub.add(peer);
    }
    const listen = body.method === "subscriptions/listen";
    const stream = listen || String(req.headers.accept ?? "").includes("text/event-stream");
    const transport = new OneRequest(res, stream);
    const connection = new Connection(hub, codeMode, shared);
    live.add(connection);
    // A client that goes away ends its request (and a listen stream).
    res.once("close", () => transport.close());
    try {
      await connection.connect(transport);
      transport.deliver(body);
      await transport.done;
    } finally {
      live.delete(connection);
      await connection.close();
    }
  }

  return { handle };
}
