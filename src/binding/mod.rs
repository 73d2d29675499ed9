//! The napi layer: converts JS values, wires callbacks, and nothing else. All behaviour
//! lives in the plain-Rust modules; this is the only place that knows about Node.

mod config;
mod direct_wake;
mod durable;
mod errors;
mod glue;
mod js_host;
mod mailbox;
mod model_result;
#[cfg(unix)]
mod node_poll;
mod options;
mod pending;
mod redact;
mod runtime;
mod scheduler;
mod script;
mod session;
mod store;
