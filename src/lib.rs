//! codemode-native: a code mode for Node.js AI gateways. Model-written JavaScript or
//! TypeScript runs in isolated QuickJS VMs on Rust worker threads, calling host tools
//! through a JSON bridge. Everything but `binding` is plain Rust and tests without napi.

pub mod catalog;
pub mod config;
pub mod error;
pub mod guest;
pub mod ids;
pub mod json_size;
pub mod limits;
pub mod mcp;
pub mod nearest;
pub mod run;
pub mod runtime;
pub mod sandbox;
pub mod session;
pub mod source;
pub mod store;
pub mod surfaces;

// The binding registers with Node at load time; unit-test builds have no Node to load
// into, so it is compiled only into the addon itself.
#[cfg(all(feature = "napi", not(test)))]
mod binding;

pub use error::{CodeModeError, ErrorCode};

// Workers allocate what the Node thread frees (results, tool inputs, finished VMs) and the
// other way round. glibc then takes the owning arena's lock for each such free, and with
// guest threads at a lower priority the Node thread waited on preempted workers.
// mimalloc frees across threads without a lock. `local_dynamic_tls` because the addon is
// loaded with dlopen. `no_thp` because mimalloc otherwise advises its arenas into
// transparent huge pages: every first touch of 2 MB then zeroes the whole page (and may
// compact memory first) on whichever thread touched it, the nice-0 timer thread included,
// and fresh VM heaps touch new memory all the time. Only our own arenas change; the
// process's THP setting (Node's heap) is left alone. Figures: bench/README.md.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: runtime::alloc_budget::Budgeted<mimalloc::MiMalloc> =
    runtime::alloc_budget::Budgeted(mimalloc::MiMalloc);
// Without mimalloc (engine tests) the system allocator, still under parse budgets.
#[cfg(not(feature = "mimalloc"))]
#[global_allocator]
static ALLOCATOR: runtime::alloc_budget::Budgeted<std::alloc::System> =
    runtime::alloc_budget::Budgeted(std::alloc::System);
