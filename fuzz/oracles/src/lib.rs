//! Invariant checks behind the `cargo fuzz` targets and the corpus replay (`tests/fuzz_corpus.rs`):
//! each `check_*` drives one part of codemode-native with arbitrary bytes and panics when an
//! invariant of docs/contract.md (inputs through the bridge and output budget) breaks, so a fuzzer crash and a failing replay are the same finding.

mod bridge;
mod bytes;
mod front_end;
mod output;
mod schema;
mod search;
mod ts_check;

pub use bridge::check_json_bridge;
pub use front_end::check_front_end;
pub use output::check_output_budget;
pub use schema::check_schema_render;
pub use search::check_search;

/// A fuzz target: its name and its check.
pub type Target = (&'static str, fn(&[u8]));

/// Every target by name, as the fuzz binaries and corpus directories are named.
pub const TARGETS: [Target; 5] = [
    ("front_end", check_front_end),
    ("json_bridge", check_json_bridge),
    ("schema_render", check_schema_render),
    ("search", check_search),
    ("output_budget", check_output_budget),
];
