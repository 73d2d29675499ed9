// The upstreams' resources, prompts, completions and logging, served by one connection's
// Server next to exec and wait (names: namespace.mjs). Lists are every page of every
// server that is up, in one page; a request about one item goes to the server that owns it.
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { protocolError } from "./errors.mjs";
import { log, errorText } from "./log.mjs";
import { tagged, promptName, splitPromptName, templateMatches } from "./namespace.mjs";

/**
 * What the command's Server declares for what this module serves: a fresh object per
 * connection, since `resources.subscribe` is added when an upstream offers it (hello()).
 */
export const passthroughCapabilities = () => ({
  resources: { listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
});

// Enough for any real server; a server whose cursors never end must not hang a listing.
const MAX_PAGES = 100;

async function allPages(list, field) {
  const items = [];
  let cursor;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await list(cursor === undefined ? {} : { cursor });
    if (Array.isArray(result?.[field])) items.push(...result[field]);
    cursor = result?.nextCursor;
    if (typeof cursor !== "string" || cursor === "") break;
  }
  return items;
}

/** Upstreams that are up and declare `capability`. */
const serving = (upstreams, capability) => upstreams.filter((u) => u.state === "up" && u.capabilities?.[capability] !== undefined);

/**
 * `[{ upstream, items }]` of every server that serves `capability`, each listed with
 * `method` (an SDK Client method); a server whose listing fails is logged and left out.
 */
async function listEach(upstreams, capability, method, field, signal) {
  // As tools/list waits for the session's first listing: a server starting now is waited for.
  await Promise.all(upstreams.filter((u) => u.state === "connecting").map((u) => u.connecting));
  const lists = await Promise.all(
    serving(upstreams, capability).map(async (upstream) => {
      try {
        const items = await allPages((params) => upstream.call((client) => client[method](params, { signal }), signal), field);
        return { upstream, items };
      } catch (error) {
        if (!signal?.aborted) log(`${upstream.name}: ${field} could not be listed: ${errorText(error)}`, "warning");
        return { upstream, items: [] };
      }
    })
  );
  return lists;
}

/**
 * Installs the handlers on `connection.server`; `hub` keeps the upstreams, the logging
 * level and the resource subscriptions. Returns `{ subscribe(uri, signal) }`, used by a
 * modern listen stream that names URIs.
 */
