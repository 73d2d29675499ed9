//! The sandbox process of `isolation: "process"`: started by the addon, never by hand.
//! Arguments: `<executors> <parent_pid> <data_limit_bytes>` (see `sandbox::child::Args`).

use codemode_native::sandbox::child;

fn main() {
    let args = child::Args::parse(std::env::args().skip(1));
    std::process::exit(child::serve(args));
}

/// Runs from `.init_array`, before Rust's start-up code makes the first allocation (and
/// with it the allocator's first arena): one process per session keeps arenas small.
#[cfg(all(unix, not(target_vendor = "apple")))]
extern "C" fn before_main() {
    codemode_native::runtime::give_back::reserve_small_arenas();
}

// ELF start-up runs every function in `.init_array` before `main` (after the C library's
// own initialisers, which do not use Rust's allocator). macOS keeps mimalloc's default.
#[cfg(all(unix, not(target_vendor = "apple")))]
#[used]
#[link_section = ".init_array"]
static BEFORE_MAIN: extern "C" fn() = before_main;
