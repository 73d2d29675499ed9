//! `Host` over Node: nested calls, aborts and events go to the session's JS glue through
//! its mailbox, and answers come back through one `done(token, ok, text)` function that
//! routes them to the waiting cell.

use super::mailbox::{Letter, Mailbox};
use crate::engine::host::{Host, HostCall, HostFailure, Reply};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

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
    mailbox: Arc<Mailbox>,
    /// Whether the session has an `onEvent` listener.
    events: bool,
    pending: Arc<PendingReplies>,
}

impl JsHost {
    pub fn new(mailbox: Arc<Mailbox>, pending: Arc<PendingReplies>, events: bool) -> JsHost {
        JsHost {
            mailbox,
            events,
            pending,
        }
    }
}

impl Host for JsHost {
    fn call_tool(&self, call: HostCall, reply: Reply) {
        let token = self.pending.insert(reply);
        self.mailbox.post(Letter::Invoke { call, token });
    }

    fn event(&self, event_json: String) {
        if self.events {
            self.mailbox.post(Letter::Event(event_json));
        }
    }

    fn wants_events(&self) -> bool {
        self.events
    }

    fn cancel(&self, call_id: &str) {
        self.mailbox.post(Letter::Abort(call_id.to_string()));
    }
}
