//! The floor of a process-mode cell: each cell is one frame written from the Node thread
//! into a child process's socket and one frame back, which Node's loop reads through a
//! libuv poll handle and hands to JS; the child evaluates it in a VM made ahead.

use crate::node::{frame, watch, Callback};
use napi::bindgen_prelude::*;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::sync::Mutex;

/// Node's end of the child's socket (one child at a time), for `floorCellRun`.
static NODE_END: Mutex<Option<UnixStream>> = Mutex::new(None);

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
    let callback = Callback::new(&env, on_answer.raw())?;
    let on_frame = Box::new(move |body: Vec<u8>| {
        // SAFETY: called by the poll handle, on the Node thread inside its loop; the
        // answer queues the next cell's write as a microtask, which make_callback runs.
        unsafe {
            callback.call(|env, argument| {
                napi::sys::napi_create_string_utf8(
                    env,
                    body.as_ptr().cast(),
                    body.len() as isize,
                    argument,
                );
            })
        };
        true
    });
    // Referenced: it holds the loop open while a cell waits (the script exits itself).
    watch(&env, node_end.try_clone()?, on_frame)?;
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
    // Small and one at a time: the socket always has room.
    socket.write_all(&frame(code.as_bytes()))?;
    Ok(())
}
