// `durableRuns` (docs/durable-runs.md): the option's checks. The store stays in JS (glue/
// durable_runs.js); the keys go to Rust, which seals and opens records with them.
(function durable(invalid) {
  "use strict";
  const KEYS = ["store", "keys", "ttlSeconds"];
  const STORE_METHODS = ["get", "put", "delete"];
  const KEY_BYTES = 32;
  const MAX_KEY_ID_BYTES = 64;
  const MAX_TTL_SECONDS = 31536000;
  const DEFAULT_TTL_SECONDS = 86400;
  const encoder = new TextEncoder();

  function checkKeys(keys) {
    if (!Array.isArray(keys) || keys.length === 0) throw invalid("durableRuns.keys must hold at least one key: [{ id, key }].");
    const ids = new Map();
    keys.forEach((entry, i) => {
      const at = "durableRuns.keys[" + i + "]";
      if (entry === null || typeof entry !== "object" || Array.isArray(entry)) throw invalid(at + " must be an object: { id, key }.");
      const idBytes = typeof entry.id === "string" ? encoder.encode(entry.id).length : 0;
      if (idBytes < 1 || idBytes > MAX_KEY_ID_BYTES) throw invalid(at + ".id must be a string of 1 to " + MAX_KEY_ID_BYTES + " bytes.");
      if (!(entry.key instanceof Uint8Array)) throw invalid(at + ".key must be a Buffer or Uint8Array of " + KEY_BYTES + " bytes.");
      if (entry.key.byteLength !== KEY_BYTES) throw invalid(at + ".key must be " + KEY_BYTES + " bytes; it is " + entry.key.byteLength + ".");
      if (ids.has(entry.id)) throw invalid(at + '.id "' + entry.id + '" is also the id of durableRuns.keys[' + ids.get(entry.id) + "].");
      ids.set(entry.id, i);
    });
  }

  // `durableRuns` as a session reads it: null without it, else { store, ttlSeconds, keys }
  // with each key's bytes as numbers for Rust, which seals and opens the records.
  return function readDurableRuns(value, script) {
    if (value === undefined || value === null) return null;
    if (script === true) throw invalid("durableRuns is an option of CodeModeSession: runCodeModeScript runs one script to its end and parks nothing.");
    if (typeof value !== "object" || Array.isArray(value)) throw invalid("durableRuns must be an object: { store, keys, ttlSeconds? }.");
    for (const key of Object.keys(value)) {
      if (!KEYS.includes(key)) throw invalid("durableRuns." + key + " is not an option; valid options: " + KEYS.join(", ") + ".");
    }
    const store = value.store;
    if (store === null || typeof store !== "object" || STORE_METHODS.some((m) => typeof store[m] !== "function")) {
      throw invalid("durableRuns.store must be a RunStore: an object with get, put and delete methods.");
    }
    checkKeys(value.keys);
    const ttl = value.ttlSeconds;
    if (ttl !== undefined && ttl !== null && !(Number.isInteger(ttl) && ttl >= 1 && ttl <= MAX_TTL_SECONDS)) {
      throw invalid("durableRuns.ttlSeconds must be an integer from 1 to " + MAX_TTL_SECONDS + ".");
    }
    const keys = value.keys.map((entry) => ({ id: entry.id, key: Array.from(entry.key) }));
    return { store, ttlSeconds: ttl === undefined || ttl === null ? DEFAULT_TTL_SECONDS : ttl, keys };
  };
})
