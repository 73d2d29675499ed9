//! Deliberate faults for the containment tests, off unless `CODEMODE_NATIVE_PANIC_PROBE=1`
//! at process start: a marker in a cell, tool name or host result panics a worker, a bridge
//! conversion or an admission; in a sandboxed cell, its process makes a forbidden call.

use std::sync::OnceLock;

pub const WORKER_MARKER: &str = "__panic_probe_worker__";
pub const BRIDGE_MARKER: &str = "__panic_probe__";
pub const RESULT_MARKER: &str = "__panic_probe_result__";
/// In a cell run in a sandbox process: that process attempts a forbidden system call.
pub const SANDBOX_MARKER: &str = "__sandbox_probe_forbidden__";

fn enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var("CODEMODE_NATIVE_PANIC_PROBE").is_ok_and(|v| v == "1"))
}

/// Whether the probe is on and `text` contains `marker`.
pub fn armed(text: &str, marker: &str) -> bool {
    enabled() && text.contains(marker)
}

/// Panics when the probe is on and `text` contains `marker`.
pub fn maybe_panic(text: &str, marker: &str) {
    if armed(text, marker) {
        panic!("codemode-native panic probe: {marker}");
    }
}
