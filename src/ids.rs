//! Random identifiers: run ids (`cm_` + random hex) and counter scopes.

use std::fmt::Write;

pub fn random_hex(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    if getrandom::fill(&mut buffer).is_err() {
        // Without an OS entropy source, fall back to time and a counter: ids stay unique
        // in-process, which is all they must be (they are never secrets).
        let seed = crate::guest::control::now_ns() ^ std::process::id() as u64;
        for (i, b) in buffer.iter_mut().enumerate() {
            *b = (seed >> ((i % 8) * 8)) as u8 ^ i as u8;
        }
    }
    let mut out = String::with_capacity(bytes * 2);
    for b in buffer {
        let _ = write!(out, "{b:02x}");
    }
    out
}

pub fn run_id() -> String {
    format!("cm_{}", random_hex(12))
}
