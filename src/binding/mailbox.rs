//! One mailbox per session carries everything bound for the Node thread (tool calls,
//! aborts, events, settled results) in posting order: a lock-free queue that wakes Node
//! only when it goes from empty to non-empty; `scheduler.js` drains it in time slices.

use super::pending::PendingReplies;
use crate::run::protocol::HostCall;
use crate::session::abort_watch::AbortWatches;
use crossbeam_channel::{unbounded, Receiver, Sender};
use napi::bindgen_prelude::*;
use napi::sys;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use serde_json::Value;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

/// The glue's `wake()`, called without arguments. Weak: an idle session never keeps Node
/// alive (the glue holds the loop open while a result is pending). The wake-up carries
/// the mailbox, so letters in it outlive everything else that held it.
pub type WakeFn = ThreadsafeFunction<Arc<Mailbox>, (), (), Status, false, true>;

/// The mailbox the glue is taking letters from: set by a wake-up, cleared once the box is
/// empty. Only the Node thread touches it. Holding the mailbox only while it has letters
/// matters: the mailbox holds the glue's `wake`, so a lasting reference from the glue back
/// to it would keep both alive for good.
pub type Held = Arc<parking_lot::Mutex<Option<Arc<Mailbox>>>>;

/// The run id of an exec/wait, known once its cell exists (set on the Node thread).
pub type RunSlot = Arc<OnceLock<String>>;

/// What a worker sends to the Node thread.
pub enum Letter {
    /// Start a host tool; its answer comes back through `done(token, …)`.
    Invoke { call: HostCall, token: u32 },
    /// Abort the host call with this call id.
    Abort(String),
    /// An `onEvent` event, as JSON.
    Event(String),
    /// An external call was resolved (`resolveCall`): its `tool_call_end`, with the
    /// value's JSON (`ok`) or the error's message.
    Resolved {
        run_id: String,
        call_id: String,
        ok: bool,
        text: String,
    },
    /// Settle the exec/wait promise opened under `token` with a result (JSON).
    Settle {
        token: u32,
        text: String,
        status: String,
        run: RunSlot,
    },
}

/// An env's way to wake a session's glue without its threadsafe function
/// (`direct_wake`): true if it took the wake-up.
pub trait EnvWake: Send + Sync {
    fn wake(&self, mailbox: &Arc<Mailbox>) -> bool;
}

pub struct Mailbox {
    sender: Sender<Letter>,
    receiver: Receiver<Letter>,
    /// Set while a wake-up is on its way or the glue is taking letters: posting then
    /// needs no wake-up of its own.
    armed: AtomicBool,
    /// Set by the session's `close()`: results still in the box then describe runs that
    /// close dropped.
    closed: AtomicBool,
    wake: WakeFn,
    next_token: AtomicU32,
    /// Tool calls to fail if Node can no longer take letters.
    replies: Arc<PendingReplies>,
    /// Abort signals of the promises still to settle, by token.
    watches: Arc<AbortWatches>,
    /// Its env's own way to wake the glue, once the session is registered for it
    /// (`direct_wake`); else, or when it declines, the threadsafe function.
    env_wake: std::sync::OnceLock<Arc<dyn EnvWake>>,
}

impl Mailbox {
    pub fn new(wake: WakeFn, replies: Arc<PendingReplies>, watches: Arc<AbortWatches>) -> Mailbox {
        let (sender, receiver) = unbounded();
        Mailbox {
            sender,
            receiver,
            armed: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            wake,
            next_token: AtomicU32::new(0),
            replies,
            watches,
            env_wake: std::sync::OnceLock::new(),
        }
    }

    /// Node thread, at registration (`direct_wake`).
    pub(super) fn set_env_wake(&self, wake: Arc<dyn EnvWake>) {
        let _ = self.env_wake.set(wake);
    }

    pub fn watches(&self) -> &AbortWatches {
        &self.watches
    }

    /// A token for a new exec/wait promise (the glue keys its resolvers by it).
    fn token(&self) -> u32 {
        self.next_token
            .fetch_add(1, Ordering::Relaxed)
            .wrapping_add(1)
    }

    /// Any thread. Never blocks on the Node thread.
    pub fn post(self: &Arc<Self>, letter: Letter) {
        if self.sender.send(letter).is_err() {
            return;
        }
        // The swap pairs with `take`'s: a letter pushed before it is either taken by the
        // glue's current round or announced by this wake-up.
        if self.armed.swap(true, Ordering::AcqRel) {
            return;
        }
        if self.env_wake.get().is_some_and(|wake| wake.wake(self)) {
            return;
        }
        self.ring();
    }

    /// Wakes the glue through the threadsafe function (the box is armed).
    pub(super) fn ring(self: &Arc<Self>) {
        let status = self
            .wake
            .call(self.clone(), ThreadsafeFunctionCallMode::NonBlocking);
        if status != Status::Ok {
            // Node is shutting down: nobody will take letters. Fail the tool calls so their
            // cells end instead of waiting for an answer that cannot come.
            self.armed.store(false, Ordering::Release);
            self.strand();
        }
    }

