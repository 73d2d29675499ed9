// The run-store types as users write them: the shipped stores and a store of their own
// all fit `RunStore`; put results narrow on `ok`.
import { sqliteRunStore, type RunStore, type RunRecord, type RunStorePutResult } from "codemode-native";
import { redisRunStore } from "codemode-native/stores/redis";
import { postgresRunStore } from "codemode-native/stores/postgres";

declare const redisClient: unknown;
declare const pool: { query(text: string, values?: unknown[]): Promise<any> };

const records = new Map<string, RunRecord>();
const mine: RunStore = {
  async get(runId) {
    return records.get(runId) ?? null;
  },
  async put(runId, bytes, options): Promise<RunStorePutResult> {
    const current = records.get(runId)?.version ?? null;
    if (current !== (options?.expectVersion ?? null)) return { ok: false, current };
    const version = (current ?? 0) + 1;
    records.set(runId, { version, bytes });
    return { ok: true, version };
  },
  async delete(runId) {
    return records.delete(runId);
  },
};

export async function useStores(): Promise<number> {
  const stores: RunStore[] = [
    sqliteRunStore("/tmp/runs.db", { busyTimeoutMs: 1000, maxRecordBytes: 1 << 20 }),
    redisRunStore(redisClient, { keyPrefix: "runs:", timeoutMs: 2000 }),
    postgresRunStore(pool, { table: "public.codemode_runs" }),
    mine,
  ];
  let total = 0;
  for (const store of stores) {
    const put = await store.put("run-1", new Uint8Array([1, 2, 3]), { expectVersion: null, ttlSeconds: 60 });
    total += put.ok ? put.version : (put.current ?? 0);
    const record = await store.get("run-1");
    if (record) total += record.bytes.byteLength;
    await store.delete("run-1", 1);
  }
  return total;
}
