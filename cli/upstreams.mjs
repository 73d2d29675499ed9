// The command's upstream servers and its open connections: starts every upstream once
// (shared by all connections), and tells every connection when an upstream's tools
// changed or it came back after a failure.
import { Upstream } from "./upstream.mjs";
import { VERSION } from "./addon.mjs";

export class Hub {
  constructor(servers) {
    this.connections = new Set();
    this.upstreams = servers.map(
      (def) =>
        new Upstream(def, {
          version: VERSION,
          onUp: (upstream) => {
            // The first connection is what sessions wait for; only a later one is news.
            if (upstream.failures > 0 || upstream.seen) this.toolsChanged();
            upstream.seen = true;
          },
          onToolsChanged: () => this.toolsChanged(),
        })
    );
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
    for (const connection of this.connections) connection.toolsChanged();
  }

  async close() {
    const connections = [...this.connections];
    this.connections.clear();
    await Promise.all(connections.map((c) => c.close()));
    await Promise.all(this.upstreams.map((u) => u.close()));
  }
}
