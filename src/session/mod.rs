//! A session: its catalog and limits, the runs it starts, and the process-wide store of
//! parked runs.

pub mod abort_watch;
pub mod core;
mod directory;
pub mod durable;
pub mod ended_runs;
pub mod headless;
mod owner;
pub mod pending_starts;
mod prelude_config;
mod resolve;
pub mod result_budget;
mod starting;
pub mod store;
#[cfg(test)]
mod test_core;
