//! A Node environment's watch on its sandbox hub: one libuv poll handle on the hub's fd, so
//! a sandbox's frame wakes only this env's thread, which serves it in the callback (as
//! node-pty and serialport watch their fds). Unreferenced, so an idle session never holds
//! the loop open; stopped and closed at the env's cleanup, before its loop goes.

use crate::sandbox::poller::Hub;
use napi::{check_status, sys, Env, Error, Result};
use std::alloc::Layout;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

extern "C" {
    fn uv_handle_size(kind: c_int) -> usize;
    fn uv_poll_init(event_loop: *mut c_void, handle: *mut c_void, fd: c_int) -> c_int;
    fn uv_poll_start(
        handle: *mut c_void,
        events: c_int,
        callback: unsafe extern "C" fn(*mut c_void, c_int, c_int),
    ) -> c_int;
    fn uv_poll_stop(handle: *mut c_void) -> c_int;
    fn uv_unref(handle: *mut c_void);
    fn uv_close(handle: *mut c_void, callback: Option<unsafe extern "C" fn(*mut c_void)>);
}

/// libuv's `UV_POLL` handle type and `UV_READABLE` event.
const UV_POLL: c_int = 8;
const UV_READABLE: c_int = 1;

/// What the handle's callbacks reach through its `data` (the first field of every handle).
struct Watch {
    hub: Arc<Hub>,
    layout: Layout,
}

/// Node thread, once per env (with its first session): makes the env's hub and watches it.
pub fn install(env: &Env) -> Result<()> {
    let hub = Hub::for_this_env().map_err(|error| Error::from_reason(error.to_string()))?;
    let raw = env.raw();
    // SAFETY: napi and libuv calls on the env's own thread with its loop; the handle's
    // memory is libuv's size for a poll handle, freed only in its close callback.
    unsafe {
        let mut event_loop = std::ptr::null_mut();
        check_status!(sys::napi_get_uv_event_loop(raw, &mut event_loop))?;
        let layout = Layout::from_size_align(uv_handle_size(UV_POLL), 16)
            .map_err(|error| Error::from_reason(error.to_string()))?;
        let handle = std::alloc::alloc_zeroed(layout).cast::<c_void>();
        if handle.is_null() {
            hub.orphan();
            return Err(Error::from_reason(
                "out of memory for the sandbox poll handle",
            ));
        }
        if uv_poll_init(event_loop.cast(), handle, hub.fd()) != 0 {
            std::alloc::dealloc(handle.cast(), layout);
            hub.orphan();
            return Err(Error::from_reason(
                "the sandbox poll handle could not start",
            ));
        }
        let watch = Box::into_raw(Box::new(Watch { hub, layout }));
        *handle.cast::<*mut Watch>() = watch;
        // Closed (not freed) on failure: libuv knows an initialised handle.
        if uv_poll_start(handle, UV_READABLE, on_ready) != 0 {
            cleanup(handle);
            return Err(Error::from_reason(
                "the sandbox poll handle could not start",
            ));
        }
        uv_unref(handle);
        // Without the hook nothing would close the handle before the loop goes.
        if sys::napi_add_env_cleanup_hook(raw, Some(cleanup), handle) != sys::Status::napi_ok {
            cleanup(handle);
            return Err(Error::from_reason(
                "the sandbox poll handle could not start",
            ));
        }
    }
    Ok(())
}

/// Something waits in the hub: one bounded turn, then back to the loop (level-triggered,
/// so what is left calls again after the loop's other work).
unsafe extern "C" fn on_ready(handle: *mut c_void, _status: c_int, _events: c_int) {
    // SAFETY: `data` holds the `Watch` until the close callback frees it.
    let watch = unsafe { &*(*handle.cast::<*mut Watch>()) };
    // A panic must not unwind into libuv; the hub drops that turn.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        super::direct_wake::around_turn(|| watch.hub.serve());
    }));
}

/// The env is going: its hub passes to the poller thread, and the handle closes.
unsafe extern "C" fn cleanup(handle: *mut c_void) {
    // SAFETY: as in `on_ready`; on the env's thread, its loop still alive.
    unsafe {
        let watch = &*(*handle.cast::<*mut Watch>());
        watch.hub.orphan();
        super::direct_wake::forget_env();
        uv_poll_stop(handle);
        uv_close(handle, Some(closed));
    }
}

unsafe extern "C" fn closed(handle: *mut c_void) {
    // SAFETY: libuv is done with the handle: its memory and `Watch` are ours to free.
    unsafe {
        let watch = Box::from_raw(*handle.cast::<*mut Watch>());
        std::alloc::dealloc(handle.cast(), watch.layout);
    }
}
