//! codemode-native: a code mode for Node.js AI gateways. Model-written JavaScript or
//! TypeScript runs in isolated QuickJS VMs on Rust worker threads, calling host tools
//! through a JSON bridge. Everything but `binding` is plain Rust and tests without napi.

pub mod catalog;
pub mod engine;
pub mod error;
pub mod guest;
pub mod ids;
pub mod limits;
pub mod source;

#[cfg(feature = "napi")]
mod binding;

pub use error::{CodeModeError, ErrorCode};
