//! Returning the allocator's free memory to the system, for a process that goes idle
//! (mimalloc builds; without mimalloc these do nothing).

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

/// Allocator settings for a process that is mostly idle: memory freed is returned at
/// once rather than kept for reuse. Call before any thread but the main one starts.
pub fn prefer_small_footprint() {
    #[cfg(feature = "mimalloc")]
    // SAFETY: mi_option_set only stores the value; no thread but this one allocates yet.
    unsafe {
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
    }
}

/// `mi_option_purge_delay` (milliseconds before freed memory is returned; 0: at once): its
/// place in mimalloc 3's `mi_option_e`, which the crate does not name.
#[cfg(feature = "mimalloc")]
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
