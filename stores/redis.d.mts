import type { RunStore } from "codemode-native";

export interface RedisRunStoreOptions {
  /** Prefix of each run's key (default "codemode:run:"). */
  keyPrefix?: string;
  /** Longest wait for one round trip before `store_unavailable` (default 5,000 ms). */
  timeoutMs?: number;
  /** The largest record in bytes (default 10 MiB); over it: `snapshot_limit_exceeded`. */
  maxRecordBytes?: number;
}
/** A RunStore on Redis over a connected node-redis 4/5 or ioredis 5 client (docs/durable-runs.md). */
export declare function redisRunStore(client: unknown, options?: RedisRunStoreOptions): RunStore;
