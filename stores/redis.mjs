// codemode-native run store on Redis: one hash per run (`v` the version, `b` the bytes as
// base64, so every client reads it as text), written by a Lua script so compare-and-set is
// atomic, expiring by PEXPIRE after each put. Takes a node-redis 4/5 or an ioredis 5 client.
import { checkBytes, checkRunId, deleteVersion, invalid, putOptions, roundTrip, storeOptions } from "./shared.mjs";

// KEYS[1] the run; ARGV: expected version ('' = create-only), bytes, time to live in ms.
// Answers {1, version} when written, {0, current} when not (-1: no live record).
const PUT = `
local current = redis.call('HGET', KEYS[1], 'v')
if ARGV[1] == '' then
  if current then return {0, tonumber(current)} end
elseif current ~= ARGV[1] then
  if current then return {0, tonumber(current)} end
  return {0, -1}
end
local version = 1
if ARGV[1] ~= '' then version = tonumber(ARGV[1]) + 1 end
redis.call('HSET', KEYS[1], 'v', string.format('%d', version), 'b', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, version}
`;

// KEYS[1] the run; ARGV[1] the expected version ('' = any). Answers how many were deleted.
const DELETE = `
if ARGV[1] ~= '' and redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`;

/** `client` as one function sending a command as an array of strings. */
function commandOf(client) {
  // node-redis 4 and 5: `sendCommand(args)` and an `isOpen` flag.
  if (client && typeof client.sendCommand === "function" && "isOpen" in client) return (args) => client.sendCommand(args);
  // ioredis 5: `call(command, ...args)` and a `status` string.
  if (client && typeof client.call === "function" && typeof client.status === "string") return ([command, ...args]) => client.call(command, ...args);
  throw invalid("redisRunStore takes a connected node-redis (4 or 5) or ioredis (5) client.");
}

/**
 * A RunStore on Redis (docs/durable-runs.md). Options: `keyPrefix` (default
 * "codemode:run:"), `timeoutMs` per round trip (default 5,000), `maxRecordBytes`.
 */
export function redisRunStore(client, options) {
  const send = commandOf(client);
  const o = storeOptions(options, "redisRunStore options", ["keyPrefix"]);
  const prefix = o.keyPrefix === undefined ? "codemode:run:" : o.keyPrefix;
  if (typeof prefix !== "string") throw invalid("keyPrefix must be a string.");
  const trip = (work) => roundTrip("redis", o.timeoutMs, work);
  return {
    async get(runId) {
      const key = prefix + checkRunId(runId);
      const [version, bytes] = await trip(() => send(["HMGET", key, "v", "b"]));
      if (version === null || version === undefined || bytes === null || bytes === undefined) return null;
      return { version: Number(version), bytes: Buffer.from(String(bytes), "base64") };
    },
    async put(runId, bytes, putOpts) {
      const key = prefix + checkRunId(runId);
      const data = checkBytes(bytes, o.maxRecordBytes).toString("base64");
      const { expectVersion, ttlSeconds } = putOptions(putOpts);
      const expect = expectVersion === null ? "" : String(expectVersion);
      const [written, version] = await trip(() => send(["EVAL", PUT, "1", key, expect, data, String(ttlSeconds * 1000)]));
      if (Number(written) === 1) return { ok: true, version: Number(version) };
      return { ok: false, current: Number(version) < 0 ? null : Number(version) };
    },
    async delete(runId, expectVersion) {
      const key = prefix + checkRunId(runId);
      const expect = deleteVersion(expectVersion);
      const deleted = await trip(() => send(["EVAL", DELETE, "1", key, expect === null ? "" : String(expect)]));
      return Number(deleted) > 0;
    },
  };
}
