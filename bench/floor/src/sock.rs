//! The floor of a socket-based call: a Rust thread writes each call as a frame into a
//! socketpair and blocks reading the answer; Node watches its end with a libuv poll
//! handle, reads the frame without blocking, calls the tool through `napi_make_callback`
//! and writes the answer frame back. What a sandbox's call over its socket cannot avoid.

use napi::bindgen_prelude::*;
use napi::sys;
use std::ffi::{c_int, c_void};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::Mutex;

extern "C" {
    fn uv_handle_size(kind: c_int) -> usize;
    fn uv_poll_init(event_loop: *mut c_void, handle: *mut c_void, fd: c_int) -> c_int;
    fn uv_poll_start(
        handle: *mut c_void,
        events: c_int,
        callback: unsafe extern "C" fn(*mut c_void, c_int, c_int),
    ) -> c_int;
    fn uv_poll_stop(handle: *mut c_void) -> c_int;
    fn uv_close(handle: *mut c_void, callback: Option<unsafe extern "C" fn(*mut c_void)>);
}

const UV_POLL: c_int = 8;
const UV_READABLE: c_int = 1;

/// Node's end of the running loop's socket (one loop at a time), for `floorSockAnswer`.
static NODE_END: Mutex<Option<UnixStream>> = Mutex::new(None);

struct Watch {
    env: sys::napi_env,
    on_call: sys::napi_ref,
    context: sys::napi_async_context,
    socket: UnixStream,
    buffer: Vec<u8>,
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
        let length = u32::from_le_bytes([
            watch.buffer[0],
            watch.buffer[1],
            watch.buffer[2],
            watch.buffer[3],
        ]) as usize;
        if watch.buffer.len() < 4 + length {
            return;
        }
        let body: Vec<u8> = watch.buffer.drain(..4 + length).skip(4).collect();
        let index = std::str::from_utf8(&body)
            .ok()
            .and_then(|text| text.parse::<i32>().ok())
            .unwrap_or(-1);
        // SAFETY: as above, inside the loop with the env that made the handle.
        unsafe {
            let env = watch.env;
            let mut scope = std::ptr::null_mut();
            sys::napi_open_handle_scope(env, &mut scope);
            let mut function = std::ptr::null_mut();
            sys::napi_get_reference_value(env, watch.on_call, &mut function);
            let mut global = std::ptr::null_mut();
            sys::napi_get_global(env, &mut global);
            let mut argument = std::ptr::null_mut();
            sys::napi_create_int32(env, index, &mut argument);
            let mut result = std::ptr::null_mut();
            // make_callback runs the microtasks the call queued.
            sys::napi_make_callback(env, watch.context, global, function, 1, &argument, &mut result);
            sys::napi_close_handle_scope(env, scope);
            if index < 0 {
                uv_poll_stop(handle);
                uv_close(handle, None);
                return;
            }
        }
    }
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = (body.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(body);
    out
}

/// As `floorStart`, but each call is a frame over a socketpair that Node's loop watches.
#[napi_derive::napi]
pub fn floor_start_sock(env: Env, on_call: Function<i32, ()>, calls: i32) -> Result<()> {
    let (node_end, thread_end) = UnixStream::pair()?;
    node_end.set_nonblocking(true)?;
    let raw = env.raw();
    // SAFETY: napi and libuv calls on the Node thread; the handle memory is leaked (a bench).
    unsafe {
        let mut event_loop = std::ptr::null_mut();
        check_status!(sys::napi_get_uv_event_loop(raw, &mut event_loop))?;
        let mut on_call_ref = std::ptr::null_mut();
        check_status!(sys::napi_create_reference(raw, on_call.raw(), 1, &mut on_call_ref))?;
        let mut name = std::ptr::null_mut();
        check_status!(sys::napi_create_string_utf8(raw, c"floor".as_ptr(), 5, &mut name))?;
        let mut context = std::ptr::null_mut();
        check_status!(sys::napi_async_init(raw, std::ptr::null_mut(), name, &mut context))?;
        let size = uv_handle_size(UV_POLL);
        let memory = vec![0u64; size.div_ceil(8)].leak().as_mut_ptr() as *mut c_void;
        if uv_poll_init(event_loop as *mut c_void, memory, node_end.as_raw_fd()) != 0 {
            return Err(Error::from_reason("uv_poll_init failed"));
        }
        let watch = Box::into_raw(Box::new(Watch {
            env: raw,
            on_call: on_call_ref,
            context,
            socket: node_end.try_clone()?,
            buffer: Vec::new(),
        }));
        *(memory as *mut *mut Watch) = watch;
        uv_poll_start(memory, UV_READABLE, on_ready);
    }
    *NODE_END
        .lock()
        .map_err(|_| Error::from_reason("poisoned"))? = Some(node_end);
    std::thread::spawn(move || {
        let mut socket = thread_end;
        let mut header = [0u8; 4];
        for index in 0..calls {
            if socket.write_all(&frame(index.to_string().as_bytes())).is_err() {
                return;
            }
            if socket.read_exact(&mut header).is_err() {
                return;
            }
            let mut body = vec![0u8; u32::from_le_bytes(header) as usize];
            if socket.read_exact(&mut body).is_err() {
                return;
            }
        }
        let _ = socket.write_all(&frame(b"-1"));
    });
    Ok(())
}

/// The tool's answer (JSON text), written back as a frame.
#[napi_derive::napi]
pub fn floor_sock_answer(text: String) {
    if let Ok(guard) = NODE_END.lock() {
        if let Some(mut socket) = guard.as_ref() {
            // Small and one at a time: the socket always has room.
            let _ = socket.write_all(&frame(text.as_bytes()));
        }
    }
}
