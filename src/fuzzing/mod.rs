//! Invariant checks behind the `cargo fuzz` targets and the corpus replay test: each
//! `check_*` drives one part of the engine on arbitrary bytes and panics when a promise of
//! docs/contract.md breaks. Not part of the product API.

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
