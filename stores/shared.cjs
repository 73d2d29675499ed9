// Generated from shared.mjs by scripts/build-adapters.mjs: edit shared.mjs, then run
// `node scripts/build-adapters.mjs`.
"use strict";
// What the JS run stores share: the contract's bounds and messages (the same as the embedded
// SQLite store's, src/store/), argument checks, and a timeout on every server round trip so
// a dead server is a clear `store_unavailable` error, never a hang.
Object.defineProperty(exports, "__esModule", { value: true });
exports.invalid = exports.DEFAULT_TIMEOUT_MS = exports.MAX_TTL_SECONDS = exports.DEFAULT_TTL_SECONDS = exports.MAX_RECORD_BYTES_RANGE = exports.DEFAULT_MAX_RECORD_BYTES = void 0;
exports.storeError = storeError;
exports.checkRunId = checkRunId;
exports.checkBytes = checkBytes;
exports.putOptions = putOptions;
exports.deleteVersion = deleteVersion;
exports.storeOptions = storeOptions;
exports.roundTrip = roundTrip;
exports.DEFAULT_MAX_RECORD_BYTES = 10 * 1024 * 1024;
exports.MAX_RECORD_BYTES_RANGE = [1024, 256 * 1024 * 1024];
exports.DEFAULT_TTL_SECONDS = 86_400;
exports.MAX_TTL_SECONDS = 365 * 24 * 60 * 60;
exports.DEFAULT_TIMEOUT_MS = 5_000;
const MAX_TIMEOUT_MS = 600_000;
const MAX_RUN_ID_BYTES = 256;
/** An `Error` with a documented `code` (docs/durable-runs.md). */
function storeError(code, message, cause) {
    const error = new Error(message, cause === undefined ? undefined : { cause });
    error.code = code;
    return error;
}
const invalid = (message) => storeError("invalid_input", message);
exports.invalid = invalid;
function checkRunId(runId) {
    if (typeof runId !== "string" || runId.length === 0 || Buffer.byteLength(runId, "utf8") > MAX_RUN_ID_BYTES) {
        throw (0, exports.invalid)(`runId must be a string of 1 to ${MAX_RUN_ID_BYTES} bytes.`);
    }
    return runId;
}
/** `bytes` as a Buffer over the same memory, refused over the cap before any round trip. */
function checkBytes(bytes, maxRecordBytes) {
    if (!(bytes instanceof Uint8Array))
        throw (0, exports.invalid)("bytes must be a Uint8Array (or Buffer).");
    if (bytes.byteLength > maxRecordBytes) {
        throw storeError("snapshot_limit_exceeded", `run record is ${bytes.byteLength} bytes; this store allows ${maxRecordBytes} (maxRecordBytes).`);
    }
    return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
function integerIn(value, min, max, name) {
    if (!Number.isSafeInteger(value) || value < min || value > max)
        throw (0, exports.invalid)(`${name} must be an integer from ${min} to ${max}.`);
    return value;
}
function fields(value, what, keys) {
    if (value === undefined || value === null)
        return {};
    if (typeof value !== "object" || Array.isArray(value))
        throw (0, exports.invalid)(`${what} must be an object.`);
    const unknown = Object.keys(value).find((k) => !keys.includes(k));
    if (unknown !== undefined)
        throw (0, exports.invalid)(`${unknown} is not an option of ${what}; the options are ${keys.join(", ")}.`);
    return value;
}
const version = (value) => integerIn(value, 1, Number.MAX_SAFE_INTEGER, "expectVersion");
/** `put`'s options: `{ expectVersion (null: create-only), ttlSeconds }`. */
function putOptions(options) {
    const o = fields(options, "put options", ["expectVersion", "ttlSeconds"]);
    const expectVersion = o.expectVersion === undefined || o.expectVersion === null ? null : version(o.expectVersion);
    const ttlSeconds = o.ttlSeconds === undefined || o.ttlSeconds === null ? exports.DEFAULT_TTL_SECONDS : integerIn(o.ttlSeconds, 1, exports.MAX_TTL_SECONDS, "ttlSeconds");
    return { expectVersion, ttlSeconds };
}
function deleteVersion(value) {
    return value === undefined || value === null ? null : version(value);
}
/** A store constructor's options: its own `keys` plus `timeoutMs` and `maxRecordBytes`. */
function storeOptions(options, what, keys) {
    const o = fields(options, what, [...keys, "timeoutMs", "maxRecordBytes"]);
    const [min, max] = exports.MAX_RECORD_BYTES_RANGE;
    return {
        ...o,
        timeoutMs: o.timeoutMs === undefined ? exports.DEFAULT_TIMEOUT_MS : integerIn(o.timeoutMs, 1, MAX_TIMEOUT_MS, "timeoutMs"),
        maxRecordBytes: o.maxRecordBytes === undefined ? exports.DEFAULT_MAX_RECORD_BYTES : integerIn(o.maxRecordBytes, min, max, "maxRecordBytes"),
    };
}
/**
 * `work()` settled within `timeoutMs`, or `store_unavailable` naming the store. A failure of
 * the client is `store_unavailable` too, with the client's error as `cause`.
 */
function roundTrip(name, timeoutMs, work) {
    let timer;
    const failed = (error) => {
        throw error?.code === "store_unavailable" ? error : storeError("store_unavailable", `run store ${name} failed: ${error?.message ?? String(error)}`, error);
    };
    const answer = Promise.resolve().then(work).catch(failed);
    const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(storeError("store_unavailable", `run store ${name} did not answer within timeoutMs (${timeoutMs}).`)), timeoutMs);
        // A round trip that never answers must not keep the process alive.
        timer.unref?.();
    });
    // A late failure after the timeout has nobody waiting on it: handled here, not unhandled.
    answer.catch(() => { });
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}
