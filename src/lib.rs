//! codemode-native: a code mode for Node.js AI gateways. Model-written JavaScript or
//! TypeScript runs in isolated QuickJS VMs on Rust worker threads, calling host tools
//! through a JSON bridge. Everything but `binding` is plain Rust and tests without napi.

pub mod catalog;
pub mod config;
pub mod engine;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod guest;
pub mod ids;
pub mod limits;
pub mod mcp;
pub mod source;

// The binding registers with Node at load time; unit-test builds have no Node to load
// into, so it is compiled only into the addon itself.
#[cfg(all(feature = "napi", not(test)))]
mod binding;

pub use error::{CodeModeError, ErrorCode};

// Workers allocate what the Node thread frees (results, tool inputs, finished VMs) and the
// other way round. glibc then takes the owning arena's lock for each such free, and with
// guest threads at a lower priority the Node thread waited on preempted workers: the
// stress test spent ~150 ms of its 2 s blocked in `_int_free`, in waits of up to 6 ms.
// mimalloc frees across threads without a lock. `local_dynamic_tls` because the addon is
// loaded with dlopen.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
