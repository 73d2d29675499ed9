//! The embedded run store: one SQLite file in WAL mode that several gateway processes share.
//! Every put is one IMMEDIATE transaction (read the live version, compare, write), so exactly
//! one of two racing writers wins; expiry is a stored deadline checked on every read.

use super::{
    check_run_id, check_size, check_ttl, next_version, unavailable, PutOutcome, StoredRecord,
};
use crate::error::CodeModeError;
use parking_lot::Mutex;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How many expired records one put deletes on its way: enough to keep up with the rate
/// records are written, small enough that no put pays for a backlog.
const PURGE_BATCH: u32 = 32;

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS codemode_runs (
    run_id TEXT PRIMARY KEY NOT NULL,
    version INTEGER NOT NULL,
    deadline_ms INTEGER NOT NULL,
    bytes BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS codemode_runs_deadline ON codemode_runs (deadline_ms);";

/// Options of [`SqliteStore`].
#[derive(Clone, Debug)]
pub struct SqliteOptions {
    /// How long an operation waits for another process's lock before `store_unavailable`.
    pub busy_timeout: Duration,
    pub max_record_bytes: u64,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        SqliteOptions {
            busy_timeout: Duration::from_secs(5),
            max_record_bytes: super::DEFAULT_MAX_RECORD_BYTES,
        }
    }
}

/// A run store in one SQLite file. The file opens on the first operation (so constructing
/// one never blocks); operations of one store take turns on its one connection.
pub struct SqliteStore {
    path: PathBuf,
    options: SqliteOptions,
    /// `None` before the first operation and after [`SqliteStore::close`].
    conn: Mutex<Option<Connection>>,
    closed: std::sync::atomic::AtomicBool,
}

impl SqliteStore {
    pub fn new(path: impl Into<PathBuf>, options: SqliteOptions) -> Self {
        SqliteStore {
            path: path.into(),
            options,
            conn: Mutex::new(None),
            closed: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The live record of `run_id`; `None` when there is none or it has expired.
    pub fn get(&self, run_id: &str) -> Result<Option<StoredRecord>, CodeModeError> {
        check_run_id(run_id)?;
        self.with_conn("get", |conn| {
            conn.query_row(
                "SELECT version, bytes FROM codemode_runs WHERE run_id = ?1 AND deadline_ms > ?2",
                params![run_id, now_ms()],
                |row| {
                    Ok(StoredRecord {
                        version: row.get::<_, i64>(0)? as u64,
                        bytes: row.get(1)?,
                    })
                },
            )
            .optional()
        })
    }

    /// Writes `bytes` as version `expect_version + 1` (1 when `None`: create-only) if the
    /// live record's version is `expect_version`; the record then expires `ttl_seconds` later.
    pub fn put(
        &self,
        run_id: &str,
        bytes: &[u8],
        expect_version: Option<u64>,
        ttl_seconds: u64,
    ) -> Result<PutOutcome, CodeModeError> {
        check_run_id(run_id)?;
        check_ttl(ttl_seconds)?;
        check_size(bytes.len(), self.options.max_record_bytes)?;
        self.with_conn("put", |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let now = now_ms();
            let current = live_version(&tx, run_id, now)?;
            if current != expect_version {
                return Ok(PutOutcome::Conflict { current });
            }
            let version = next_version(expect_version);
            let deadline = now.saturating_add((ttl_seconds as i64).saturating_mul(1000));
            tx.execute(
                "INSERT INTO codemode_runs (run_id, version, deadline_ms, bytes) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (run_id) DO UPDATE SET version = excluded.version,
                   deadline_ms = excluded.deadline_ms, bytes = excluded.bytes",
                params![run_id, version as i64, deadline, bytes],
            )?;
            tx.execute(
                "DELETE FROM codemode_runs WHERE run_id IN
                   (SELECT run_id FROM codemode_runs WHERE deadline_ms <= ?1 LIMIT ?2)",
                params![now, PURGE_BATCH],
            )?;
            tx.commit()?;
            Ok(PutOutcome::Written { version })
        })
    }

    /// Deletes the live record of `run_id` (only at `expect_version` when given); true if
    /// one was deleted.
    pub fn delete(&self, run_id: &str, expect_version: Option<u64>) -> Result<bool, CodeModeError> {
        check_run_id(run_id)?;
        self.with_conn("delete", |conn| {
            let now = now_ms();
            let deleted = match expect_version {
                None => conn.execute(
                    "DELETE FROM codemode_runs WHERE run_id = ?1 AND deadline_ms > ?2",
                    params![run_id, now],
                )?,
                Some(v) => conn.execute(
                    "DELETE FROM codemode_runs WHERE run_id = ?1 AND deadline_ms > ?2 AND version = ?3",
                    params![run_id, now, v as i64],
                )?,
            };
            Ok(deleted > 0)
        })
    }

    /// Closes the file; every later operation fails with `store_unavailable`. Idempotent.
    pub fn close(&self) {
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
        // Dropping the connection checkpoints the WAL when this is the file's last one.
        self.conn.lock().take();
    }

    fn with_conn<T>(
        &self,
        operation: &str,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<T, CodeModeError> {
        let mut slot = self.conn.lock();
        if self.closed.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(unavailable(format!(
                "run store {} is closed.",
                self.path.display()
            )));
        }
        if slot.is_none() {
            *slot = Some(self.open().map_err(|e| self.failure("open", e))?);
        }
        let Some(conn) = slot.as_mut() else {
            return Err(unavailable("run store connection is missing."));
        };
        f(conn).map_err(|e| self.failure(operation, e))
    }

    fn open(&self) -> rusqlite::Result<Connection> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&self.path, flags)?;
        conn.busy_timeout(self.options.busy_timeout)?;
        // WAL: readers never wait for the one writer, and processes share the file safely.
        // NORMAL: a commit survives a process crash (what the gateway's guarantees need);
        // only a power loss may take the last commits back.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.execute_batch(SCHEMA)?;
        Ok(conn)
    }

    fn failure(&self, operation: &str, error: rusqlite::Error) -> CodeModeError {
        let busy = matches!(
            error.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        );
        if busy {
            return unavailable(format!(
                "run store {} is busy: another process held its lock longer than busyTimeoutMs ({}).",
                self.path.display(),
                self.options.busy_timeout.as_millis()
            ));
        }
        unavailable(format!(
            "run store {} failed to {operation}: {error}",
            self.path.display()
        ))
    }
}

fn live_version(conn: &Connection, run_id: &str, now: i64) -> rusqlite::Result<Option<u64>> {
    conn.query_row(
        "SELECT version FROM codemode_runs WHERE run_id = ?1 AND deadline_ms > ?2",
        params![run_id, now],
        |row| row.get::<_, i64>(0),
    )
    .optional()
    .map(|v| v.map(|v| v as u64))
}

/// Wall-clock milliseconds: deadlines are shared by every process on the host.
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
#[path = "sqlite_tests.rs"]
mod tests;
