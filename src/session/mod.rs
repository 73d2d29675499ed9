//! A session: its catalog and limits, the runs it starts, and the process-wide store of
//! parked runs.

pub mod abort_watch;
pub mod core;
mod directory;
pub mod result_budget;
pub mod store;
