//! Where durable runs live between processes: the run-store contract shared by every store,
//! the embedded SQLite store and the sealed record format. A store keeps opaque bytes under a
//! run id; a put succeeds only from the version it expects and writes exactly one past it.

pub mod options;
pub mod seal;
pub mod sqlite;

use crate::error::{CodeModeError, ErrorCode};

/// The default cap on one record's bytes (docs/durable-runs.md): `maxSnapshotBytes`'s default.
pub const DEFAULT_MAX_RECORD_BYTES: u64 = 10 * 1024 * 1024;
/// The range `maxRecordBytes` may take: `maxSnapshotBytes`'s range.
pub const MAX_RECORD_BYTES_RANGE: (u64, u64) = (1024, 256 * 1024 * 1024);
/// A run id's longest UTF-8 length.
pub const MAX_RUN_ID_BYTES: usize = 256;
/// The longest `ttlSeconds`: one year.
pub const MAX_TTL_SECONDS: u64 = 365 * 24 * 60 * 60;

/// One record as a store returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRecord {
    pub version: u64,
    pub bytes: Vec<u8>,
}

/// What a compare-and-set put did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PutOutcome {
    /// Written as `version` (`expect_version + 1`, or 1 for a create).
    Written { version: u64 },
    /// Not written: the live record has another version (`None`: there is none).
    Conflict { current: Option<u64> },
}

/// The version a successful put writes: one past the expected one, 1 for a create. Sealing
/// binds it before the put, so every store must assign exactly this.
pub fn next_version(expect_version: Option<u64>) -> u64 {
    expect_version.map_or(1, |v| v.saturating_add(1))
}

/// Refuses a run id that is empty or longer than [`MAX_RUN_ID_BYTES`].
pub fn check_run_id(run_id: &str) -> Result<(), CodeModeError> {
    if run_id.is_empty() || run_id.len() > MAX_RUN_ID_BYTES {
        return Err(CodeModeError::invalid_input(format!(
            "runId must be a string of 1 to {MAX_RUN_ID_BYTES} bytes."
        )));
    }
    Ok(())
}

/// Refuses a `ttlSeconds` outside 1..=[`MAX_TTL_SECONDS`].
pub fn check_ttl(ttl_seconds: u64) -> Result<(), CodeModeError> {
    if ttl_seconds == 0 || ttl_seconds > MAX_TTL_SECONDS {
        return Err(CodeModeError::invalid_input(format!(
            "ttlSeconds must be an integer from 1 to {MAX_TTL_SECONDS}."
        )));
    }
    Ok(())
}

/// Refuses a record over the store's cap, before anything is written.
pub fn check_size(len: usize, max_record_bytes: u64) -> Result<(), CodeModeError> {
    if len as u64 > max_record_bytes {
        return Err(CodeModeError::new(
            ErrorCode::SnapshotLimitExceeded,
            format!(
                "run record is {len} bytes; this store allows {max_record_bytes} (maxRecordBytes)."
            ),
        ));
    }
    Ok(())
}

/// A store failure the caller can act on: `store_unavailable` with what failed.
pub fn unavailable(message: impl Into<String>) -> CodeModeError {
    CodeModeError::new(ErrorCode::StoreUnavailable, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_put_writes_one_past_the_expected_version() {
        assert_eq!(next_version(None), 1);
        assert_eq!(next_version(Some(7)), 8);
    }

    #[test]
    fn bounds_are_refused_with_their_codes() {
        assert_eq!(check_run_id("").unwrap_err().code, ErrorCode::InvalidInput);
        assert!(check_run_id(&"r".repeat(MAX_RUN_ID_BYTES)).is_ok());
        assert!(check_run_id(&"r".repeat(MAX_RUN_ID_BYTES + 1)).is_err());
        assert!(check_ttl(0).is_err());
        assert!(check_ttl(MAX_TTL_SECONDS).is_ok());
        let over = check_size(1025, 1024).unwrap_err();
        assert_eq!(over.code, ErrorCode::SnapshotLimitExceeded);
        assert_eq!(
            over.message,
            "run record is 1025 bytes; this store allows 1024 (maxRecordBytes)."
        );
    }
}

#[cfg(test)]
#[path = "sealed_store_tests.rs"]
mod sealed_store_tests;
