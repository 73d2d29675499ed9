// Watches MCP clients for `notifications/tools/list_changed` for every session using them:
// one handler per client, chained to the one installed before it (public
// setNotificationHandler); listeners are weak, so a dropped session stops being called.
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

  function handlerOf(client) {
    const handlers = client._notificationHandlers;
    return handlers instanceof Map ? handlers.get(METHOD) : undefined;
  }

  // Installs the shared handler; returns what the client stored for it, to notice later
  // whether someone replaced it.
  function install(client, listeners) {
    // The gateway's own handler (or the SDK's, for its `listChanged` option) keeps running.
    const previous = handlerOf(client);
    client.setNotificationHandler(SCHEMA, (notification) => {
      for (const ref of listeners) {
        const listener = ref.deref();
        if (listener === undefined) {
          listeners.delete(ref);
          continue;
        }
        try {
          listener();
        } catch (_) {}
      }
      const next = previous !== undefined ? previous : client.fallbackNotificationHandler;
      return typeof next === "function" ? next(notification) : undefined;
    });
    return handlerOf(client);
  }

  // Calls `listener` on each tools/list_changed from `client`; returns the function that
  // stops it, or null for a client that cannot tell (no setNotificationHandler).
  return function watchToolList(client, listener) {
    if (client === null || (typeof client !== "object" && typeof client !== "function")) return null;
    if (typeof client.setNotificationHandler !== "function") return null;
    let hub;
    try {
      hub = client[HUB];
      if (hub === undefined || !(hub.listeners instanceof Set)) {
        hub = { listeners: new Set(), installed: undefined };
        hub.installed = install(client, hub.listeners);
        Object.defineProperty(client, HUB, { value: hub });
      } else if (hub.installed !== undefined && handlerOf(client) !== hub.installed) {
        // The gateway set its own handler since: chain to that one from now on.
        hub.installed = install(client, hub.listeners);
      }
    } catch (_) {
      return null;
    }
    const ref = new WeakRef(listener);
    hub.listeners.add(ref);
    return () => hub.listeners.delete(ref);
  };
})();
