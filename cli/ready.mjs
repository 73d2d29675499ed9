// The line the command says once every upstream has connected or failed once: how many
// servers and tools a client gets, which servers failed, and where it is served. Cold
// upstreams (`npx -y …`) can take seconds; this line says when they are done.

// Enough for any real server; a server whose cursors never end must not hang the line.
const MAX_PAGES = 100;

/** How many tools `upstream` lists now (every page), or undefined when it cannot say. */
async function toolCount(upstream) {
  let count = 0;
  let cursor;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await upstream.client.listTools(cursor === undefined ? undefined : { cursor });
      count += Array.isArray(result?.tools) ? result.tools.length : 0;
      cursor = result?.nextCursor;
      if (typeof cursor !== "string" || cursor === "") break;
    }
    return count;
  } catch {
    return undefined;
  }
}

/** `{ up: [{ name, tools }], failed: [name] }` of `upstreams` as they are now. */
export async function summarize(upstreams) {
  const counts = await Promise.all(upstreams.map((u) => (u.state === "up" ? toolCount(u) : undefined)));
  const up = [];
  const failed = [];
  upstreams.forEach((u, i) => (counts[i] === undefined ? failed.push(u.name) : up.push({ name: u.name, tools: counts[i] })));
  return { up, failed };
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** `ready (3 servers, 41 tools) on stdio`; failed servers are counted and named. */
export function readyLine({ up, failed }, where) {
  const total = up.length + failed.length;
  const servers = failed.length === 0 ? plural(total, "server") : `${up.length} of ${plural(total, "server")}`;
  const tools = plural(up.reduce((sum, u) => sum + u.tools, 0), "tool");
  const failures = failed.length === 0 ? "" : `; failed: ${failed.join(", ")}`;
  return `ready (${servers}, ${tools}${failures}) on ${where}`;
}
