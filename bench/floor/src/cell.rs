//! The floor of a process-mode cell: each cell is one frame written from the Node thread
//! into a child process's socket and one frame back, which Node's loop reads through a
//! libuv poll handle and hands to JS; the child evaluates it in a VM made ahead.

use napi::bindgen_prelude::*;
use napi::sys;
use std::ffi::{c_int, c_void};
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::sync::Mutex;

extern "C" {
    fn uv_handle_size(kind: c_int) -> usize;
    fn uv_poll_init(event_loop: *mut c_void, handle: *mut c_void, fd: c_int) -> c_int;
    fn uv_poll_start(
        handle: *mut c_void,
        events: c_int,
        callback: unsafe extern "C" fn(*mut c_void, c_int, c_int),
    ) -> c_int;
}

const UV_POLL: c_int = 8;
const UV_READABLE: c_int = 1;

/// Node's end of the child's socket (one child at a time), for `floorCellRun`.
static NODE_END: Mutex<Option<UnixStream>> = Mutex::new(None);

struct Watch {
    env: sys::napi_env,
    on_answer: sys::napi_ref,
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
        // SAFETY: as above, inside the loop with the env that made the handle.
        unsafe {
            let env = watch.env;
            let mut scope = std::ptr::null_mut();
            sys::napi_open_handle_scope(env, &mut scope);
            let mut function = std::ptr::null_mut();
            sys::napi_get_reference_value(env, watch.on_answer, &mut function);
            let mut global = std::ptr::null_mut();
            sys::napi_get_global(env, &mut global);
            let mut argument = std::ptr::null_mut();
            sys::napi_create_string_utf8(
                env,
                body.as_ptr().cast(),
                body.len() as isize,
                &mut argument,
            );
            let mut result = std::ptr::null_mut();
            // make_callback runs the microtasks the answer queued (the next cell's write).
            sys::napi_make_callback(
                env,
                watch.context,
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

/// Starts the child (`child` is the `cell_child` binary, `fresh` makes it remake its VM
/// after each answer) on a socketpair; each answer calls `onAnswer(text)` from Node's loop.
#[napi_derive::napi]
pub fn floor_cell_start(
    env: Env,
    child: String,
    fresh: bool,
    on_answer: Function<String, ()>,
) -> Result<()> {
    let (node_end, child_end) = UnixStream::pair()?;
    node_end.set_nonblocking(true)?;
    let input: OwnedFd = child_end.try_clone()?.into();
    let output: OwnedFd = child_end.into();
    Command::new(child)
        .arg(if fresh { "fresh" } else { "ready" })
        .stdin(Stdio::from(input))
        .stdout(Stdio::from(output))
        .spawn()?;
    let raw = env.raw();
    // SAFETY: napi and libuv calls on the Node thread; the handle memory is leaked (a bench).
    unsafe {
        let mut event_loop = std::ptr::null_mut();
        check_status!(sys::napi_get_uv_event_loop(raw, &mut event_loop))?;
        let mut on_answer_ref = std::ptr::null_mut();
        check_status!(sys::napi_create_reference(
            raw,
            on_answer.raw(),
            1,
            &mut on_answer_ref
        ))?;
        let mut name = std::ptr::null_mut();
        check_status!(sys::napi_create_string_utf8(
            raw,
            c"cell".as_ptr(),
            4,
            &mut name
        ))?;
        let mut context = std::ptr::null_mut();
        check_status!(sys::napi_async_init(
            raw,
            std::ptr::null_mut(),
            name,
            &mut context
        ))?;
        let size = uv_handle_size(UV_POLL);
        let memory = vec![0u64; size.div_ceil(8)].leak().as_mut_ptr() as *mut c_void;
        if uv_poll_init(event_loop as *mut c_void, memory, node_end.as_raw_fd()) != 0 {
            return Err(Error::from_reason("uv_poll_init failed"));
        }
        let watch = Box::into_raw(Box::new(Watch {
            env: raw,
            on_answer: on_answer_ref,
            context,
            socket: node_end.try_clone()?,
            buffer: Vec::new(),
        }));
        *(memory as *mut *mut Watch) = watch;
        // Referenced: it holds the loop open while a cell waits (the script exits itself).
        uv_poll_start(memory, UV_READABLE, on_ready);
    }
    *NODE_END
        .lock()
        .map_err(|_| Error::from_reason("poisoned"))? = Some(node_end);
    Ok(())
}

/// Sends one cell's code to the child, from the Node thread.
#[napi_derive::napi]
pub fn floor_cell_run(code: String) -> Result<()> {
    let guard = NODE_END
        .lock()
        .map_err(|_| Error::from_reason("poisoned"))?;
    let mut socket = guard
        .as_ref()
        .ok_or_else(|| Error::from_reason("no child"))?;
    let mut frame = (code.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(code.as_bytes());
    // Small and one at a time: the socket always has room.
    socket.write_all(&frame)?;
    Ok(())
}
