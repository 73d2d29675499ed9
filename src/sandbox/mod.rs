//! `isolation: "process"`: guests run in sandbox processes built from this crate, shared only
//! within a trust group (a session's own by default), so a crash in QuickJS ends that
//! process, not the gateway; the addon treats each process as an attacker (docs/security.md).

pub mod boot;
pub mod capacity;
pub mod child;
mod death;
#[cfg(target_os = "linux")]
mod filter;
#[cfg(all(test, target_os = "linux"))]
mod forked;
pub mod group;
pub mod handle;
mod host_limits;
mod inbox;
pub mod isolation;
mod jail;
mod liveness;
pub mod locate;
mod outbox;
#[cfg(unix)]
pub mod poller;
pub mod pool;
mod privileges;
pub mod process;
mod reader;
pub mod remote;
mod rlimits;
mod serve;
#[cfg(unix)]
mod served;
mod shared;
#[cfg(unix)]
mod socket;
mod spawner;
mod starter;
pub mod wire;
