//! One run of guest code from `exec` to its final result: the cell actor, what its
//! natives record, its bridge to the host, and the result it ends with.

pub mod bridge;
pub mod cell;
pub mod contracts;
pub mod failure;
pub mod global_hint;
pub mod held;
pub mod ledger;
pub mod mcp_hint;
pub mod nested_calls;
pub mod output;
pub mod owner;
pub mod protocol;
pub mod record;
pub mod result;
pub mod state;
