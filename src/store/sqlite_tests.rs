use super::*;
use crate::error::ErrorCode;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Barrier};

/// A fresh database path in its own directory under the system temp dir.
fn fresh_path() -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "codemode-sqlite-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("runs.db")
}

fn store() -> SqliteStore {
    SqliteStore::new(fresh_path(), SqliteOptions::default())
}

#[test]
fn a_create_only_put_writes_version_1_once() {
    let s = store();
    assert_eq!(s.get("r").unwrap(), None);
    assert_eq!(
        s.put("r", b"a", None, 60).unwrap(),
        PutOutcome::Written { version: 1 }
    );
    assert_eq!(
        s.put("r", b"b", None, 60).unwrap(),
        PutOutcome::Conflict { current: Some(1) }
    );
    let got = s.get("r").unwrap().unwrap();
    assert_eq!((got.version, got.bytes), (1, b"a".to_vec()));
}

#[test]
fn a_compare_and_set_wins_only_from_the_live_version() {
    let s = store();
    s.put("r", b"a", None, 60).unwrap();
    assert_eq!(
        s.put("r", b"b", Some(1), 60).unwrap(),
        PutOutcome::Written { version: 2 }
    );
    assert_eq!(
        s.put("r", b"c", Some(1), 60).unwrap(),
        PutOutcome::Conflict { current: Some(2) }
    );
    assert_eq!(
        s.put("other", b"c", Some(1), 60).unwrap(),
        PutOutcome::Conflict { current: None }
    );
    assert_eq!(s.get("r").unwrap().unwrap().bytes, b"b".to_vec());
}

#[test]
fn two_stores_on_one_file_racing_from_one_version_have_exactly_one_winner() {
    let path = fresh_path();
    let seed = SqliteStore::new(&path, SqliteOptions::default());
    seed.put("r", b"0", None, 60).unwrap();
    for round in 1..=20u64 {
        let barrier = Arc::new(Barrier::new(2));
        let writers: Vec<_> = (0..2)
            .map(|i| {
                let (path, barrier) = (path.clone(), barrier.clone());
                std::thread::spawn(move || {
                    let s = SqliteStore::new(path, SqliteOptions::default());
                    s.get("r").unwrap();
                    barrier.wait();
                    s.put("r", format!("{i}").as_bytes(), Some(round), 60)
                        .unwrap()
                })
            })
            .collect();
        let outcomes: Vec<_> = writers.into_iter().map(|w| w.join().unwrap()).collect();
        let wins = outcomes
            .iter()
            .filter(|o| matches!(o, PutOutcome::Written { .. }))
            .count();
        assert_eq!(wins, 1, "{outcomes:?}");
        assert!(outcomes.contains(&PutOutcome::Conflict {
            current: Some(round + 1)
        }));
    }
}

#[test]
fn an_expired_record_reads_as_absent_and_may_be_created_again() {
    let s = store();
    s.put("r", b"a", None, 1).unwrap();
    // Waits on the condition (the deadline passing), not on a fixed time.
    while s.get("r").unwrap().is_some() {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!s.delete("r", None).unwrap());
    assert_eq!(
        s.put("r", b"b", Some(1), 60).unwrap(),
        PutOutcome::Conflict { current: None }
    );
    assert_eq!(
        s.put("r", b"b", None, 60).unwrap(),
        PutOutcome::Written { version: 1 }
    );
}

#[test]
fn a_later_put_purges_expired_records() {
    let path = fresh_path();
    let s = SqliteStore::new(&path, SqliteOptions::default());
    s.put("old", b"a", None, 1).unwrap();
    while s.get("old").unwrap().is_some() {
        std::thread::sleep(Duration::from_millis(50));
    }
    s.put("new", b"b", None, 60).unwrap();
    let conn = Connection::open(&path).unwrap();
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM codemode_runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 1);
}

#[test]
fn delete_honours_the_expected_version() {
    let s = store();
    s.put("r", b"a", None, 60).unwrap();
    assert!(!s.delete("r", Some(2)).unwrap());
    assert!(s.delete("r", Some(1)).unwrap());
    assert_eq!(s.get("r").unwrap(), None);
    assert!(!s.delete("r", None).unwrap());
}

#[test]
fn bytes_are_kept_exactly_up_to_the_cap_and_refused_over_it() {
    let options = SqliteOptions {
        max_record_bytes: 64 * 1024,
        ..SqliteOptions::default()
    };
    let s = SqliteStore::new(fresh_path(), options);
    let bytes: Vec<u8> = (0..64 * 1024).map(|i| (i % 256) as u8).collect();
    s.put("r", &bytes, None, 60).unwrap();
    assert_eq!(s.get("r").unwrap().unwrap().bytes, bytes);
    let over = s.put("r", &[0; 64 * 1024 + 1], Some(1), 60).unwrap_err();
    assert_eq!(over.code, ErrorCode::SnapshotLimitExceeded);
    assert_eq!(s.get("r").unwrap().unwrap().version, 1);
}

#[test]
fn a_closed_store_fails_every_operation_with_store_unavailable() {
    let s = store();
    s.put("r", b"a", None, 60).unwrap();
    s.close();
    s.close();
    let error = s.get("r").unwrap_err();
    assert_eq!(error.code, ErrorCode::StoreUnavailable);
    assert!(error.message.ends_with("is closed."), "{}", error.message);
    assert_eq!(
        s.put("r", b"b", Some(1), 60).unwrap_err().code,
        ErrorCode::StoreUnavailable
    );
}

#[test]
fn a_file_that_cannot_be_opened_is_store_unavailable() {
    let s = SqliteStore::new(
        "/nonexistent-dir/codemode/runs.db",
        SqliteOptions::default(),
    );
    let error = s.get("r").unwrap_err();
    assert_eq!(error.code, ErrorCode::StoreUnavailable);
    assert!(
        error.message.contains("failed to open"),
        "{}",
        error.message
    );
}

#[test]
fn a_file_that_is_not_a_database_is_store_unavailable() {
    let path = fresh_path();
    std::fs::write(&path, vec![7u8; 8192]).unwrap();
    let error = SqliteStore::new(&path, SqliteOptions::default())
        .put("r", b"a", None, 60)
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::StoreUnavailable);
}

#[test]
fn invalid_arguments_are_invalid_input() {
    let s = store();
    assert_eq!(s.get("").unwrap_err().code, ErrorCode::InvalidInput);
    assert_eq!(
        s.put("r", b"a", None, 0).unwrap_err().code,
        ErrorCode::InvalidInput
    );
}
