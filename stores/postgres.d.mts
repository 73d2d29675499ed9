import type { RunStore } from "codemode-native";

export interface PostgresRunStoreOptions {
  /** The table (optionally schema.name), created if missing (default "codemode_runs"). */
  table?: string;
  /** Longest wait for one operation before `store_unavailable` (default 5,000 ms). */
  timeoutMs?: number;
  /** The largest record in bytes (default 10 MiB); over it: `snapshot_limit_exceeded`. */
  maxRecordBytes?: number;
}
/** A RunStore on PostgreSQL over a `pg` Pool (docs/durable-runs.md). */
export declare function postgresRunStore(pool: { query(text: string, values?: unknown[]): Promise<any> }, options?: PostgresRunStoreOptions): RunStore;
