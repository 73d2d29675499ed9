//! How a session's exec and wait calls open: the glue's promise and its responder (fitted
//! to `resultBudgetChars`), abort signals and run-status events; starts that wait for the
//! MCP tools queue in the session core.

use super::super::glue::glue_fn;
use super::super::mailbox::{RunSlot, Settle};
use super::{CodeModeSession, Promised};
use crate::run::cell::{Cell, Responder};
use crate::run::result::{Delivery, Outcome};
use crate::session::abort_watch::AbortTarget;
use crate::session::core::SessionCore;
use crate::session::pending_starts::{CallStart, OnStart};
use crate::session::result_budget;
use napi::bindgen_prelude::*;
use serde_json::Value;
use std::sync::Arc;

/// `glue.onAbort(options, token)`: true if it listens to a signal.
type OnAbortArgs<'a> = FnArgs<(Unknown<'a>, u32)>;
/// `glue.open(token, owner, kind, runId)`.
type OpenArgs<'a> = FnArgs<(u32, Option<Object<'a>>, &'static str, Option<String>)>;

/// What a result promise answers, for the glue's spans: the method and, for `wait`, the
/// run it resumes.
pub(in crate::binding) enum CallKind {
    Exec,
    Wait(Option<String>),
    Script,
}

impl CallKind {
    fn into_args(self) -> (&'static str, Option<String>) {
        match self {
            CallKind::Exec => ("exec", None),
            CallKind::Wait(run_id) => ("wait", run_id),
            CallKind::Script => ("script", None),
        }
    }
}

