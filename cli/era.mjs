// The 2026-07-28 ("modern") protocol era next to the 2025 one the SDK 1.x Server speaks:
// no initialize handshake, every request names its version in `_meta`, `server/discover`
// says what the server supports, results carry `resultType`, and notifications outside a
// request arrive only on a `subscriptions/listen` stream that asked for them.
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "./addon.mjs";

/** The modern revisions the command serves (a request naming another is refused). */
export const MODERN_VERSIONS = ["2026-07-28"];
/** Every version the command speaks: the SDK's 2025-era list, then the modern ones. */
export const ALL_VERSIONS = [...SUPPORTED_PROTOCOL_VERSIONS, ...MODERN_VERSIONS];

export const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
export const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";
export const SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId";
const SERVER_INFO = { name: "codemode-native", version: VERSION };

// Revision identifiers are dates: the modern era starts at its first revision.
const isModernVersion = (version) => typeof version === "string" && version >= MODERN_VERSIONS[0];

/** Whether `message` (a JSON-RPC request) belongs to the modern era. */
export function isModernRequest(message) {
  return message?.method === "server/discover" || isModernVersion(message?.params?._meta?.[PROTOCOL_VERSION_KEY]);
}

/** The version a modern request names, when the command does not speak it; else undefined. */
export function unsupportedVersion(message) {
  const version = message?.params?._meta?.[PROTOCOL_VERSION_KEY];
  return isModernVersion(version) && !MODERN_VERSIONS.includes(version) ? version : undefined;
}

/** The error answering a request for a version the command does not speak. */
export function unsupportedVersionError(version) {
  return {
    code: -32602,
    message: `Unsupported protocol version ${JSON.stringify(version)}: this server speaks ${ALL_VERSIONS.join(", ")}`,
    data: { supported: ALL_VERSIONS, requested: version },
  };
}

// What the modern era no longer has: `logging/setLevel` is gone, so no `logging`.
function modernCapabilities(capabilities) {
  const { logging: _logging, ...rest } = capabilities;
  return rest;
}

/** The `server/discover` result for a server with `capabilities`. */
export function discoverResult(capabilities) {
  return stamp("server/discover", { supportedVersions: MODERN_VERSIONS, capabilities: modernCapabilities(capabilities) });
}

// Results the era lets a client cache: they must say for how long and for whom.
const CACHEABLE = new Set(["tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read", "server/discover"]);

/**
 * A modern-era result of `method`: `resultType`, the server's identity in `_meta`, and for
 * a cacheable one no caching (upstreams change under it; the catalog is per session).
 */
export function stamp(method, result) {
  const cache = CACHEABLE.has(method) ? { ttlMs: 0, cacheScope: "private" } : {};
  return { resultType: "complete", ...cache, ...result, _meta: { ...result?._meta, [SERVER_INFO_KEY]: SERVER_INFO } };
}

// Which subscription filter flag asks for which notification.
const FILTER_FLAGS = {
  "notifications/tools/list_changed": "toolsListChanged",
  "notifications/resources/list_changed": "resourcesListChanged",
  "notifications/prompts/list_changed": "promptsListChanged",
};

/**
 * The part of a listen request's filter the command honours: the list_changed flags, and
 * `resourceSubscriptions` (URIs) when the server declares `resources.subscribe`.
 */
export function honoured(filter, capabilities) {
  const flags = Object.fromEntries(Object.values(FILTER_FLAGS).filter((flag) => filter?.[flag] === true).map((flag) => [flag, true]));
  const uris = filter?.resourceSubscriptions;
  const subscribable = capabilities?.resources?.subscribe === true && Array.isArray(uris) && uris.every((u) => typeof u === "string");
  return subscribable && uris.length > 0 ? { ...flags, resourceSubscriptions: [...new Set(uris)] } : flags;
}

/** The acknowledgement opening the stream of listen request `id`. */
export function acknowledgement(id, filter) {
  return { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: filter, _meta: { [SUBSCRIPTION_ID_KEY]: id } } };
}

/** `notification` for the listen stream `id` with `filter`, or undefined when it did not ask for it. */
export function forSubscription(notification, id, filter) {
  if (notification.method === "notifications/resources/updated") {
    if (filter.resourceSubscriptions?.includes(notification.params?.uri) !== true) return undefined;
    return { ...notification, params: { ...notification.params, _meta: { ...notification.params?._meta, [SUBSCRIPTION_ID_KEY]: id } } };
  }
  const flag = FILTER_FLAGS[notification.method];
  if (flag === undefined || filter[flag] !== true) return undefined;
  return { ...notification, params: { ...notification.params, _meta: { ...notification.params?._meta, [SUBSCRIPTION_ID_KEY]: id } } };
}
