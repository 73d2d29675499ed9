//! Host replies waiting for the JS glue's `done(token, ok, text)`, by token: the one way
//! answers from Node reach a waiting cell.

use crate::run::protocol::{HostFailure, Reply};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};

/// Replies waiting for `done`, by token. Shared with the JS-side callbacks.
#[derive(Default)]
pub struct PendingReplies {
    next: AtomicU32,
    replies: Mutex<HashMap<u32, Reply>>,
}

impl PendingReplies {
    pub(super) fn insert(&self, reply: Reply) -> u32 {
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
