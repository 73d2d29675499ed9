//! The same floor with Node woken through a libuv async handle of the addon's own
//! instead of a threadsafe function: `uv_async_send` takes no lock.

use crate::node::{uv_close, uv_handle_size, Callback};
use napi::bindgen_prelude::*;
use napi::sys;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::channel;

extern "C" {
    fn uv_async_init(
        event_loop: *mut c_void,
        handle: *mut c_void,
        callback: unsafe extern "C" fn(*mut c_void),
    ) -> c_int;
    fn uv_async_send(handle: *mut c_void) -> c_int;
}

/// libuv's `UV_ASYNC` handle type.
const UV_ASYNC: c_int = 1;

/// What the async callback needs, reached through the handle's `data` (its first field).
struct Waker {
    on_call: Callback,
    index: AtomicI32,
}

struct Handle(*mut c_void);
// SAFETY: the handle is only sent to, from the calling thread; libuv allows
// `uv_async_send` from any thread.
unsafe impl Send for Handle {}

unsafe extern "C" fn on_async(handle: *mut c_void) {
    // SAFETY: `data` (offset 0 of every uv handle) was set to a leaked `Waker` below.
    let waker = unsafe { &*(*(handle as *mut *mut Waker)) };
    let index = waker.index.load(Ordering::Acquire);
    // SAFETY: on the Node thread, inside the loop, with the env that made the handle.
    unsafe {
        waker.on_call.call(|env, argument| {
            sys::napi_create_int32(env, index, argument);
        });
        if index < 0 {
            uv_close(handle, None);
        }
    }
}

/// As `floorStart`, but each call wakes Node with `uv_async_send`.
#[napi_derive::napi]
pub fn floor_start_uv(env: Env, on_call: Function<i32, ()>, calls: i32) -> Result<()> {
    let raw = env.raw();
    // SAFETY: napi calls on the Node thread with its env; the handle memory is sized by
    // libuv and lives for the process (a bench).
    let handle = unsafe {
        let mut event_loop = std::ptr::null_mut();
        check_status!(sys::napi_get_uv_event_loop(raw, &mut event_loop))?;
        let waker = Box::into_raw(Box::new(Waker {
            on_call: Callback::new(&env, on_call.raw())?,
            index: AtomicI32::new(0),
        }));
        let size = uv_handle_size(UV_ASYNC);
        let memory = vec![0u64; size.div_ceil(8)].leak().as_mut_ptr() as *mut c_void;
        if uv_async_init(event_loop as *mut c_void, memory, on_async) != 0 {
            return Err(Error::from_reason("uv_async_init failed"));
        }
        *(memory as *mut *mut Waker) = waker;
        memory
    };
    let handle = Handle(handle);
    let (sender, receiver) = channel::<String>();
    *crate::ANSWER
        .lock()
        .map_err(|_| Error::from_reason("poisoned"))? = Some(sender);
    std::thread::spawn(move || {
        let handle = handle;
        // SAFETY: `data` points at the leaked `Waker`; the handle stays open until the
        // last callback (index -1) closes it.
        let waker = unsafe { &*(*(handle.0 as *mut *mut Waker)) };
        for index in 0..calls {
            waker.index.store(index, Ordering::Release);
            // SAFETY: as above; uv_async_send is thread-safe.
            unsafe { uv_async_send(handle.0) };
            if receiver.recv().is_err() {
                return;
            }
        }
        waker.index.store(-1, Ordering::Release);
        // SAFETY: as above.
        unsafe { uv_async_send(handle.0) };
    });
    Ok(())
}
