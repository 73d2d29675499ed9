#![no_main]
// The invariants live in codemode-native-oracles (fuzz/oracles) so the corpus also replays
// under the main crate's `cargo test`; this target only feeds it.
libfuzzer_sys::fuzz_target!(|data: &[u8]| codemode_native_oracles::check_output_budget(data));
