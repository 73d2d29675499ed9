// Serves one MCP connection over this process's stdin/stdout. The connection (and the
// command) ends when the client closes stdin or the transport closes.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { Connection } from "./connection.mjs";

/** Resolves when the client has gone. */
export async function serveStdio(hub, codeMode) {
  const connection = new Connection(hub, codeMode);
  hub.add(connection);
  const transport = new StdioServerTransport();
  const ended = new Promise((resolve) => {
    connection.server.onclose = resolve;
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    // A client that went away can make writing the protocol fail (EPIPE): that ends it too.
    process.stdout.once("error", resolve);
  });
  await connection.connect(transport);
  await ended;
  await hub.remove(connection);
}