    /// Node thread, from the session's `close()`: from now on no promise settles as
    /// `waiting` (a run id in it would name a run close dropped).
    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
    }

    /// Node thread: the next letter, or `None` once the box is empty (it is then disarmed,
    /// and the next post wakes the glue again).
    ///
    /// A tool call whose run ended while the letter waited (the run timed out or was
    /// aborted behind a busy Node thread) is settled here and never reaches the tool.
    pub fn take(&self) -> Option<Letter> {
        loop {
            let letter = self.next()?;
            match &letter {
                Letter::Settle { token, .. } => self.watches.forget(*token),
                Letter::Invoke { token, .. } if self.replies.ended_before_start(*token) => continue,
                _ => {}
            }
            return Some(self.after_close(letter));
        }
    }

    fn after_close(&self, letter: Letter) -> Letter {
        match letter {
            Letter::Settle {
                token,
                text,
                status,
                run,
            } if status == "waiting" && self.closed.load(Ordering::SeqCst) => {
                let waiting = serde_json::from_str(&text).unwrap_or(Value::Null);
                let aborted = crate::run::result::aborted_after_close(waiting);
                Letter::Settle {
                    token,
                    text: aborted.to_string(),
                    status: "failed".into(),
                    run,
                }
            }
            letter => letter,
        }
    }

    fn next(&self) -> Option<Letter> {
        if let Ok(letter) = self.receiver.try_recv() {
            return Some(letter);
        }
        self.armed.swap(false, Ordering::AcqRel);
        // A letter posted between the empty read and the disarm found the box armed and
        // sent no wake-up: take it now, re-arming unless its poster already has.
        if self.receiver.is_empty() || self.armed.swap(true, Ordering::AcqRel) {
            return None;
        }
        self.receiver.try_recv().ok()
    }

    /// Node thread, for the glue: the next letter of the held mailbox; `None` (and the
    /// mailbox let go) once it is empty.
    pub fn take_held(held: &Held) -> Option<Letter> {
        let mailbox = held.lock().clone()?;
        let letter = mailbox.take();
        if letter.is_none() {
            *held.lock() = None;
        }
        letter
    }

    fn strand(&self) {
        while let Ok(letter) = self.receiver.try_recv() {
            if let Letter::Invoke { token, .. } = letter {
                self.replies
                    .complete(token, false, "code mode host is unavailable".into());
            }
        }
    }
}

/// Settles one exec/wait promise through the mailbox.
pub struct Settle {
    mailbox: Arc<Mailbox>,
    token: u32,
    run: RunSlot,
    sent: bool,
}

impl Settle {
    /// A settle for a new promise; the glue opens it under `token()`.
    pub fn new(mailbox: &Arc<Mailbox>, run: RunSlot) -> Settle {
        Settle {
            mailbox: mailbox.clone(),
            token: mailbox.token(),
            run,
            sent: false,
        }
    }

    pub fn token(&self) -> u32 {
        self.token
    }

    pub fn send(mut self, outcome: &Value) {
        self.sent = true;
        self.post(outcome);
    }

    fn post(&self, outcome: &Value) {
        let status = outcome["status"].as_str().unwrap_or("failed").to_string();
        self.mailbox.post(Letter::Settle {
            token: self.token,
            text: outcome.to_string(),
            status,
            run: self.run.clone(),
        });
    }
}

impl Drop for Settle {
    /// A responder dropped unanswered would leave its promise pending, and the glue holds
    /// the event loop open while any is: it settles as an internal error instead.
    fn drop(&mut self) {
        if !self.sent {
            let error =
                crate::error::CodeModeError::internal("code mode run ended without a result");
            let telemetry = crate::run::result::Telemetry::default();
            self.post(&crate::run::result::early_failure(&error, telemetry).into_value());
        }
    }
}

/// A letter as the glue reads it: `[kind, ...fields]` (kinds in `glue/host.js`, `take`).
impl ToNapiValue for Letter {
    unsafe fn to_napi_value(env: sys::napi_env, letter: Self) -> Result<sys::napi_value> {
        // SAFETY (all calls below): `env` is the live env napi passed in, on its thread.
        let fields = unsafe {
            match letter {
                Letter::Invoke { call, token } => vec![
                    u32::to_napi_value(env, 0)?,
                    u32::to_napi_value(env, call.tool_index as u32)?,
                    bool::to_napi_value(env, call.surface)?,
                    String::to_napi_value(env, call.callable_name)?,
                    String::to_napi_value(env, call.input_json)?,
                    String::to_napi_value(env, call.call_id)?,
                    String::to_napi_value(env, call.parent_call_id.unwrap_or_default())?,
                    String::to_napi_value(env, call.run_id)?,
                    String::to_napi_value(env, call.session_id)?,
                    u32::to_napi_value(env, token)?,
                ],
                Letter::Abort(call_id) => vec![
                    u32::to_napi_value(env, 1)?,
                    String::to_napi_value(env, call_id)?,
                ],
                Letter::Event(json) => vec![
                    u32::to_napi_value(env, 2)?,
                    String::to_napi_value(env, json)?,
                ],
                Letter::Resolved {
                    run_id,
                    call_id,
                    ok,
                    text,
                } => vec![
                    u32::to_napi_value(env, 4)?,
                    String::to_napi_value(env, run_id)?,
                    String::to_napi_value(env, call_id)?,
                    bool::to_napi_value(env, ok)?,
                    String::to_napi_value(env, text)?,
                ],
                Letter::Settle {
                    token,
                    text,
                    status,
                    run,
                } => vec![
                    u32::to_napi_value(env, 3)?,
                    u32::to_napi_value(env, token)?,
                    String::to_napi_value(env, text)?,
                    String::to_napi_value(env, run.get().cloned().unwrap_or_default())?,
                    String::to_napi_value(env, status)?,
                ],
            }
        };
        let mut array = std::ptr::null_mut();
        // SAFETY: as above; `array` is written by napi before it is read.
        unsafe {
            check_status!(sys::napi_create_array_with_length(
                env,
                fields.len(),
                &mut array
            ))?;
            for (index, field) in fields.into_iter().enumerate() {
                check_status!(sys::napi_set_element(env, array, index as u32, field))?;
            }
        }
        Ok(array)
    }
}
