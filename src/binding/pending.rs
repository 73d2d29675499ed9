//! Host replies waiting for the JS glue's `done(token, ok, text)`, by token: the one way
//! answers from Node reach a waiting cell.

use crate::error::messages;
use crate::run::protocol::{HostFailure, Reply, Suspension};
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

    /// Whether the run behind call `token` ended before its tool started (the Node thread
    /// was busy, say); its answer is then settled here instead.
    pub fn ended_before_start(&self, token: u32) -> bool {
        let ended = self.replies.lock().get(&token).is_none_or(Reply::run_ended);
        if ended {
            self.complete(token, false, messages::RUN_ENDED_BEFORE_CALL.into());
        }
        ended
    }

    /// Called on the Node thread when a tool calls `ctx.suspend(payload)`: a parked call
    /// leaves this table (its tool no longer answers it) and waits in its run for
    /// `resolveCall`; a refused one stays, for its tool to answer.
    pub fn suspend(&self, token: u32, payload: String) -> Suspension {
        let Some(reply) = self.replies.lock().remove(&token) else {
            return Suspension::RunEnded;
        };
        let suspension = reply.suspend(payload);
        if let Suspension::Refused(_) = suspension {
            // Only the Node thread removes tokens, so nothing settled it meanwhile.
            self.replies.lock().insert(token, reply);
        }
        suspension
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