export function servePassthrough(connection, hub) {
  const { server } = connection;
  const upstreams = hub.upstreams;
  const byName = (name) => upstreams.find((u) => u.name === name);
  // The server that listed each URI or template last, for reads and completions.
  const resourceOwners = new Map();
  const templateOwners = new Map();

  server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => {
    const lists = await listEach(upstreams, "resources", "listResources", "resources", extra.signal);
    const resources = [];
    for (const { upstream, items } of lists) {
      for (const resource of items) {
        if (!resourceOwners.has(resource.uri) || resourceOwners.get(resource.uri) === upstream.name) {
          resourceOwners.set(resource.uri, upstream.name);
          resources.push(tagged(upstream.name, resource));
        }
      }
    }
    return { resources };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async (_request, extra) => {
    const lists = await listEach(upstreams, "resources", "listResourceTemplates", "resourceTemplates", extra.signal);
    const resourceTemplates = [];
    for (const { upstream, items } of lists) {
      for (const template of items) {
        templateOwners.set(template.uriTemplate, upstream.name);
        resourceTemplates.push(tagged(upstream.name, template));
      }
    }
    return { resourceTemplates };
  });

  // The server of a URI: the one that listed it, else the one whose template it fits, else
  // the only server with resources. A client may read a URI it never listed.
  async function ownerOfUri(uri, signal) {
    const listed = byName(resourceOwners.get(uri));
    if (listed !== undefined) return listed;
    const candidates = upstreams.filter((u) => u.capabilities?.resources !== undefined);
    if (candidates.length === 1) return candidates[0];
    for (const { upstream, items } of await listEach(upstreams, "resources", "listResourceTemplates", "resourceTemplates", signal)) {
      for (const template of items) templateOwners.set(template.uriTemplate, upstream.name);
      if (items.some((t) => t.uriTemplate === uri || templateMatches(t.uriTemplate, uri))) return upstream;
    }
    for (const { upstream, items } of await listEach(upstreams, "resources", "listResources", "resources", signal)) {
      if (items.some((r) => r.uri === uri)) return upstream;
    }
    throw protocolError(ErrorCode.InvalidParams, `Resource ${uri} not found: no MCP server lists it or a template that fits it`);
  }

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const upstream = await ownerOfUri(request.params.uri, extra.signal);
    return upstream.call((client) => client.readResource(request.params, { signal: extra.signal }), extra.signal);
  });

  // Subscriptions are the connection's: updates of `uri` reach it until it unsubscribes or ends.
  async function subscribe(uri, signal) {
    if (connection.capabilities.resources.subscribe !== true) throw protocolError(ErrorCode.MethodNotFound, "Method not found");
    const upstream = await ownerOfUri(uri, signal);
    if (upstream.capabilities?.resources?.subscribe !== true) {
      throw protocolError(ErrorCode.InvalidParams, `Resource ${uri} is served by "${upstream.name}", which does not offer subscriptions`);
    }
    await hub.subscriptions.add(upstream, uri, connection, (params) => connection.resourceUpdated(params));
  }

  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    await subscribe(request.params.uri, extra.signal);
    return {};
  });

  server.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
    if (connection.capabilities.resources.subscribe !== true) throw protocolError(ErrorCode.MethodNotFound, "Method not found");
    await hub.subscriptions.remove(request.params.uri, connection, extra.signal);
    return {};
  });

  // With `namespacePrompts: false` a prompt keeps its name, owned by the first server (in
  // config order) that lists it; a later server's prompt of the same name is left out.
  const promptOwners = new Map();
  const shadowed = new Set(); // "<server>/<prompt>" already warned about

  function commandPrompts(lists) {
    if (hub.namespacePrompts) return lists.flatMap(({ upstream, items }) => items.map((p) => ({ ...tagged(upstream.name, p), name: promptName(upstream.name, p.name) })));
    const prompts = [];
    const owners = new Map();
    for (const { upstream, items } of lists) {
      for (const prompt of items) {
        if (owners.has(prompt.name)) {
          const key = `${upstream.name}/${prompt.name}`;
          if (!shadowed.has(key)) log(`${upstream.name}: prompt ${JSON.stringify(prompt.name)} is left out: "${owners.get(prompt.name)}" has one of that name`, "warning");
          shadowed.add(key);
          continue;
        }
        owners.set(prompt.name, upstream.name);
        prompts.push(tagged(upstream.name, prompt));
      }
    }
    for (const [name, owner] of owners) promptOwners.set(name, owner);
    return prompts;
  }

  server.setRequestHandler(ListPromptsRequestSchema, async (_request, extra) => {
    const lists = await listEach(upstreams, "prompts", "listPrompts", "prompts", extra.signal);
    return { prompts: commandPrompts(lists) };
  });

  // The server and upstream name of a command prompt name.
  async function ownerOfPrompt(name, signal) {
    if (!hub.namespacePrompts) {
      const candidates = upstreams.filter((u) => u.capabilities?.prompts !== undefined);
      if (candidates.length === 1) return { upstream: candidates[0], prompt: name };
      if (!promptOwners.has(name)) commandPrompts(await listEach(upstreams, "prompts", "listPrompts", "prompts", signal));
      const owner = byName(promptOwners.get(name));
      if (owner === undefined) throw protocolError(ErrorCode.InvalidParams, `Prompt ${JSON.stringify(name)} not found: no MCP server lists it`);
      return { upstream: owner, prompt: name };
    }
    const split = splitPromptName(name, upstreams.map((u) => u.name));
    if (split === undefined) {
      throw protocolError(ErrorCode.InvalidParams, `Prompt ${JSON.stringify(name)} not found: prompts are named <server>__<prompt> (servers: ${upstreams.map((u) => u.name).join(", ")})`);
    }
    return { upstream: byName(split.server), prompt: split.prompt };
  }

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const { upstream, prompt } = await ownerOfPrompt(request.params.name, extra.signal);
    return upstream.call((client) => client.getPrompt({ ...request.params, name: prompt }, { signal: extra.signal }), extra.signal);
  });

  server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
    const { ref } = request.params;
    let upstream;
    let params = request.params;
    if (ref.type === "ref/prompt") {
      const owner = await ownerOfPrompt(ref.name, extra.signal);
      upstream = owner.upstream;
      params = { ...params, ref: { ...ref, name: owner.prompt } };
    } else {
      upstream = byName(templateOwners.get(ref.uri)) ?? (await ownerOfUri(ref.uri, extra.signal));
    }
    return upstream.call((client) => client.complete(params, { signal: extra.signal }), extra.signal);
  });

  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    connection.logLevel = request.params.level;
    await hub.levelsChanged();
    return {};
  });

  return { subscribe };
}
