//! Keeping an idle process small: returning the allocator's free memory to the system, and
//! (the sandbox process) small allocator arenas. Without mimalloc these do nothing.

/// mimalloc's `mi_option_arena_reserve` (23 in the option enum of both the v3 and v2
/// sources libmimalloc-sys 0.1.49 vendors; the crate names only the first options): how
/// much address space each arena reserves, in KiB.
#[cfg(feature = "mimalloc")]
const ARENA_RESERVE_OPTION: libmimalloc_sys::mi_option_t = 23;
/// That option's documented default on 64-bit (1 GiB): a different value read back means
/// the enum moved, and nothing is set.
#[cfg(feature = "mimalloc")]
const DEFAULT_ARENA_RESERVE_KIB: std::os::raw::c_long = 1 << 20;
/// mimalloc's smallest arena (one bitmap chunk of 64 KiB slices).
#[cfg(feature = "mimalloc")]
const SMALL_ARENA_RESERVE_KIB: std::os::raw::c_long = 32 << 10;

/// Makes mimalloc reserve 32 MiB arenas instead of 1 GiB ones; only before the first
/// allocation (the first arena is reserved then). An arena's bookkeeping (a bitmap per
/// size class) grows with its size and part of it is written at once, in every process.
/// Later arenas double every eight, so a large guest heap costs a few more reservations,
/// not more memory. True if set.
pub fn reserve_small_arenas() -> bool {
    #[cfg(feature = "mimalloc")]
    // SAFETY: reading and setting an option index below `_mi_option_last`; mimalloc keeps
    // options in plain statics and this runs before any other thread exists.
    unsafe {
        if libmimalloc_sys::mi_option_get(ARENA_RESERVE_OPTION) == DEFAULT_ARENA_RESERVE_KIB {
            libmimalloc_sys::mi_option_set(ARENA_RESERVE_OPTION, SMALL_ARENA_RESERVE_KIB);
            return true;
        }
    }
    false
}

/// Frees what this thread's allocator heap holds unused (mimalloc's heaps are per thread,
/// so each thread that allocated calls this itself) and returns free pages to the system,
/// glibc's malloc arenas included (C code linked in uses that malloc, not mimalloc).
pub fn free_memory_of_this_thread() {
    #[cfg(feature = "mimalloc")]
    // SAFETY: mi_collect has no preconditions; it touches this thread's heap and the
    // shared arenas under mimalloc's own synchronisation.
    unsafe {
        libmimalloc_sys::mi_collect(true)
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim has no preconditions; it only advises free pages away.
    unsafe {
        libc::malloc_trim(0);
    }
}
