// Watches MCP clients for `notifications/tools/list_changed` on behalf of the sessions
// that use them. One handler per client, shared by every session (so sessions sharing a
// client never chain handlers to each other), installed with the client's public
// setNotificationHandler and chained to the handler that was there before. Listeners are
// held weakly: a session dropped without close() stops being called once collected.
(function createToolListWatch() {
  "use strict";
  const METHOD = "notifications/tools/list_changed";
  // Shared across every session's copy of this file in the same JS realm.
  const HUB = Symbol.for("codemode-native.toolListChanged");
  // Stands in for the SDK's zod ToolListChangedNotificationSchema, which this code cannot
  // import: the SDK reads the method literal from `shape.method` and validates with
  // `safeParse` (older releases: `.value` and `parse`).
  const SCHEMA = {
    shape: { method: { value: METHOD, _def: { value: METHOD } } },
    parse: (notification) => notification,
    safeParse: (notification) => ({ success: true, data: notification }),
  };

  function install(client) {
    // The gateway's own handler (or the SDK's, for its `listChanged` option) keeps running.
    const handlers = client._notificationHandlers;
    const previous = handlers instanceof Map ? handlers.get(METHOD) : undefined;
    const hub = new Set();
    client.setNotificationHandler(SCHEMA, (notification) => {
      for (const ref of hub) {
        const listener = ref.deref();
        if (listener === undefined) {
          hub.delete(ref);
          continue;
        }
        try {
          listener();
        } catch (_) {}
      }
      const next = previous !== undefined ? previous : client.fallbackNotificationHandler;
      return typeof next === "function" ? next(notification) : undefined;
    });
    Object.defineProperty(client, HUB, { value: hub });
    return hub;
  }

  // Calls `listener` on each tools/list_changed from `client`; returns the function that
  // stops it, or null for a client that cannot tell (no setNotificationHandler).
  return function watchToolList(client, listener) {
    if (client === null || (typeof client !== "object" && typeof client !== "function")) return null;
    if (typeof client.setNotificationHandler !== "function") return null;
    let hub;
    try {
      hub = client[HUB] instanceof Set ? client[HUB] : install(client);
    } catch (_) {
      return null;
    }
    const ref = new WeakRef(listener);
    hub.add(ref);
    return () => hub.delete(ref);
  };
})();
