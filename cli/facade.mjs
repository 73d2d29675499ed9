// The MCP client a session holds for an upstream: the methods the addon calls
// (McpClientLike), each forwarded to whichever connection is live. Tool listings are
// remembered, so a session that re-lists while the server is down keeps its tools (and
// their calls fail naming the server) instead of losing them.
import { UnavailableError } from "./errors.mjs";

/** A stable McpClientLike over `upstream` (an Upstream). */
export function createFacade(upstream) {
  // cursor ("" for the first page) -> the last listTools answer for it
  const toolPages = new Map();
  upstream.forgetTools = () => toolPages.clear();
  // The request options (`{ signal, … }`) come last: third for callTool, second otherwise.
  const signalOf = (options) => (options !== null && typeof options === "object" ? options.signal : undefined);
  const forward = (method) => (...args) => upstream.call((client) => client[method](...args), signalOf(args[method === "callTool" ? 2 : 1]));
  return {
    async listTools(params, options) {
      const cursor = params?.cursor ?? "";
      try {
        const page = await upstream.call((client) => client.listTools(params, options), signalOf(options));
        toolPages.set(cursor, page);
        return page;
      } catch (error) {
        const known = toolPages.get(cursor);
        if (known !== undefined && upstream.live === null) return known;
        // The session names the server itself ("MCP server "x" is unavailable: <reason>").
        if (error instanceof UnavailableError) throw new Error(error.reason);
        throw error;
      }
    },
    callTool: forward("callTool"),
    listResources: forward("listResources"),
    readResource: forward("readResource"),
    listResourceTemplates: forward("listResourceTemplates"),
    listPrompts: forward("listPrompts"),
    getPrompt: forward("getPrompt"),
    // Of the last connection: a server that is down keeps its resources and prompts.
    getServerCapabilities: () => upstream.capabilities,
  };
}
