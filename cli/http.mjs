// Serves MCP over Streamable HTTP at /mcp: in the 2025 era one Connection (and session)
// per MCP session id, closed when the client ends it (DELETE) or the command stops; modern
// requests go to stateless.mjs. Loopback only unless allowed; a bearer token if set.
import { createServer } from "node:http";
import { randomUUID, timingSafeEqual } from "node:crypto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { Connection } from "./connection.mjs";
import { statelessHttp, isModernHttp } from "./stateless.mjs";
import { log, errorText } from "./log.mjs";

export const ENDPOINT = "/mcp";
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1"]);

/** Whether `host` (a name or an address, IPv6 without brackets) is this machine only. */
export function isLoopback(host) {
  return LOOPBACK_NAMES.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function jsonRpcError(res, status, message, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

function sameSecret(given, expected) {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

// Far above any exec input (a cell's source is at most 256 KiB), far below what hurts.
const MAX_BODY_BYTES = 4 * 1024 * 1024;

// The JSON body of a POST; undefined for other methods. Throws for a body that is not JSON
// or is too large.
async function readBody(req) {
  if (req.method !== "POST") return undefined;
  const chunks = [];
  let size = 0;
  // A body over the limit is read to its end but not kept, so the client gets the answer
  // instead of a reset connection.
  for await (const chunk of req) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) throw new Error(`the body exceeds ${MAX_BODY_BYTES} bytes`);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/**
 * Listens on `host:port`; resolves with `{ url, close }` once listening. `token`: the
 * bearer token every request must carry, if any.
 */
export async function serveHttp(hub, codeMode, { host, port, token }) {
  const sessions = new Map(); // MCP session id -> { transport, connection }
  const modern = statelessHttp(hub, codeMode);
  const loopback = isLoopback(host);

  async function handle(req, res) {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== ENDPOINT) return jsonRpcError(res, 404, `Not found: the MCP endpoint is ${ENDPOINT}`);
    if (token !== undefined && !sameSecret(req.headers.authorization ?? "", `Bearer ${token}`)) {
      return jsonRpcError(res, 401, "Unauthorized: send Authorization: Bearer <token>", { "www-authenticate": "Bearer" });
    }
    // A page in a browser must not reach a loopback server through a DNS name of its own.
    const hostHeader = (req.headers.host ?? "").replace(/:\d+$/, "").replace(/^\[(.*)\]$/, "$1");
    if (loopback && !isLoopback(hostHeader)) return jsonRpcError(res, 403, `Forbidden: Host ${JSON.stringify(req.headers.host)} is not loopback`);
    let body;
    try {
      body = await readBody(req);
    } catch (error) {
      return jsonRpcError(res, 400, `Parse error: ${errorText(error)}`);
    }
    const id = req.headers["mcp-session-id"];
    if (typeof id === "string") {
      const entry = sessions.get(id);
      if (entry === undefined) return jsonRpcError(res, 404, "Session not found: initialize a new one");
      return entry.transport.handleRequest(req, res, body);
    }
    if (isModernHttp(req, body)) return modern.handle(req, res, body);
    if (req.method !== "POST" || !isInitializeRequest(body)) {
      return jsonRpcError(res, 400, "Bad request: no mcp-session-id header, and not an initialize request");
    }
    const connection = new Connection(hub, codeMode);
    hub.add(connection);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => sessions.set(sessionId, { transport, connection }),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      hub.remove(connection);
    };
    await connection.connect(transport);
    await transport.handleRequest(req, res, body);
    if (transport.sessionId === undefined) hub.remove(connection);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      log(`http: ${errorText(error)}`);
      if (!res.headersSent) jsonRpcError(res, 500, "Internal error");
      else res.end();
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}${ENDPOINT}`,
    close: async () => {
      await Promise.all([...sessions.values()].map(({ transport }) => transport.close().catch(() => {})));
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
