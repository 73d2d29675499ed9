#![no_main]
// The invariants live in the library (codemode_native::fuzzing) so the corpus replays
// under `cargo test`; this target only feeds it.
libfuzzer_sys::fuzz_target!(|data: &[u8]| codemode_native::fuzzing::check_search(data));
