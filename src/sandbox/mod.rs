//! `isolation: "process"`: guests run in sandbox processes built from this crate, one per
//! session, so a crash, abort or stuck built-in in QuickJS ends that process, not the gateway;
//! the addon treats each process as an attacker (see docs/security.md).

pub mod child;
mod death;
#[cfg(target_os = "linux")]
mod filter;
#[cfg(all(test, target_os = "linux"))]
mod forked;
pub mod handle;
mod inbox;
pub mod isolation;
mod jail;
mod liveness;
pub mod locate;
mod outbox;
#[cfg(unix)]
mod poller;
mod privileges;
pub mod process;
mod reader;
pub mod remote;
mod rlimits;
mod serve;
mod shared;
#[cfg(unix)]
mod socket;
mod spawner;
pub mod wire;
