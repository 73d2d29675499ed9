//! `Host` over Node: nested calls, aborts and events go to the session's JS glue through
//! its mailbox, and answers come back through one `done(token, ok, text)` function that
//! routes them to the waiting cell.

use super::mailbox::{Letter, Mailbox};
use super::pending::PendingReplies;
use crate::run::protocol::{Host, HostCall, HostFailure, Reply};
use std::sync::Arc;

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

    fn external_resolved(
        &self,
        run_id: &str,
        call_id: &str,
        outcome: &Result<String, HostFailure>,
    ) {
        let (ok, text) = match outcome {
            Ok(json) => (true, json.clone()),
            Err(failure) => (false, failure.message.clone()),
        };
        self.mailbox.post(Letter::Resolved {
            run_id: run_id.to_string(),
            call_id: call_id.to_string(),
            ok,
            text,
        });
    }

    fn wants_events(&self) -> bool {
        self.events
    }

    fn cancel(&self, call_id: &str) {
        self.mailbox.post(Letter::Abort(call_id.to_string()));
    }
}
