//! `isolation: "process"`: guests run in sandbox processes built from this crate, one per
//! session, so a crash, abort or stuck built-in in QuickJS ends that process, not the gateway.

pub mod child;
#[cfg(target_os = "linux")]
mod filter;
#[cfg(all(test, target_os = "linux"))]
mod forked;
pub mod handle;
pub mod isolation;
mod jail;
pub mod locate;
mod privileges;
pub mod process;
pub mod remote;
mod rlimits;
mod serve;
pub mod wire;