/// `open_call`'s outcome.
enum OpenCall<'env> {
    /// The promise is already answered: nothing to start.
    Answered(Object<'env>),
    /// The caller's call id and the open promise, its responder fitted to the budget.
    Ready(Option<String>, Promised<'env, Responder>),
}

impl CodeModeSession {
    /// An async method's misuse: a promise rejected with the documented `invalid_input`
    /// error, so `.catch()` sees it like any other failure of the call.
    pub(super) fn reject_invalid<'env>(
        &self,
        env: &'env Env,
        message: &str,
    ) -> Result<Object<'env>> {
        let glue = self.glue(env)?;
        let rejected: Function<String, Object> = glue_fn(&glue, "rejected")?;
        rejected.call(message.to_string())
    }

    /// A result promise (opened by the glue) and the responder that settles it from any
    /// thread through the session's mailbox. When events are on, the glue emits the run's
    /// final `run_status` just before the promise settles; the run id is known only once
    /// the cell exists, hence the slot.
    ///
    /// `owner` (the JS session object) is kept reachable until the promise settles: a
    /// session collected mid-run would be closed by its finalizer, aborting the run of a
    /// caller that still awaits it (`await new CodeModeSession(…).exec(…)`).
    pub(in crate::binding) fn promised<'env>(
        &self,
        env: &'env Env,
        owner: Option<Object<'env>>,
        kind: CallKind,
    ) -> Result<Promised<'env>> {
        let run: RunSlot = Arc::default();
        let settle = Settle::new(&self.mailbox, run.clone());
        let token = settle.token();
        let open: Function<OpenArgs, Object> = glue_fn(&self.glue(env)?, "open")?;
        let (kind, run_id) = kind.into_args();
        let promise = open.call(FnArgs::from((token, owner, kind, run_id)))?;
        let responder: Delivery = Box::new(move |outcome: Value| settle.send(&outcome));
        Ok(Promised {
            responder,
            promise,
            run,
            token,
        })
    }

    /// What every exec and wait does before its cell starts, now or after the MCP tools
    /// load: read the call options, open the result promise and fit its responder to
    /// `resultBudgetChars`. A bad budget or an already aborted signal answers the promise
    /// at once.
    fn open_call<'env>(
        &self,
        env: &'env Env,
        owner: Object<'env>,
        options: &Option<Unknown>,
        kind: CallKind,
    ) -> Result<OpenCall<'env>> {
        let call = self.read_call_options(env, options)?;
        let Promised {
            responder,
            promise,
            run,
            token,
        } = self.promised(env, Some(owner), kind)?;
        let responder = match result_budget::parse_budget(call.result_budget_chars.as_ref()) {
            Ok(None) => crate::run::result::delivering(responder),
            Ok(Some(chars)) => result_budget::fitting(&self.core, chars, responder),
            Err(error) => {
                let failed = crate::run::result::early_failure(&error, self.core.telemetry());
                responder(failed.into_value());
                return Ok(OpenCall::Answered(promise));
            }
        };
        if call.aborted {
            responder(self.aborted_result());
            return Ok(OpenCall::Answered(promise));
        }
        Ok(OpenCall::Ready(
            call.call_id,
            Promised {
                responder,
                promise,
                run,
                token,
            },
        ))
    }

    /// The shared tail of exec and wait: `open_call`, then `start`, then the `running`
    /// event and abort wiring for the call as it began. `start` gets the call id, the
    /// responder, and what a deferred start tells its cell to (the run id, for events).
    pub(super) fn start_call<'env>(
        &self,
        env: &'env Env,
        owner: Object<'env>,
        options: Option<Unknown>,
        kind: CallKind,
        start: impl FnOnce(&Arc<SessionCore>, Option<String>, Responder, Option<OnStart>) -> CallStart,
    ) -> Result<Object<'env>> {
        let (call_id, opened) = match self.open_call(env, owner, &options, kind)? {
            OpenCall::Answered(promise) => return Ok(promise),
            OpenCall::Ready(call_id, opened) => (call_id, opened),
        };
        let run = opened.run.clone();
        let context = self.hold_context(env, &options, opened.token)?;
        // As `emit_running` does: the run id goes into the slot only for the events and
        // for binding the call's context and span.
        let keep_run = self.emit.is_some() || context || self.core.is_durable();
        let on_start: OnStart = Box::new(move |cell| {
            if keep_run {
                let _ = run.set(cell.run_id.clone());
            }
        });
        match start(&self.core, call_id, opened.responder, Some(on_start)) {
            CallStart::Answered => {}
            CallStart::Started(cell) => {
                if context {
                    self.bind_context(env, opened.token, &cell.run_id)?;
                }
                emit_running(&self.emit, env, &cell, &opened.run)?;
                self.watch_abort(env, &options, opened.token, AbortTarget::call(&cell))?;
            }
            CallStart::Deferred(gate) => {
                self.watch_abort(env, &options, opened.token, AbortTarget::Gate(gate))?;
                let bind = context.then(|| (opened.token, opened.run.clone()));
                self.start_deferred_after_mcp(env, bind)?;
            }
        }
        Ok(opened.promise)
    }

    /// Has the glue's `afterMcp` start the calls queued in the session core once the
    /// MCP tools are loaded, emitting `run_status: running` for those that asked.
    /// `bind`: the token and run slot of a call with a `context` option, bound to its run
    /// once the run has started (the slot is set by then).
    pub(in crate::binding) fn start_deferred_after_mcp(
        &self,
        env: &Env,
        bind: Option<(u32, crate::binding::mailbox::RunSlot)>,
    ) -> Result<()> {
        let core = self.core.clone();
        let emit = self.emit.clone();
        let glue = self.glue(env)?;
        let bind_context = match bind {
            Some(bind) => Some((
                bind,
                glue_fn::<FnArgs<(u32, String)>, ()>(&glue, "bindContext")?.create_ref()?,
            )),
            None => None,
        };
        let callback = env.create_function_from_closure("afterMcp", move |ctx| {
            for cell in core.start_deferred() {
                emit_running_event(&emit, ctx.env, &cell)?;
            }
            if let Some(((token, run), bind)) = &bind_context {
                if let Some(run_id) = run.get() {
                    bind.borrow_back(ctx.env)?
                        .call(FnArgs::from((*token, run_id.clone())))?;
                }
            }
            Ok(())
        })?;
        glue_fn::<Function<(), ()>, ()>(&self.glue(env)?, "afterMcp")?.call(callback)
    }

    /// Stops `target` when the call options' signal fires before the promise under
    /// `token` settles (the glue opened that promise, so it knows the token).
    pub(in crate::binding) fn watch_abort(
        &self,
        env: &Env,
        options: &Option<Unknown>,
        token: u32,
        target: AbortTarget,
    ) -> Result<()> {
        let Some(options) = options else {
            return Ok(());
        };
        let on_abort: Function<OnAbortArgs, bool> = glue_fn(&self.glue(env)?, "onAbort")?;
        // A signal cannot fire while its listener is being added, so registering after is
        // safe and spares the table an entry for calls without a signal.
        if on_abort.call(FnArgs::from((*options, token)))? {
            self.mailbox.watches().watch(token, target);
        }
        Ok(())
    }

    /// `glue.holdContext(options, token)`: true if the call options carry a `context` or
    /// the call has a span, either of which needs the run id (`bind_context`).
    fn hold_context(&self, env: &Env, options: &Option<Unknown>, token: u32) -> Result<bool> {
        let hold: Function<FnArgs<(Option<Unknown>, u32)>, bool> =
            glue_fn(&self.glue(env)?, "holdContext")?;
        hold.call(FnArgs::from((*options, token)))
    }

    /// The call's run started as `run_id`: its tool calls see the held context and go
    /// under the call's span.
    pub(in crate::binding) fn bind_context(
        &self,
        env: &Env,
        token: u32,
        run_id: &str,
    ) -> Result<()> {
        let bind: Function<FnArgs<(u32, String)>, ()> = glue_fn(&self.glue(env)?, "bindContext")?;
        bind.call(FnArgs::from((token, run_id.to_string())))
    }

    fn aborted_result(&self) -> Outcome {
        crate::run::result::early_failure(
            &crate::error::CodeModeError::aborted(),
            self.core.telemetry(),
        )
    }
}

fn emit_running(
    emit: &Option<Arc<FunctionRef<String, ()>>>,
    env: &Env,
    cell: &Arc<Cell>,
    slot: &std::sync::OnceLock<String>,
) -> Result<()> {
    if emit.is_some() {
        let _ = slot.set(cell.run_id.clone());
    }
    emit_running_event(emit, env, cell)
}

/// `run_status: running` for `cell`, when the session has an `onEvent` listener.
fn emit_running_event(
    emit: &Option<Arc<FunctionRef<String, ()>>>,
    env: &Env,
    cell: &Arc<Cell>,
) -> Result<()> {
    let Some(emit) = emit else {
        return Ok(());
    };
    let event =
        serde_json::json!({ "type": "run_status", "runId": cell.run_id, "status": "running" });
    emit.borrow_back(env)?.call(event.to_string())
}
