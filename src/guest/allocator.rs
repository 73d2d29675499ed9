//! The QuickJS allocator of one VM: Rust's global allocator with a size header, exact
//! accounting and the memory limit (QuickJS's own limit does nothing under a custom
//! allocator). Accounting makes the heap size an O(1) read for every park.

use rquickjs::allocator::{Allocator, RustAllocator};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Bytes in use and the limit, shared between the allocator and the VM that owns it.
#[derive(Debug)]
pub struct HeapMeter {
    used: AtomicUsize,
    /// Highest `used` since the last `reset_peak`.
    peak: AtomicUsize,
    limit: AtomicUsize,
    /// An allocation was refused by the limit since the VM was bound: the guest hit its
    /// memory limit, whatever it did with the error QuickJS raised.
    exhausted: AtomicBool,
}

impl HeapMeter {
    pub fn new() -> Arc<HeapMeter> {
        Arc::new(HeapMeter {
            used: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            limit: AtomicUsize::new(usize::MAX),
            exhausted: AtomicBool::new(false),
        })
    }

    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed).max(self.used())
    }

    /// Starts peak tracking from the current use (when a VM is bound to its cell).
    pub fn reset_peak(&self) {
        self.peak.store(self.used(), Ordering::Relaxed);
    }

    pub fn set_limit(&self, limit: usize) {
        self.limit.store(limit, Ordering::Relaxed);
        self.exhausted.store(false, Ordering::Relaxed);
    }

    /// True once an allocation was refused because it would pass the limit.
    pub fn exhausted(&self) -> bool {
        self.exhausted.load(Ordering::Relaxed)
    }

    /// Reserves `bytes`; false (and nothing reserved) if that would pass the limit.
    fn reserve(&self, bytes: usize) -> bool {
        let limit = self.limit.load(Ordering::Relaxed);
        let mut current = self.used.load(Ordering::Relaxed);
        loop {
            let Some(next) = current.checked_add(bytes).filter(|n| *n <= limit) else {
                self.exhausted.store(true, Ordering::Relaxed);
                return false;
            };
            match self.used.compare_exchange_weak(
                current,
                next,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    self.peak.fetch_max(next, Ordering::Relaxed);
                    return true;
                }
                Err(actual) => current = actual,
            }
        }
    }

    fn release(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }
}

pub struct MeteredAllocator {
    inner: RustAllocator,
    meter: Arc<HeapMeter>,
}

impl MeteredAllocator {
    pub fn new(meter: Arc<HeapMeter>) -> Self {
        MeteredAllocator {
            inner: RustAllocator,
            meter,
        }
    }
}

// SAFETY: every call is delegated to `RustAllocator`, which upholds the trait's contract;
// the meter only decides whether to delegate and records sizes it reports.
unsafe impl Allocator for MeteredAllocator {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        if !self.meter.reserve(size) {
            return std::ptr::null_mut();
        }
        let ptr = self.inner.alloc(size);
        if ptr.is_null() {
            self.meter.release(size);
        } else {
            // SAFETY: `ptr` was just returned by the inner allocator.
            let actual = unsafe { RustAllocator::usable_size(ptr) };
            self.fix(size, actual);
        }
        ptr
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        let Some(total) = count.checked_mul(size) else {
            return std::ptr::null_mut();
        };
        if !self.meter.reserve(total) {
            return std::ptr::null_mut();
        }
        let ptr = self.inner.calloc(count, size);
        if ptr.is_null() {
            self.meter.release(total);
        } else {
            // SAFETY: `ptr` was just returned by the inner allocator.
            let actual = unsafe { RustAllocator::usable_size(ptr) };
            self.fix(total, actual);
        }
        ptr
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        if ptr.is_null() {
            return;
        }
        // SAFETY: the caller passes a pointer this allocator returned and has not freed.
        let size = unsafe { RustAllocator::usable_size(ptr) };
        // SAFETY: as above.
        unsafe { self.inner.dealloc(ptr) };
        self.meter.release(size);
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        if ptr.is_null() {
            return self.alloc(new_size);
        }
        // SAFETY: the caller passes a live pointer from this allocator.
        let old = unsafe { RustAllocator::usable_size(ptr) };
        if new_size > old && !self.meter.reserve(new_size - old) {
            return std::ptr::null_mut();
        }
        // SAFETY: as above.
        let next = unsafe { self.inner.realloc(ptr, new_size) };
        if next.is_null() {
            if new_size > old {
                self.meter.release(new_size - old);
            }
            return next;
        }
        // SAFETY: `next` was just returned by the inner allocator.
        let actual = unsafe { RustAllocator::usable_size(next) };
        let reserved = old.max(new_size);
        self.fix(reserved, actual);
        next
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        // SAFETY: forwarded contract.
        unsafe { RustAllocator::usable_size(ptr) }
    }
}

impl MeteredAllocator {
    /// Corrects a reservation to the size the inner allocator actually reports, so a
    /// later `dealloc` releases exactly what was counted.
    fn fix(&self, reserved: usize, actual: usize) {
        if actual > reserved {
            self.meter
                .used
                .fetch_add(actual - reserved, Ordering::Relaxed);
        } else {
            self.meter.release(reserved - actual);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_past_the_limit_fail_and_are_not_counted() {
        let meter = HeapMeter::new();
        meter.set_limit(1024);
        let mut allocator = MeteredAllocator::new(meter.clone());
        let small = allocator.alloc(100);
        assert!(!small.is_null());
        let used = meter.used();
        assert!(used >= 100);
        assert!(!meter.exhausted());
        assert!(allocator.alloc(4096).is_null());
        assert_eq!(meter.used(), used);
        assert!(meter.exhausted(), "a refused allocation is remembered");
        // SAFETY: `small` came from this allocator.
        unsafe { allocator.dealloc(small) };
        assert_eq!(meter.used(), 0);
    }

    #[test]
    fn realloc_tracks_growth_and_shrinking() {
        let meter = HeapMeter::new();
        let mut allocator = MeteredAllocator::new(meter.clone());
        let ptr = allocator.alloc(64);
        // SAFETY: `ptr` came from this allocator.
        let grown = unsafe { allocator.realloc(ptr, 4096) };
        assert!(meter.used() >= 4096);
        // SAFETY: `grown` came from this allocator.
        let shrunk = unsafe { allocator.realloc(grown, 16) };
        assert!(meter.used() < 4096);
        // SAFETY: `shrunk` came from this allocator.
        unsafe { allocator.dealloc(shrunk) };
        assert_eq!(meter.used(), 0);
    }
}
