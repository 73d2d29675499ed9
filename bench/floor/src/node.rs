//! What the floors share: a JS function called from Node's loop through
//! `napi_make_callback` (which runs the microtasks it queued, as a threadsafe function
//! does), libuv's poll handle on a socket, and the sandbox wire's framing (u32 LE length).

use napi::bindgen_prelude::*;
use napi::sys;
use std::ffi::{c_int, c_void};
use std::io::Read;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;

extern "C" {
    pub fn uv_handle_size(kind: c_int) -> usize;
    fn uv_poll_init(event_loop: *mut c_void, handle: *mut c_void, fd: c_int) -> c_int;
    fn uv_poll_start(
        handle: *mut c_void,
        events: c_int,
        callback: unsafe extern "C" fn(*mut c_void, c_int, c_int),
    ) -> c_int;
    fn uv_poll_stop(handle: *mut c_void) -> c_int;
    pub fn uv_close(handle: *mut c_void, callback: Option<unsafe extern "C" fn(*mut c_void)>);
}

const UV_POLL: c_int = 8;
const UV_READABLE: c_int = 1;

/// A JS function kept for calls from the loop.
pub struct Callback {
    env: sys::napi_env,
    function: sys::napi_ref,
    context: sys::napi_async_context,
}

impl Callback {
    pub fn new(env: &Env, function: sys::napi_value) -> Result<Callback> {
        let raw = env.raw();
        // SAFETY: napi calls on the Node thread with live values.
        unsafe {
            let mut reference = std::ptr::null_mut();
            check_status!(sys::napi_create_reference(raw, function, 1, &mut reference))?;
            let mut name = std::ptr::null_mut();
            check_status!(sys::napi_create_string_utf8(
                raw,
                c"floor".as_ptr(),
                5,
                &mut name
            ))?;
            let mut context = std::ptr::null_mut();
            check_status!(sys::napi_async_init(
                raw,
                std::ptr::null_mut(),
                name,
                &mut context
            ))?;
            Ok(Callback {
                env: raw,
                function: reference,
                context,
            })
        }
    }

    /// Calls the function with the one argument `make` builds.
    ///
    /// # Safety
    /// On the Node thread, inside its loop, with the env that made the callback.
    pub unsafe fn call(&self, make: impl FnOnce(sys::napi_env, &mut sys::napi_value)) {
        // SAFETY: the caller's promise.
        unsafe {
            let env = self.env;
            let mut scope = std::ptr::null_mut();
            sys::napi_open_handle_scope(env, &mut scope);
            let mut function = std::ptr::null_mut();
            sys::napi_get_reference_value(env, self.function, &mut function);
            let mut global = std::ptr::null_mut();
            sys::napi_get_global(env, &mut global);
            let mut argument = std::ptr::null_mut();
            make(env, &mut argument);
            let mut result = std::ptr::null_mut();
            sys::napi_make_callback(
                env,
                self.context,
                global,
                function,
                1,
                &argument,
                &mut result,
            );
            sys::napi_close_handle_scope(env, scope);
        }
    }
}

/// Node's end of a floor's socket, watched by a poll handle: `on_frame` gets each whole
/// frame's body on the loop and says whether to go on watching.
pub struct Watch {
    socket: UnixStream,
    buffer: Vec<u8>,
    on_frame: Box<dyn FnMut(Vec<u8>) -> bool>,
}

unsafe extern "C" fn on_ready(handle: *mut c_void, _status: c_int, _events: c_int) {
    // SAFETY: `data` (offset 0) is the leaked `Watch`; on the Node thread.
    let watch = unsafe { &mut *(*(handle as *mut *mut Watch)) };
    let mut chunk = [0u8; 4096];
    match (&watch.socket).read(&mut chunk) {
        Ok(n) if n > 0 => watch.buffer.extend_from_slice(&chunk[..n]),
        _ => return,
    }
    while watch.buffer.len() >= 4 {
        let head = [
            watch.buffer[0],
            watch.buffer[1],
            watch.buffer[2],
            watch.buffer[3],
        ];
        let length = u32::from_le_bytes(head) as usize;
        if watch.buffer.len() < 4 + length {
            return;
        }
        let body: Vec<u8> = watch.buffer.drain(..4 + length).skip(4).collect();
        if !(watch.on_frame)(body) {
            // SAFETY: the handle is live and on its loop's thread.
            unsafe {
                uv_poll_stop(handle);
                uv_close(handle, None);
            }
            return;
        }
    }
}

/// Watches `socket` (non-blocking) from Node's loop; the handle is leaked (a bench).
pub fn watch(
    env: &Env,
    socket: UnixStream,
    on_frame: Box<dyn FnMut(Vec<u8>) -> bool>,
) -> Result<()> {
    // SAFETY: napi and libuv calls on the Node thread.
    unsafe {
        let mut event_loop = std::ptr::null_mut();
        check_status!(sys::napi_get_uv_event_loop(env.raw(), &mut event_loop))?;
        let size = uv_handle_size(UV_POLL);
        let memory = vec![0u64; size.div_ceil(8)].leak().as_mut_ptr() as *mut c_void;
        if uv_poll_init(event_loop as *mut c_void, memory, socket.as_raw_fd()) != 0 {
            return Err(Error::from_reason("uv_poll_init failed"));
        }
        let watch = Box::into_raw(Box::new(Watch {
            socket,
            buffer: Vec::new(),
            on_frame,
        }));
        *(memory as *mut *mut Watch) = watch;
        uv_poll_start(memory, UV_READABLE, on_ready);
    }
    Ok(())
}

/// `body` with its length header.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = (body.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(body);
    out
}
