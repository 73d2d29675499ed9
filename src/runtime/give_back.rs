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
