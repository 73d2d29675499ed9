use super::*;

fn key(id: &str, byte: u8) -> SealKey {
    SealKey {
        id: id.into(),
        key: vec![byte; KEY_BYTES],
    }
}

const AT: RecordBinding = RecordBinding {
    run_id: "run-1",
    version: 3,
    scope: "session:a",
};
const SECRET: &[u8] = b"tool said: the launch code is 0000";

fn sealed() -> (Sealer, Vec<u8>) {
    let sealer = Sealer::new(&[key("k1", 1)]).unwrap();
    let record = sealer.seal(&AT, SECRET).unwrap();
    (sealer, record)
}

fn refused_code(result: Result<Vec<u8>, CodeModeError>) -> ErrorCode {
    result.unwrap_err().code
}

#[test]
fn a_sealed_record_opens_under_its_binding_and_hides_its_plaintext() {
    let (sealer, record) = sealed();
    assert_eq!(sealer.open(&AT, &record).unwrap(), SECRET);
    assert_eq!(record.len(), SECRET.len() + overhead(2));
    assert!(!record.windows(8).any(|w| SECRET.windows(8).any(|s| s == w)));
}

#[test]
fn every_seal_takes_a_fresh_nonce() {
    let (sealer, first) = sealed();
    let second = sealer.seal(&AT, SECRET).unwrap();
    assert_ne!(first, second);
}

#[test]
fn every_flipped_bit_of_every_byte_is_refused() {
    let (sealer, record) = sealed();
    for i in 0..record.len() {
        for bit in 0..8 {
            let mut bad = record.clone();
            bad[i] ^= 1 << bit;
            let code = refused_code(sealer.open(&AT, &bad));
            assert_eq!(code, ErrorCode::RecordRefused, "byte {i} bit {bit}");
        }
    }
}

#[test]
fn every_truncation_and_every_extension_is_refused() {
    let (sealer, record) = sealed();
    for len in 0..record.len() {
        assert_eq!(
            refused_code(sealer.open(&AT, &record[..len])),
            ErrorCode::RecordRefused,
            "len {len}"
        );
    }
    let mut longer = record.clone();
    longer.push(0);
    assert_eq!(
        refused_code(sealer.open(&AT, &longer)),
        ErrorCode::RecordRefused
    );
}

#[test]
fn a_record_moved_to_another_run_version_or_scope_is_refused() {
    let (sealer, record) = sealed();
    for other in [
        RecordBinding {
            run_id: "run-2",
            ..AT
        },
        RecordBinding { version: 2, ..AT },
        RecordBinding { version: 4, ..AT },
        RecordBinding {
            scope: "session:b",
            ..AT
        },
        // Field boundaries are length-prefixed: moving a byte between fields is refused too.
        RecordBinding {
            run_id: "run-1s",
            scope: "ession:a",
            ..AT
        },
    ] {
        let error = sealer.open(&other, &record).unwrap_err();
        assert_eq!(error.code, ErrorCode::RecordRefused);
        assert_eq!(
            error.message,
            "run record does not open: it was altered, or belongs to another run, version or scope."
        );
    }
}

#[test]
fn a_record_of_an_unknown_key_id_is_refused_naming_it() {
    let (_, record) = sealed();
    let other = Sealer::new(&[key("k2", 1)]).unwrap();
    let error = other.open(&AT, &record).unwrap_err();
    assert_eq!(error.code, ErrorCode::RecordRefused);
    assert_eq!(
        error.message,
        "run record was sealed under key \"k1\", which is not among the configured keys."
    );
}

#[test]
fn a_record_under_the_same_id_but_another_key_is_refused() {
    let (_, record) = sealed();
    let impostor = Sealer::new(&[key("k1", 2)]).unwrap();
    assert_eq!(
        refused_code(impostor.open(&AT, &record)),
        ErrorCode::RecordRefused
    );
}

#[test]
fn rotation_seals_with_the_first_key_and_opens_with_any() {
    let (_, old_record) = sealed();
    let rotated = Sealer::new(&[key("k2", 2), key("k1", 1)]).unwrap();
    assert_eq!(rotated.open(&AT, &old_record).unwrap(), SECRET);
    let new_record = rotated.seal(&AT, SECRET).unwrap();
    assert_eq!(&new_record[4..7], b"\x02k2");
    let retired = Sealer::new(&[key("k2", 2)]).unwrap();
    assert_eq!(retired.open(&AT, &new_record).unwrap(), SECRET);
    assert_eq!(
        refused_code(retired.open(&AT, &old_record)),
        ErrorCode::RecordRefused
    );
}

#[test]
fn bad_key_sets_are_invalid_input_with_the_path_of_the_fault() {
    let message = |keys: &[SealKey]| {
        let error = Sealer::new(keys).err().unwrap();
        assert_eq!(error.code, ErrorCode::InvalidInput);
        error.message
    };
    assert_eq!(message(&[]), "keys must hold at least one key.");
    let short = SealKey {
        id: "k".into(),
        key: vec![0; 16],
    };
    assert_eq!(
        message(&[key("a", 0), short]),
        "keys[1].key must be 32 bytes; it is 16."
    );
    assert_eq!(
        message(&[key("", 0)]),
        "keys[0].id must be a string of 1 to 64 bytes."
    );
    assert_eq!(
        message(&[key(&"i".repeat(65), 0)]),
        "keys[0].id must be a string of 1 to 64 bytes."
    );
    assert_eq!(
        message(&[key("a", 0), key("a", 1)]),
        "keys[1].id \"a\" is also the id of keys[0]."
    );
}

#[test]
fn a_key_is_never_printed() {
    let printed = format!("{:?}", key("k1", 0xAB));
    assert_eq!(printed, "SealKey { id: \"k1\", key: <redacted> }");
}

#[test]
fn an_empty_plaintext_seals_and_opens() {
    let (sealer, _) = sealed();
    let record = sealer.seal(&AT, b"").unwrap();
    assert_eq!(sealer.open(&AT, &record).unwrap(), b"");
}
