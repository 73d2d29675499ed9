// Resource subscriptions passed through: each upstream is subscribed to a URI once, while at
// least one connection of the command wants it, and its `notifications/resources/updated`
// for that URI reach exactly the connections that subscribed (a 2025-era `resources/subscribe`
// or a modern `subscriptions/listen` naming the URI; `who` tells them apart).
import { log, errorText } from "./log.mjs";

export class Subscriptions {
  constructor() {
    this.byUri = new Map(); // uri -> { upstream, ready (the upstream's subscribe), who: Map(key -> deliver(params)) }
  }

  /** Whether any upstream declared `resources.subscribe` (in its last connection). */
  static offered(upstreams) {
    return upstreams.some((u) => u.capabilities?.resources?.subscribe === true);
  }

  /**
   * `key` (a connection, or a listen stream of one) wants updates of `uri`, which `upstream`
   * owns; `deliver(params)` sends one. Subscribes the upstream on the first wanting it;
   * rejects, keeping nothing, when the upstream refuses.
   */
  async add(upstream, uri, key, deliver) {
    let entry = this.byUri.get(uri);
    if (entry === undefined || entry.upstream !== upstream) {
      entry = { upstream, who: new Map() };
      this.byUri.set(uri, entry);
      // Not the caller's signal: others may come to share this subscription before it ends.
      entry.ready = upstream.call((client) => client.subscribeResource({ uri }));
      entry.ready.catch(() => {
        if (this.byUri.get(uri) === entry) this.byUri.delete(uri);
      });
    }
    // A second subscriber while the upstream has not answered yet shares its answer.
    await entry.ready;
    entry.who.set(key, deliver);
  }

  /** `key` no longer wants `uri`; the upstream is unsubscribed when nobody does. */
  async remove(uri, key, signal) {
    const entry = this.byUri.get(uri);
    if (entry === undefined || !entry.who.delete(key) || entry.who.size > 0) return;
    this.byUri.delete(uri);
    await entry.upstream.call((client) => client.unsubscribeResource({ uri }, { signal }), signal);
  }

  /** Everything `owner` (a connection) subscribed, directly or on its listen streams, ends. */
  drop(owner) {
    for (const [uri, entry] of this.byUri) {
      for (const key of [...entry.who.keys()]) {
        if (key === owner || key?.owner === owner) {
          this.remove(uri, key).catch((error) => log(`${entry.upstream.name}: could not unsubscribe ${uri}: ${errorText(error)}`, "warning"));
        }
      }
    }
  }

  /** `upstream` says `params.uri` changed: tell whoever subscribed to it there. */
  updated(upstream, params) {
    const entry = this.byUri.get(params?.uri);
    if (entry === undefined || entry.upstream !== upstream) return;
    for (const deliver of entry.who.values()) deliver(params);
  }

  /** `upstream` connected again: it forgot its subscriptions, so they are made again. */
  async restore(upstream) {
    for (const [uri, entry] of this.byUri) {
      if (entry.upstream !== upstream) continue;
      try {
        await upstream.call((client) => client.subscribeResource({ uri }));
      } catch (error) {
        log(`${upstream.name}: could not subscribe to ${uri} again: ${errorText(error)}`, "warning");
      }
    }
  }
}
