//! Deliberate panics for the containment tests. Off unless the process starts with
//! `CODEMODE_NATIVE_PANIC_PROBE=1`, so production never panics on purpose; with it, a
//! cell containing `WORKER_MARKER` panics on its worker, and a call of a tool whose
//! callable name is `BRIDGE_MARKER` panics inside a bridge conversion (guest → host), and
//! a host result containing `RESULT_MARKER` panics while it is admitted into the guest.

use std::sync::OnceLock;

pub const WORKER_MARKER: &str = "__panic_probe_worker__";
pub const BRIDGE_MARKER: &str = "__panic_probe__";
pub const RESULT_MARKER: &str = "__panic_probe_result__";

fn enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var("CODEMODE_NATIVE_PANIC_PROBE").is_ok_and(|v| v == "1"))
}

/// Panics when the probe is on and `text` contains `marker`.
pub fn maybe_panic(text: &str, marker: &str) {
    if enabled() && text.contains(marker) {
        panic!("codemode-native panic probe: {marker}");
    }
}
