//! The napi layer: converts JS values, wires callbacks, and nothing else. All behaviour
//! lives in the plain-Rust modules; this is the only place that knows about Node.

mod js_host;
mod json_text;
mod options;
mod runtime;
mod script;
mod session;
