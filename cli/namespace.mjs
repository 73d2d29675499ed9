// How the upstreams' resources and prompts are named to a client of the command. Prompts
// become `<server>__<prompt>`; resources and templates keep their URIs (a URI already says
// where it points) and name their server in `_meta` and their description. Every item
// carries `_meta["codemode-native/server"]`.
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";

export const SERVER_META = "codemode-native/server";
export const SEPARATOR = "__";

/** A listed resource, template or prompt of `server`, as the command lists it. */
export function tagged(server, item) {
  const description = item.description !== undefined ? `[${server}] ${item.description}` : `[${server}]`;
  return { ...item, description, _meta: { ...item._meta, [SERVER_META]: server } };
}

export const promptName = (server, prompt) => `${server}${SEPARATOR}${prompt}`;

/**
 * `{ server, prompt }` of a command prompt name, the longest server name that fits (a server
 * may have `__` in its name); undefined when none does.
 */
export function splitPromptName(name, servers) {
  let best;
  for (const server of servers) {
    if (name.startsWith(server + SEPARATOR) && name.length > server.length + SEPARATOR.length && (best === undefined || server.length > best.length)) best = server;
  }
  return best === undefined ? undefined : { server: best, prompt: name.slice(best.length + SEPARATOR.length) };
}

/** Whether `uri` is one of the URIs `template` (an RFC 6570 URI template) describes. */
export function templateMatches(template, uri) {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}
