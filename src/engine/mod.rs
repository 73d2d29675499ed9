//! The engine: worker pool, cells (runs) and their books, the parked-run store, the
//! output budget, timers and the host seam.

pub mod abort_watch;
pub mod api_files;
pub mod book;
pub mod cell;
pub mod contracts;
pub mod errors;
pub mod host;
pub mod model_budget;
pub mod model_tools;
pub mod output;
pub mod panic_probe;
pub mod pool;
pub mod priority;
pub mod reaper;
pub mod result;
pub mod session;
pub mod store;
pub mod surfaces;
pub mod timer;
pub mod trajectory;
pub mod warm;
pub mod watchdog;
