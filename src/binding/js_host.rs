//! `Host` over Node: nested calls go to the session's JS glue through weak threadsafe
//! functions (an idle session never keeps Node alive), and answers come back through one
//! `done(token, ok, text)` function that routes them to the waiting cell.

use crate::engine::host::{Host, HostCall, HostFailure, Reply};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::{
    ThreadsafeCallContext, ThreadsafeFunction, ThreadsafeFunctionCallMode,
};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// `invoke(index, surface, callableName, inputJson, callId, parentCallId, runId, sessionId, token)`.
type InvokeArgs = FnArgs<(
    u32,
    bool,
    String,
    String,
    String,
    String,
    String,
    String,
    u32,
)>;
type InvokeFn = ThreadsafeFunction<HostCallJob, (), InvokeArgs, Status, false, true>;
type AbortFn = ThreadsafeFunction<String, (), String, Status, false, true>;
type EmitFn = ThreadsafeFunction<String, (), String, Status, false, true>;

pub struct HostCallJob {
    call: HostCall,
    token: u32,
}

/// Replies waiting for `done`, by token. Shared with the JS-side callbacks.
#[derive(Default)]
pub struct PendingReplies {
    next: AtomicU32,
    replies: Mutex<HashMap<u32, Reply>>,
}

impl PendingReplies {
    fn insert(&self, reply: Reply) -> u32 {
        let token = self.next.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
        self.replies.lock().insert(token, reply);
        token
    }

    /// Called on the Node thread when a tool settles.
    pub fn complete(&self, token: u32, ok: bool, text: String) {
        let Some(reply) = self.replies.lock().remove(&token) else {
            return;
        };
        if ok {
            reply.ok(text);
        } else {
            reply.fail(HostFailure {
                message: text,
                code: "tool_error",
            });
        }
    }

    pub fn pause(&self, token: u32) {
        if let Some(reply) = self.replies.lock().get(&token) {
            reply.budget().pause();
        }
    }

    pub fn resume(&self, token: u32) {
        if let Some(reply) = self.replies.lock().get(&token) {
            reply.budget().resume();
        }
    }
}

pub struct JsHost {
    invoke: InvokeFn,
    abort: AbortFn,
    /// Present only when the session has an `onEvent` listener.
    emit: Option<EmitFn>,
    pending: Arc<PendingReplies>,
}

impl JsHost {
    /// Builds the threadsafe functions over the glue's `invoke` and `abort`.
    pub fn new(glue: &Object, pending: Arc<PendingReplies>, events: bool) -> Result<JsHost> {
        let invoke: Function<InvokeArgs, ()> = glue.get_named_property("invoke")?;
        let invoke = invoke
            .build_threadsafe_function::<HostCallJob>()
            .weak::<true>()
            .callee_handled::<false>()
            .build_callback(|ctx: ThreadsafeCallContext<HostCallJob>| {
                let HostCallJob { call, token } = ctx.value;
                Ok(FnArgs::from((
                    call.tool_index as u32,
                    call.surface,
                    call.callable_name,
                    call.input_json,
                    call.call_id,
                    call.parent_call_id.unwrap_or_default(),
                    call.run_id,
                    call.session_id,
                    token,
                )))
            })?;
        let abort: Function<String, ()> = glue.get_named_property("abort")?;
        let abort = abort
            .build_threadsafe_function::<String>()
            .weak::<true>()
            .callee_handled::<false>()
            .build_callback(|ctx: ThreadsafeCallContext<String>| Ok(ctx.value))?;
        let emit = if events {
            let emit: Function<String, ()> = glue.get_named_property("emit")?;
            Some(
                emit.build_threadsafe_function::<String>()
                    .weak::<true>()
                    .callee_handled::<false>()
                    .build_callback(|ctx: ThreadsafeCallContext<String>| Ok(ctx.value))?,
            )
        } else {
            None
        };
        Ok(JsHost {
            invoke,
            abort,
            emit,
            pending,
        })
    }
}

impl Host for JsHost {
    fn call_tool(&self, call: HostCall, reply: Reply) {
        let token = self.pending.insert(reply);
        let status = self.invoke.call(
            HostCallJob { call, token },
            ThreadsafeFunctionCallMode::NonBlocking,
        );
        if status != Status::Ok {
            // Node is shutting down (or the env is gone): fail the call instead of hanging.
            self.pending
                .complete(token, false, "code mode host is unavailable".into());
        }
    }

    fn event(&self, event_json: String) {
        if let Some(emit) = &self.emit {
            let _ = emit.call(event_json, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }

    fn wants_events(&self) -> bool {
        self.emit.is_some()
    }

    fn cancel(&self, call_id: &str) {
        let _ = self
            .abort
            .call(call_id.to_string(), ThreadsafeFunctionCallMode::NonBlocking);
    }
}
