// Generated from postgres.mjs by scripts/build-adapters.mjs: edit postgres.mjs, then run
// `node scripts/build-adapters.mjs`.
"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.postgresRunStore = postgresRunStore;
// codemode-native run store on PostgreSQL: one row per run in a table it creates itself.
// Compare-and-set is one statement (UPDATE ... WHERE version = $n, or INSERT ... ON CONFLICT
// that replaces only an expired row), so of two racing writers exactly one changes the row.
const shared_cjs_1 = require("./shared.cjs");
// A table name, optionally schema-qualified; quoted, so its case is kept.
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;
// Expired rows one put deletes on its way (never its own run's row).
const PURGE_BATCH = 32;
function sql(table) {
    const quoted = table.split(".").map((part) => `"${part}"`).join(".");
    const index = `"${table.split(".").pop()}_deadline"`;
    const purge = `purge AS (DELETE FROM ${quoted} WHERE run_id IN (SELECT run_id FROM ${quoted} WHERE deadline <= now() AND run_id <> $1 LIMIT ${PURGE_BATCH}))`;
    const deadline = "now() + make_interval(secs => $2::double precision)";
    return {
        create: [
            `CREATE TABLE IF NOT EXISTS ${quoted} (run_id text PRIMARY KEY, version bigint NOT NULL, deadline timestamptz NOT NULL, bytes bytea NOT NULL)`,
            `CREATE INDEX IF NOT EXISTS ${index} ON ${quoted} (deadline)`,
        ],
        get: `SELECT version, bytes FROM ${quoted} WHERE run_id = $1 AND deadline > now()`,
        // $1 run, $2 ttl seconds, $3 bytes: writes version 1 unless a live row exists.
        insert: `WITH ${purge} INSERT INTO ${quoted} AS r (run_id, version, deadline, bytes) VALUES ($1, 1, ${deadline}, $3)
      ON CONFLICT (run_id) DO UPDATE SET version = 1, deadline = EXCLUDED.deadline, bytes = EXCLUDED.bytes
      WHERE r.deadline <= now() RETURNING version`,
        // $1 run, $2 ttl seconds, $3 bytes, $4 expected version.
        update: `WITH ${purge} UPDATE ${quoted} SET version = version + 1, deadline = ${deadline}, bytes = $3
      WHERE run_id = $1 AND version = $4 AND deadline > now() RETURNING version`,
        current: `SELECT version FROM ${quoted} WHERE run_id = $1 AND deadline > now()`,
        delete: `DELETE FROM ${quoted} WHERE run_id = $1 AND deadline > now()`,
        deleteAt: `DELETE FROM ${quoted} WHERE run_id = $1 AND deadline > now() AND version = $2`,
    };
}
/**
 * A RunStore on PostgreSQL (docs/durable-runs.md) over a `pg` Pool. Options: `table`
 * (default "codemode_runs", created if missing), `timeoutMs` per round trip (default
 * 5,000), `maxRecordBytes`.
 */
function postgresRunStore(pool, options) {
    if (!pool || typeof pool.query !== "function")
        throw (0, shared_cjs_1.invalid)("postgresRunStore takes a pg Pool.");
    const o = (0, shared_cjs_1.storeOptions)(options, "postgresRunStore options", ["table"]);
    const table = o.table === undefined ? "codemode_runs" : o.table;
    if (typeof table !== "string" || !NAME.test(table))
        throw (0, shared_cjs_1.invalid)("table must be a name (letters, digits, _; optionally schema.name).");
    const q = sql(table);
    const trip = (work) => (0, shared_cjs_1.roundTrip)("postgres", o.timeoutMs, work);
    let ready = null;
    // The table once per store; a failed attempt is retried by the next operation.
    const query = async (text, values) => {
        ready ??= createTable(pool, q).catch((error) => {
            ready = null;
            throw error;
        });
        await ready;
        return pool.query(text, values);
    };
    return {
        async get(runId) {
            (0, shared_cjs_1.checkRunId)(runId);
            const { rows } = await trip(() => query(q.get, [runId]));
            return rows.length === 0 ? null : { version: Number(rows[0].version), bytes: rows[0].bytes };
        },
        async put(runId, bytes, putOpts) {
            (0, shared_cjs_1.checkRunId)(runId);
            const data = (0, shared_cjs_1.checkBytes)(bytes, o.maxRecordBytes);
            const { expectVersion, ttlSeconds } = (0, shared_cjs_1.putOptions)(putOpts);
            return trip(async () => {
                const { rows } = expectVersion === null
                    ? await query(q.insert, [runId, ttlSeconds, data])
                    : await query(q.update, [runId, ttlSeconds, data, expectVersion]);
                if (rows.length === 1)
                    return { ok: true, version: Number(rows[0].version) };
                const current = await query(q.current, [runId]);
                return { ok: false, current: current.rows.length === 0 ? null : Number(current.rows[0].version) };
            });
        },
        async delete(runId, expectVersion) {
            (0, shared_cjs_1.checkRunId)(runId);
            const expect = (0, shared_cjs_1.deleteVersion)(expectVersion);
            const { rowCount } = await trip(() => (expect === null ? query(q.delete, [runId]) : query(q.deleteAt, [runId, expect])));
            return rowCount > 0;
        },
    };
}
async function createTable(pool, q) {
    for (const statement of q.create) {
        try {
            await pool.query(statement);
        }
        catch (error) {
            // Two processes creating the table at once: the loser sees the winner's catalog rows
            // (unique_violation, duplicate_table); the table is there either way.
            if (error?.code !== "23505" && error?.code !== "42P07")
                throw error;
        }
    }
}
