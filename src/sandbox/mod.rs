//! `isolation: "process"`: guests run in sandbox processes built from this crate, one per
//! session, so a crash, abort or stuck built-in in QuickJS ends that process, not the gateway;
//! the addon treats each process as an attacker (see docs/security.md).

pub mod child;
mod death;
pub mod handle;
mod inbox;
pub mod isolation;
mod jail;
mod liveness;
pub mod locate;
mod outbox;
pub mod process;
mod reader;
pub mod remote;
mod serve;
mod spawner;
mod waker;
pub mod wire;
