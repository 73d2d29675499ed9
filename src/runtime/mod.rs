//! Process-wide machinery that runs guests and knows nothing of sessions: the worker
//! pool, the timer thread, thread priority, spare VMs, the reaper, the watchdog, the
//! budgeted parses of untrusted source for the gateway's thread, and giving memory back.

pub mod alloc_budget;
pub mod bounded;
pub mod clock;
pub mod cpu_clock;
pub mod give_back;
pub mod panic_probe;
pub mod pool;
pub mod priority;
pub mod reaper;
pub mod spare_vms;
pub mod timer;
pub mod watchdog;
