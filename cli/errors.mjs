// Error messages that say their thing once. The SDK's McpError puts "MCP error <code>: "
// before its message, and a client puts it there again when it reads an error response,
// so an McpError passed on (by a handler, or by the SDK itself) reaches a client as
// "MCP error -32602: MCP error -32602: …". Responses leave here with a bare message (the
// code has its own field); messages passed to a guest or a log keep one prefix at most.

const PREFIXES = /^(?:MCP error -?\d+: )+/;

/** `text` without any leading "MCP error <code>: ". */
export function bareMessage(text) {
  return String(text).replace(PREFIXES, "");
}

/** `text` with its leading "MCP error <code>: " prefixes folded into the first. */
export function onePrefix(text) {
  return String(text).replace(PREFIXES, (prefixes) => prefixes.slice(0, prefixes.indexOf(": ") + 2));
}

/** A JSON-RPC error for a request handler to throw: `code` as given, the message as written. */
export function protocolError(code, message, data) {
  const error = new Error(message);
  error.code = code;
  if (data !== undefined) error.data = data;
  return error;
}

/**
 * A call on an upstream server that is down. `reason` says why without naming the server,
 * for callers that name it themselves (the session does, for a listing that fails).
 */
export class UnavailableError extends Error {
  constructor(name, reason) {
    super(`MCP server "${name}" is unavailable: ${reason}`);
    this.reason = reason;
  }
}
