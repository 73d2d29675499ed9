//! Replays every committed fuzz corpus file (`fuzz/corpus/<target>/*`) through the same
//! invariant checks the `cargo fuzz` targets run, so findings stay fixed without
//! cargo-fuzz or a nightly toolchain.

use std::path::Path;

use codemode_native_oracles::{check_json_bridge, TARGETS};

fn replay(target: &str, check: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus {} is missing: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    for path in &files {
        let data = std::fs::read(path).unwrap_or_default();
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(
            outcome.is_ok(),
            "{target}: {} fails its check",
            path.display()
        );
    }
    files.len()
}

/// Each target on its own thread with the 8 MB stack the engine's workers use (the
/// front-end's nesting bound is sized for it).
fn replay_on_big_stack(target: &'static str, check: fn(&[u8])) -> usize {
    let thread = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || replay(target, check));
    match thread.map(|t| t.join()) {
        Ok(Ok(count)) => count,
        _ => panic!("{target}: the replay thread failed"),
    }
}

macro_rules! corpus_test {
    ($name:ident, $target:literal) => {
        #[test]
        fn $name() {
            let (_, check) = TARGETS
                .iter()
                .find(|(name, _)| *name == $target)
                .copied()
                .unwrap_or_else(|| panic!("no check for {}", $target));
            let replayed = replay_on_big_stack($target, check);
            assert!(replayed > 0, "the {} corpus is empty", $target);
        }
    };
}

corpus_test!(front_end_corpus_holds, "front_end");
corpus_test!(json_bridge_corpus_holds, "json_bridge");
corpus_test!(schema_render_corpus_holds, "schema_render");
corpus_test!(search_corpus_holds, "search");
corpus_test!(output_budget_corpus_holds, "output_budget");

/// Found by `cargo fuzz run json_bridge`: a `toJSON` returning an object that has its own
/// `toJSON` serialises as `{}` (the second `toJSON` is never called), not as what the
/// inner `toJSON` returns.
#[test]
fn to_json_result_is_not_converted_again() {
    check_json_bridge(&[0x2d, 0x10, 0x10]); // toJSON -> { toJSON -> undefined }
    check_json_bridge(&[0x2d, 0x10, 0x08, 0x00]); // toJSON -> new Date(0)
    check_json_bridge(&[0x2d, 0x10, 0x11, 0x10, 0x0a, 0x00]); // toJSON -> proxy of { toJSON -> [] }
}

/// A cycle under a key that a later field of the same key replaces does not fail the
/// object: `({ a: <cycle>, a: null })` is `{"a":null}`.
#[test]
fn a_replaced_field_does_not_fail_the_object() {
    check_json_bridge(&[0x2d, 0x0d, 0x02, 0x00, 0x13, 0x01, 0x00, 0x01, 0x01]);
}
