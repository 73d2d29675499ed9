//! Sealed records through a real store (the SQLite one): what a reader refuses when the
//! bytes under a run id were altered, cut, moved from another run or scope, rolled back to
//! an older version, or sealed under a key that is no longer configured.

use super::seal::{RecordBinding, SealKey, Sealer, KEY_BYTES};
use super::sqlite::{SqliteOptions, SqliteStore};
use super::{next_version, PutOutcome};
use crate::error::ErrorCode;

const SCOPE: &str = "session:a";
const SECRET: &[u8] = b"tool said: the vault code is 4711";

fn sealer(keys: &[(&str, u8)]) -> Sealer {
    let keys: Vec<SealKey> = keys
        .iter()
        .map(|(id, byte)| SealKey {
            id: (*id).into(),
            key: vec![*byte; KEY_BYTES],
        })
        .collect();
    Sealer::new(&keys).unwrap()
}

fn store() -> SqliteStore {
    let dir = std::env::temp_dir().join(format!(
        "codemode-sealed-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("runs.db");
    let _ = std::fs::remove_file(&path);
    SqliteStore::new(path, SqliteOptions::default())
}

/// Seals `plaintext` for the version the put will write, then puts it.
fn put_sealed(
    s: &SqliteStore,
    sealer: &Sealer,
    run_id: &str,
    expect: Option<u64>,
    plaintext: &[u8],
) -> u64 {
    let version = next_version(expect);
    let record = sealer
        .seal(
            &RecordBinding {
                run_id,
                version,
                scope: SCOPE,
            },
            plaintext,
        )
        .unwrap();
    assert_eq!(
        s.put(run_id, &record, expect, 60).unwrap(),
        PutOutcome::Written { version }
    );
    version
}

/// Reads `run_id` and opens it under the version the store reports, as the engine will.
fn read(s: &SqliteStore, sealer: &Sealer, run_id: &str, scope: &str) -> Result<Vec<u8>, ErrorCode> {
    let record = s.get(run_id).unwrap().unwrap();
    sealer
        .open(
            &RecordBinding {
                run_id,
                version: record.version,
                scope,
            },
            &record.bytes,
        )
        .map_err(|e| e.code)
}

#[test]
fn a_sealed_record_round_trips_and_its_plaintext_is_not_in_the_file() {
    let (s, k) = (store(), sealer(&[("k1", 1)]));
    put_sealed(&s, &k, "r", None, SECRET);
    assert_eq!(read(&s, &k, "r", SCOPE).unwrap(), SECRET);
    let stored = s.get("r").unwrap().unwrap().bytes;
    assert!(!stored.windows(SECRET.len()).any(|w| w == SECRET));
}

#[test]
fn tampered_and_truncated_records_are_refused() {
    let (s, k) = (store(), sealer(&[("k1", 1)]));
    put_sealed(&s, &k, "r", None, SECRET);
    let mut bytes = s.get("r").unwrap().unwrap().bytes;
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    s.put("r", &bytes, Some(1), 60).unwrap();
    // The flipped record now sits at version 2, which it was not sealed for either.
    assert_eq!(read(&s, &k, "r", SCOPE), Err(ErrorCode::RecordRefused));
    let cut = &bytes[..bytes.len() / 2];
    s.put("r", cut, Some(2), 60).unwrap();
    assert_eq!(read(&s, &k, "r", SCOPE), Err(ErrorCode::RecordRefused));
}

#[test]
fn a_record_copied_to_another_run_or_read_in_another_scope_is_refused() {
    let (s, k) = (store(), sealer(&[("k1", 1)]));
    put_sealed(&s, &k, "mine", None, SECRET);
    let bytes = s.get("mine").unwrap().unwrap().bytes;
    s.put("theirs", &bytes, None, 60).unwrap();
    assert_eq!(read(&s, &k, "theirs", SCOPE), Err(ErrorCode::RecordRefused));
    assert_eq!(
        read(&s, &k, "mine", "session:b"),
        Err(ErrorCode::RecordRefused)
    );
    assert_eq!(read(&s, &k, "mine", SCOPE).unwrap(), SECRET);
}

#[test]
fn an_older_record_put_back_is_refused_as_a_rollback() {
    let (s, k) = (store(), sealer(&[("k1", 1)]));
    put_sealed(&s, &k, "r", None, b"parked with 1 call");
    let old = s.get("r").unwrap().unwrap().bytes;
    put_sealed(&s, &k, "r", Some(1), b"parked with 2 calls");
    // Whoever can write the store puts version 1's bytes back: the store calls them version 3.
    assert_eq!(
        s.put("r", &old, Some(2), 60).unwrap(),
        PutOutcome::Written { version: 3 }
    );
    assert_eq!(read(&s, &k, "r", SCOPE), Err(ErrorCode::RecordRefused));
    // Deleted and recreated, the store says version 1 again; the process that parked the
    // run expects the version it wrote (2) and refuses the old record there too.
    s.delete("r", None).unwrap();
    s.put("r", &old, None, 60).unwrap();
    let record = s.get("r").unwrap().unwrap();
    let expected = RecordBinding {
        run_id: "r",
        version: 2,
        scope: SCOPE,
    };
    assert_eq!(
        k.open(&expected, &record.bytes).unwrap_err().code,
        ErrorCode::RecordRefused
    );
}

#[test]
fn rotation_keeps_old_records_readable_and_a_retired_key_refuses_them() {
    let s = store();
    put_sealed(&s, &sealer(&[("k1", 1)]), "old", None, SECRET);
    let rotated = sealer(&[("k2", 2), ("k1", 1)]);
    assert_eq!(read(&s, &rotated, "old", SCOPE).unwrap(), SECRET);
    put_sealed(&s, &rotated, "new", None, SECRET);
    let retired = sealer(&[("k2", 2)]);
    assert_eq!(read(&s, &retired, "new", SCOPE).unwrap(), SECRET);
    assert_eq!(
        read(&s, &retired, "old", SCOPE),
        Err(ErrorCode::RecordRefused)
    );
}
