//! The floor of a socket-based call: a Rust thread writes each call as a frame into a
//! socketpair and blocks reading the answer; Node watches its end with a libuv poll
//! handle, reads the frame without blocking, calls the tool through `napi_make_callback`
//! and writes the answer frame back. What a sandbox's call over its socket cannot avoid.

use crate::node::{frame, watch, Callback};
use napi::bindgen_prelude::*;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::Mutex;

/// Node's end of the running loop's socket (one loop at a time), for `floorSockAnswer`.
static NODE_END: Mutex<Option<UnixStream>> = Mutex::new(None);

/// As `floorStart`, but each call is a frame over a socketpair that Node's loop watches.
#[napi_derive::napi]
pub fn floor_start_sock(env: Env, on_call: Function<i32, ()>, calls: i32) -> Result<()> {
    let (node_end, thread_end) = UnixStream::pair()?;
    node_end.set_nonblocking(true)?;
    let callback = Callback::new(&env, on_call.raw())?;
    let on_frame = Box::new(move |body: Vec<u8>| {
        let index = std::str::from_utf8(&body)
            .ok()
            .and_then(|text| text.parse::<i32>().ok())
            .unwrap_or(-1);
        // SAFETY: called by the poll handle, on the Node thread inside its loop.
        unsafe {
            callback.call(|env, argument| {
                napi::sys::napi_create_int32(env, index, argument);
            })
        };
        index >= 0
    });
    watch(&env, node_end.try_clone()?, on_frame)?;
    *NODE_END
        .lock()
        .map_err(|_| Error::from_reason("poisoned"))? = Some(node_end);
    std::thread::spawn(move || {
        let mut socket = thread_end;
        let mut header = [0u8; 4];
        for index in 0..calls {
            if socket
                .write_all(&frame(index.to_string().as_bytes()))
                .is_err()
            {
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
