// The command's upstream servers and its open connections: starts every upstream once
// (shared by all connections), and tells every connection when an upstream's tools,
// resources or prompts changed, when it came back after a failure, and what it logs. The
// level upstreams log at is the most verbose one any connection asked for; each connection
// filters to its own.
import { Upstream } from "./upstream.mjs";
import { Subscriptions } from "./subscriptions.mjs";
import { VERSION } from "./addon.mjs";
import { log, logListeners, errorText, LEVELS } from "./log.mjs";

export class Hub {
  /** `namespacePrompts`: whether prompts are named `<server>__<prompt>` (namespace.mjs). */
  constructor(servers, { namespacePrompts = true } = {}) {
    this.namespacePrompts = namespacePrompts;
    this.connections = new Set();
    this.subscriptions = new Subscriptions();
    this.upstreams = servers.map(
      (def) =>
        new Upstream(def, {
          version: VERSION,
          onUp: (upstream) => {
            // The first connection is what sessions wait for; only a later one is news.
            if (upstream.failures > 0 || upstream.seen) {
              this.toolsChanged();
              this.each((c) => c.listChanged("notifications/resources/list_changed"));
              this.each((c) => c.listChanged("notifications/prompts/list_changed"));
              this.subscriptions.restore(upstream);
            }
            upstream.seen = true;
            if (this.level !== undefined) this.setUpstreamLevel(upstream, this.level);
          },
          onToolsChanged: () => this.toolsChanged(),
          onNotice: (upstream, method, params) => {
            if (method === "notifications/message") {
              // The logger names the server first: `<server>` or `<server>/<its logger>`.
              const logger = params.logger === undefined ? upstream.name : `${upstream.name}/${params.logger}`;
              this.each((c) => c.logMessage({ ...params, logger }));
            } else if (method === "notifications/resources/updated") this.subscriptions.updated(upstream, params);
            else this.each((c) => c.listChanged(method));
          },
        })
    );
    this.level = undefined; // the level upstreams were told, once a connection set one
    this.onLog = (message, level) => this.each((c) => c.logMessage({ level, logger: "codemode-native", data: message }));
    logListeners.add(this.onLog);
  }

  each(fn) {
    for (const connection of this.connections) fn(connection);
  }

  /** Starts every upstream; resolves when each has connected or failed once. */
  start() {
    return Promise.all(this.upstreams.map((u) => u.start()));
  }

  add(connection) {
    this.connections.add(connection);
  }

  async remove(connection) {
    this.connections.delete(connection);
    await connection.close();
  }

  toolsChanged() {
    this.each((c) => c.toolsChanged());
  }

  async setUpstreamLevel(upstream, level) {
    if (upstream.state !== "up" || upstream.capabilities?.logging === undefined) return;
    try {
      await upstream.call((client) => client.setLoggingLevel(level));
    } catch (error) {
      log(`${upstream.name}: could not set its logging level: ${errorText(error)}`, "warning");
    }
  }

  /** A connection set its level: upstreams log at the most verbose level asked for. */
  async levelsChanged() {
    const asked = [...this.connections].map((c) => LEVELS.indexOf(c.logLevel)).filter((i) => i >= 0);
    if (asked.length === 0) return;
    const level = LEVELS[Math.min(...asked)];
    if (level === this.level) return;
    this.level = level;
    await Promise.all(this.upstreams.map((u) => this.setUpstreamLevel(u, level)));
  }

  async close() {
    logListeners.delete(this.onLog);
    const connections = [...this.connections];
    this.connections.clear();
    await Promise.all(connections.map((c) => c.close()));
    await Promise.all(this.upstreams.map((u) => u.close()));
  }
}
