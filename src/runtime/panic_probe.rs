//! Deliberate panics for the containment tests; off unless `CODEMODE_NATIVE_PANIC_PROBE=1`
//! at process start. Markers: `WORKER_MARKER` in a cell (panics its worker), a tool named
//! `BRIDGE_MARKER` (a bridge conversion), `RESULT_MARKER` in a host result (its admission).

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
