//! The least a tool call from a Rust thread can cost: one threadsafe-function wake-up of
//! the Node thread, the async tool, and one channel wake-up of the calling thread.

use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;
use std::sync::mpsc::{channel, Sender};
use std::sync::Mutex;

mod cell;
mod node;
mod sock;
mod uv;

/// The answer channel of the running loop (one loop at a time).
static ANSWER: Mutex<Option<Sender<String>>> = Mutex::new(None);

type CallFn = ThreadsafeFunction<i32, (), i32, Status, false>;

/// Starts a thread that makes `calls` calls one after another: each wakes Node with
/// `onCall(i)` and blocks until `answer(text)`; the last `onCall` gets -1.
#[napi]
pub fn floor_start(on_call: Function<i32, ()>, calls: i32) -> Result<()> {
    let tsfn: CallFn = on_call
        .build_threadsafe_function()
        .callee_handled::<false>()
        .build()?;
    let (sender, receiver) = channel::<String>();
    *ANSWER.lock().map_err(|_| Error::from_reason("poisoned"))? = Some(sender);
    std::thread::spawn(move || {
        for index in 0..calls {
            tsfn.call(index, ThreadsafeFunctionCallMode::NonBlocking);
            if receiver.recv().is_err() {
                return;
            }
        }
        tsfn.call(-1, ThreadsafeFunctionCallMode::NonBlocking);
    });
    Ok(())
}

/// The tool's answer (JSON text), for the waiting thread.
#[napi]
pub fn floor_answer(text: String) {
    if let Ok(guard) = ANSWER.lock() {
        if let Some(sender) = guard.as_ref() {
            let _ = sender.send(text);
        }
    }
}
