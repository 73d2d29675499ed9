//! `CodeModeSession`: converts JS arguments through the session's glue, hands them to the
//! engine's `SessionCore`, and resolves promises with the engine's JSON results.

use super::js_host::JsHost;
use super::mailbox::{Held, Letter, Mailbox, RunSlot, Settle, WakeFn};
use super::options::{
    parse_call_options, parse_exec_input, parse_options, parse_redaction, parse_tool_specs,
};
use super::pending::PendingReplies;
use crate::error::messages;
use crate::run::cell::{Cell, Responder};
use crate::run::nested_calls::preview;
use crate::session::abort_watch::{AbortGate, AbortTarget, AbortWatches};
use crate::session::core::SessionCore;
use crate::session::result_budget;
use crate::source::redact::Redactor;
use napi::bindgen_prelude::*;
use napi::JsDeferred;
use napi_derive::napi;
use serde_json::Value;
use std::sync::{Arc, OnceLock, Weak};

/// The host glue: its entry (`glue/host.js`) applied to its modules (`glue/*.js`, each a
/// function expression whose value is the module's factory), compiled as one script whose
/// value is the session factory.
const HOST_GLUE: &str = concat!(
    include_str!("glue/host.js"),
    "({\nevents: ",
    include_str!("glue/events.js"),
    ",\ninvoke: ",
    include_str!("glue/invoke.js"),
    ",\noptions: ",
    include_str!("glue/options.js"),
    ",\nmcp: ",
    include_str!("glue/mcp.js"),
    "})"
);
const MCP_WATCH: &str = include_str!("glue/mcp_watch.js");

/// `glue.onAbort(options, token)`: true if it listens to a signal.
type OnAbortArgs<'a> = FnArgs<(Unknown<'a>, u32)>;
/// `createHost(done, pauseBudget, resumeBudget, mcpLoaded, take, abort, scheduler,
/// watchToolList, limits)`; `limits` is `limits::glue_limits()` as JSON text.
type GlueFactoryArgs<'a> = FnArgs<(
    Function<'a, (), ()>,
    Function<'a, (), ()>,
    Function<'a, (), ()>,
    Function<'a, (), ()>,
    Function<'a, (), Option<Letter>>,
    Function<'a, (), ()>,
    Object<'a>,
    Unknown<'a>,
    String,
)>;

/// Where the glue's `mcpLoaded` finds the session core (created after the glue).
type CoreSlot = Arc<OnceLock<Weak<SessionCore>>>;
/// Starts a cell (exec or wait) for a call id and a responder.
pub(super) type StartFn =
    Box<dyn FnOnce(&Arc<SessionCore>, Option<String>, Responder) -> Option<Arc<Cell>>>;
/// A start deferred until MCP tools are loaded: taken once, by the first callback, on
/// the Node thread (so no `Send` is needed).
type DeferredStart = std::rc::Rc<std::cell::RefCell<Option<(StartFn, Responder)>>>;

/// A code-mode session: a catalog of host tools and the runs (cells) that call them.
#[napi(custom_finalize)]
pub struct CodeModeSession {
    core: Arc<SessionCore>,
    /// The glue's `emit`, when the session has an `onEvent` listener: run-status events
    /// are sent from the Node thread so they order with the promise they describe.
    emit: Option<Arc<FunctionRef<String, ()>>>,
    mailbox: Arc<Mailbox>,
    glue: Option<ObjectRef<false>>,
    session_id: String,
}

/// A result promise opened by the glue, with what settles it.
pub(super) struct Promised<'env> {
    pub responder: Responder,
    pub promise: Object<'env>,
    pub run: RunSlot,
    /// The promise's key in the glue and in the abort table.
    pub token: u32,
}

/// `open_call`'s outcome.
enum OpenCall<'env> {
    /// The promise is already answered: nothing to start.
    Answered(Object<'env>),
    /// The caller's call id and the open promise, its responder fitted to the budget.
    Ready(Option<String>, Promised<'env>),
}

fn invalid_input(message: &str) -> Error {
    Error::new(Status::InvalidArg, message.to_string())
}

pub(super) fn glue_fn<'env, Args: JsValuesTupleIntoVec, R: FromNapiValue>(
    glue: &Object<'env>,
    name: &str,
) -> Result<Function<'env, Args, R>> {
    glue.get_named_property(name)
}

impl CodeModeSession {
    /// Builds a session; `adjust` lets headless scripts read their own options through the
    /// glue and change the config first. `watch_tool_lists`: MCP servers' list_changed
    /// notifications refresh their tools (pointless for a one-shot script).
    pub(super) fn build(
        env: &Env,
        options: Unknown,
        watch_tool_lists: bool,
        adjust: impl FnOnce(&Object, &mut crate::session::core::SessionConfig) -> Result<()>,
    ) -> Result<Self> {
        let pending = Arc::new(PendingReplies::default());
        let core_slot: CoreSlot = Arc::default();
        let held: Held = Arc::default();
        let watches: Arc<AbortWatches> = Arc::default();
        let glue = create_glue(env, &pending, &core_slot, &held, &watches)?;
        let normalize: Function<Unknown, String> = glue_fn(&glue, "normalizeOptions")?;
        let normalized = normalize.call(options)?;
        let (mut config, events) = parse_options(&normalized).map_err(|e| invalid_input(&e))?;
        let redactor = match parse_redaction(&normalized) {
            Ok(redactor) => Arc::new(redactor),
            Err(message) => return Err(glue_fail(&glue, &message)),
        };
        install_redactor(env, &glue, &redactor)?;
        adjust(&glue, &mut config)?;
        let mailbox = Arc::new(Mailbox::new(
            wake_function(&glue, held)?,
            pending.clone(),
            watches,
        ));
        let host = JsHost::new(mailbox.clone(), pending, events);
        let session_id = config.scope.session_id.clone();
        let core = match SessionCore::with_redactor(config, Arc::new(host), redactor) {
            Ok(core) => core,
            Err(message) => return Err(glue_fail(&glue, &message)),
        };
        let _ = core_slot.set(Arc::downgrade(&core));
        glue_fn::<bool, ()>(&glue, "startMcp")?.call(watch_tool_lists)?;
        let emit = if events {
            Some(Arc::new(
                glue_fn::<String, ()>(&glue, "emit")?.create_ref()?,
            ))
        } else {
            None
        };
        Ok(CodeModeSession {
            core,
            emit,
            mailbox,
            glue: Some(glue.create_ref()?),
            session_id,
        })
    }

    /// Drops a session that never became a JS object (headless scripts): its glue stays
    /// alive only through what still uses it (the mailbox's wake-up, pending calls).
    pub(super) fn release(mut self, env: &Env) -> Result<()> {
        match self.glue.take() {
            Some(glue) => glue.unref(env),
            None => Ok(()),
        }
    }

    pub(super) fn core(&self) -> &Arc<SessionCore> {
        &self.core
    }

    /// An async method's misuse: a promise rejected with the documented `invalid_input`
    /// error, so `.catch()` sees it like any other failure of the call.
    fn reject_invalid<'env>(&self, env: &'env Env, message: &str) -> Result<Object<'env>> {
        let glue = self.glue(env)?;
        let rejected: Function<String, Object> = glue_fn(&glue, "rejected")?;
        rejected.call(message.to_string())
    }

    pub(super) fn glue<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        match &self.glue {
            Some(glue) => glue.get_value(env),
            None => Err(invalid_input(messages::SESSION_CLOSED)),
        }
    }

    /// A result promise (opened by the glue) and the responder that settles it from any
    /// thread through the session's mailbox. When events are on, the glue emits the run's
    /// final `run_status` just before the promise settles; the run id is known only once
    /// the cell exists, hence the slot.
    ///
    /// `owner` (the JS session object) is kept reachable until the promise settles: a
    /// session collected mid-run would be closed by its finalizer, aborting the run of a
    /// caller that still awaits it (`await new CodeModeSession(…).exec(…)`).
    pub(super) fn promised<'env>(
        &self,
        env: &'env Env,
        owner: Option<Object<'env>>,
    ) -> Result<Promised<'env>> {
        let run: RunSlot = Arc::default();
        let settle = Settle::new(&self.mailbox, run.clone());
        let token = settle.token();
        let open: Function<FnArgs<(u32, Option<Object>)>, Object> =
            glue_fn(&self.glue(env)?, "open")?;
        let promise = open.call(FnArgs::from((token, owner)))?;
        let responder: Responder = Box::new(move |outcome: Value| settle.send(&outcome));
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
    ) -> Result<OpenCall<'env>> {
        let call = self.read_call_options(env, options)?;
        let Promised {
            responder,
            promise,
            run,
            token,
        } = self.promised(env, Some(owner))?;
        let responder = match result_budget::parse_budget(call.result_budget_chars.as_ref()) {
            Ok(None) => responder,
            Ok(Some(chars)) => result_budget::fitting(&self.core, chars, responder),
            Err(error) => {
                responder(crate::run::result::early_failure(
                    &error,
                    self.core.telemetry(),
                ));
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

    /// The shared tail of exec and wait: `open_call`, then the `running` event and abort
    /// wiring around `start`.
    fn start_call<'env>(
        &self,
        env: &'env Env,
        owner: Object<'env>,
        options: Option<Unknown>,
        start: impl FnOnce(&Arc<SessionCore>, Option<String>, Responder) -> Option<Arc<Cell>>,
    ) -> Result<Object<'env>> {
        let (call_id, opened) = match self.open_call(env, owner, &options)? {
            OpenCall::Answered(promise) => return Ok(promise),
            OpenCall::Ready(call_id, opened) => (call_id, opened),
        };
        let cell = start(&self.core, call_id, opened.responder);
        self.emit_running(env, &cell, &opened.run)?;
        if let Some(cell) = &cell {
            self.watch_abort(env, &options, opened.token, AbortTarget::call(cell))?;
        }
        Ok(opened.promise)
    }

    /// Emits `run_status: running` for a cell that just started or resumed.
    fn emit_running(
        &self,
        env: &Env,
        cell: &Option<Arc<Cell>>,
        slot: &std::sync::OnceLock<String>,
    ) -> Result<()> {
        emit_running(&self.emit, env, cell, slot)
    }

    /// `start_call` for an exec that must wait for the MCP tools to load: the promise is
    /// returned now, the cell starts once they are.
    fn start_after_mcp<'env>(
        &self,
        env: &'env Env,
        owner: Object<'env>,
        options: Option<Unknown>,
        start: StartFn,
    ) -> Result<Object<'env>> {
        let (call_id, opened) = match self.open_call(env, owner, &options)? {
            OpenCall::Answered(promise) => return Ok(promise),
            OpenCall::Ready(call_id, opened) => (call_id, opened),
        };
        let Promised {
            responder,
            promise,
            run,
            token,
        } = opened;
        let start: StartFn = Box::new(move |core, _, responder| start(core, call_id, responder));
        self.defer_until_mcp(env, &options, token, Some(run), start, responder)?;
        Ok(promise)
    }

    /// Starts `start` from the glue's `afterMcp` callback, once the MCP tools are loaded.
    /// An abort (of `options`' signal, for the promise under `token`) that arrives before
    /// the cell exists is remembered and answered when the callback runs. With a run slot,
    /// the start emits `run_status: running`.
    pub(super) fn defer_until_mcp(
        &self,
        env: &Env,
        options: &Option<Unknown>,
        token: u32,
        run_slot: Option<RunSlot>,
        start: StartFn,
        responder: Responder,
    ) -> Result<()> {
        let gate: Arc<AbortGate> = Arc::default();
        self.watch_abort(env, options, token, AbortTarget::Gate(gate.clone()))?;
        let state: DeferredStart =
            std::rc::Rc::new(std::cell::RefCell::new(Some((start, responder))));
        let core = self.core.clone();
        let emit = self.emit.clone();
        let callback = env.create_function_from_closure("afterMcp", move |ctx| {
            let Some((start, responder)) = state.borrow_mut().take() else {
                return Ok(());
            };
            if gate.is_aborted() || core.is_closed() {
                let error = crate::error::CodeModeError::aborted();
                responder(crate::run::result::early_failure(&error, core.telemetry()));
                return Ok(());
            }
            let cell = start(&core, None, responder);
            if let Some(cell) = &cell {
                gate.attach(cell);
            }
            match &run_slot {
                Some(slot) => emit_running(&emit, ctx.env, &cell, slot),
                None => Ok(()),
            }
        })?;
        glue_fn::<Function<(), ()>, ()>(&self.glue(env)?, "afterMcp")?.call(callback)
    }

    /// Stops `target` when the call options' signal fires before the promise under
    /// `token` settles (the glue opened that promise, so it knows the token).
    pub(super) fn watch_abort(
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

    fn aborted_result(&self) -> Value {
        crate::run::result::early_failure(
            &crate::error::CodeModeError::aborted(),
            self.core.telemetry(),
        )
    }
}

#[napi]
impl CodeModeSession {
    /// Creates a session. Throws a TypeError with `err.code = "invalid_input"` and a
    /// message naming the field on invalid options.
    #[napi(constructor, ts_args_type = "options: CodeModeSessionOptions")]
    pub fn new(env: Env, options: Unknown) -> Result<Self> {
        Self::build(&env, options, true, |_, _| Ok(()))
    }

    /// The session id this session was created with.
    #[napi(getter)]
    pub fn session_id(&self) -> String {
        self.session_id.clone()
    }

    /// Runs a cell. Never rejects for guest, tool or limit problems: those are `failed` results.
    #[napi(
        ts_args_type = "input: CodeModeExecInput | unknown, options?: CallOptions",
        ts_return_type = "Promise<CodeModeResult>"
    )]
    pub fn exec<'env>(
        &self,
        env: &'env Env,
        this: This<'env>,
        input: Unknown,
        options: Option<Unknown>,
    ) -> Result<Object<'env>> {
        if self.core.is_closed() {
            return self.reject_invalid(env, messages::SESSION_CLOSED);
        }
        let glue = self.glue(env)?;
        let read_input: Function<Unknown, String> = glue_fn(&glue, "readExecInput")?;
        let raw = parse_exec_input(&read_input.call(input)?);
        if self.core.mcp_loading() {
            return self.start_after_mcp(
                env,
                this.object,
                options,
                Box::new(move |core, call_id, responder| core.exec(raw, call_id, responder)),
            );
        }
        self.start_call(env, this.object, options, |core, call_id, responder| {
            core.exec(raw, call_id, responder)
        })
    }

    /// Extension: resolves once the MCP servers' tools are loaded (at once without MCP
    /// servers), so `modelTools()` names unavailable servers. `exec` waits by itself.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn ready<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        self.after_glue(env, "afterMcp")
    }

    /// Extension: reloads every MCP server's tools (`listTools`, all pages); later cells
    /// see the new tools, running ones keep theirs.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn refresh_mcp<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        if self.core.is_closed() {
            return self.reject_invalid(env, messages::SESSION_CLOSED);
        }
        self.after_glue(env, "refreshMcp")
    }

    /// Resumes a `waiting` run created by this session's scope.
    #[napi(
        ts_args_type = "input: { runId: string } | unknown, options?: CallOptions",
        ts_return_type = "Promise<CodeModeResult>"
    )]
    pub fn wait<'env>(
        &self,
        env: &'env Env,
        this: This<'env>,
        input: Unknown,
        options: Option<Unknown>,
    ) -> Result<Object<'env>> {
        if self.core.is_closed() {
            return self.reject_invalid(env, messages::SESSION_CLOSED);
        }
        let glue = self.glue(env)?;
        let read_input: Function<Unknown, Option<String>> = glue_fn(&glue, "readWaitInput")?;
        let run_id = read_input.call(input)?;
        self.start_call(env, this.object, options, |core, _call_id, responder| {
            core.wait(run_id, responder)
        })
    }

    /// Appends tools. Client tool additions keep counterScope and counters; the
    /// description refreshes.
    #[napi(ts_args_type = "tools: ToolDefinition[]")]
    pub fn add_tools(&self, env: Env, tools: Unknown) -> Result<()> {
        let glue = self.glue(&env)?;
        let add: Function<Unknown, String> = glue_fn(&glue, "addTools")?;
        let specs = parse_tool_specs(&add.call(tools)?).map_err(|e| invalid_input(&e))?;
        self.core.add_tools(specs);
        Ok(())
    }

    /// `[exec, wait, ...directOnly tools]`: what the gateway sends to the model.
    /// Deterministic for equal catalogs.
    #[napi(ts_return_type = "Array<{ name: string; description: string; parameters: JsonSchema }>")]
    pub fn model_tools(&self) -> Value {
        self.core.model_tools()
    }

    /// Catalog counters and sizes (cumulative for the catalog lifetime).
    #[napi(ts_return_type = "CodeModeTelemetry")]
    pub fn telemetry(&self) -> Value {
        self.core.telemetry()
    }

    /// Cancels active cells and pending host work, drops this session's parked runs. Idempotent.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        self.mailbox.close();
        self.core.close();
        if let Ok(glue) = self.glue(env) {
            glue_fn::<(), ()>(&glue, "close")?.call(())?;
        }
        let (deferred, promise): (JsDeferred<(), _>, Object) = env.create_deferred()?;
        deferred.resolve(|_env| Ok(()));
        Ok(promise)
    }

    /// Extension: ids and ages of this session's parked runs.
    #[napi(
        ts_return_type = "Array<{ runId: string; reason: string; pending: number; parkedMs: number; bytes: number }>"
    )]
    pub fn runs(&self) -> Value {
        let runs: Vec<Value> = self
            .core
            .runs()
            .into_iter()
            .map(|r| {
                serde_json::json!({
                    "runId": r.run_id, "reason": r.reason, "pending": r.pending,
                    "parkedMs": r.parked_ms, "bytes": r.bytes,
                })
            })
            .collect();
        Value::Array(runs)
    }

    /// Extension: drops one parked run of this session; false if there is none by that id.
    #[napi]
    pub fn cancel_run(&self, run_id: String) -> bool {
        self.core.cancel_run(&run_id)
    }
}

impl CodeModeSession {
    /// A promise resolved when the glue's `method(callback)` calls back.
    fn after_glue<'env>(&self, env: &'env Env, method: &str) -> Result<Object<'env>> {
        let (deferred, promise): (JsDeferred<(), _>, Object) = env.create_deferred()?;
        let slot = Arc::new(parking_lot::Mutex::new(Some(deferred)));
        let callback = env.create_function_from_closure(method, move |_ctx| {
            if let Some(deferred) = slot.lock().take() {
                deferred.resolve(|_env| Ok(()));
            }
            Ok(())
        })?;
        glue_fn::<Function<(), ()>, ()>(&self.glue(env)?, method)?.call(callback)?;
        Ok(promise)
    }

    fn read_call_options(
        &self,
        env: &Env,
        options: &Option<Unknown>,
    ) -> Result<super::options::CallOptions> {
        let Some(options) = options else {
            return Ok(super::options::CallOptions::default());
        };
        let read: Function<Unknown, String> = glue_fn(&self.glue(env)?, "readCallOptions")?;
        Ok(parse_call_options(&read.call(*options)?))
    }
}

impl ObjectFinalize for CodeModeSession {
    fn finalize(mut self, env: Env) -> Result<()> {
        self.core.close();
        if let Some(glue) = self.glue.take() {
            glue.unref(&env)?;
        }
        Ok(())
    }
}

fn emit_running(
    emit: &Option<Arc<FunctionRef<String, ()>>>,
    env: &Env,
    cell: &Option<Arc<Cell>>,
    slot: &std::sync::OnceLock<String>,
) -> Result<()> {
    let (Some(emit), Some(cell)) = (emit, cell) else {
        return Ok(());
    };
    let _ = slot.set(cell.run_id.clone());
    let event =
        serde_json::json!({ "type": "run_status", "runId": cell.run_id, "status": "running" });
    emit.borrow_back(env)?.call(event.to_string())
}

/// The glue's `invalid_input` TypeError for `message` (so `err.code` is set).
fn glue_fail(glue: &Object, message: &str) -> Error {
    match glue_fn::<String, ()>(glue, "fail") {
        Ok(fail) => fail
            .call(message.to_string())
            .err()
            .unwrap_or_else(|| invalid_input(message)),
        Err(error) => error,
    }
}

/// Gives the glue the session's redaction for the previews it builds for events.
fn install_redactor(env: &Env, glue: &Object, redactor: &Arc<Redactor>) -> Result<()> {
    let redactor = redactor.clone();
    let redact = env.create_function_from_closure("redactPreview", move |ctx| {
        let text: String = ctx.get(0)?;
        Ok(preview(&redactor, &text))
    })?;
    let set: Function<Function<String, String>, ()> = glue_fn(glue, "setRedactor")?;
    set.call(redact)
}

/// Compiles the host glue and wires its Rust callbacks.
fn create_glue<'env>(
    env: &'env Env,
    pending: &Arc<PendingReplies>,
    core_slot: &CoreSlot,
    held: &Held,
    watches: &Arc<AbortWatches>,
) -> Result<Object<'env>> {
    let factory: Function<GlueFactoryArgs, Object> = env.run_script(HOST_GLUE)?;
    let done_pending = pending.clone();
    let done = env.create_function_from_closure("done", move |ctx| {
        let token: u32 = ctx.get(0)?;
        let ok: bool = ctx.get(1)?;
        let text: String = ctx.get(2)?;
        done_pending.complete(token, ok, text);
        Ok(())
    })?;
    let pause_pending = pending.clone();
    let pause = env.create_function_from_closure("pauseBudget", move |ctx| {
        pause_pending.pause(ctx.get(0)?);
        Ok(())
    })?;
    let resume_pending = pending.clone();
    let resume = env.create_function_from_closure("resumeBudget", move |ctx| {
        resume_pending.resume(ctx.get(0)?);
        Ok(())
    })?;
    let slot = core_slot.clone();
    let mcp_loaded = env.create_function_from_closure("mcpLoaded", move |ctx| {
        let report: String = ctx.get(0)?;
        if let Some(core) = slot.get().and_then(Weak::upgrade) {
            let report: Value = serde_json::from_str(&report).unwrap_or(Value::Null);
            core.set_mcp(&report);
        }
        Ok(())
    })?;
    let held = held.clone();
    let take =
        env.create_function_from_closure("take", move |_ctx| Ok(Mailbox::take_held(&held)))?;
    let watches = watches.clone();
    let abort = env.create_function_from_closure("abort", move |ctx| {
        watches.fire(ctx.get(0)?);
        Ok(())
    })?;
    let watch_tool_list: Unknown = env.run_script(MCP_WATCH)?;
    factory.call(FnArgs::from((
        done,
        pause,
        resume,
        mcp_loaded,
        take,
        abort,
        super::scheduler::shared(env)?,
        watch_tool_list,
        crate::limits::glue_limits().to_string(),
    )))
}

/// The glue's `wake()` as a weak threadsafe function: the mailbox's only way into Node.
fn wake_function(glue: &Object, held: Held) -> Result<WakeFn> {
    let wake: Function<(), ()> = glue_fn(glue, "wake")?;
    wake.build_threadsafe_function::<Arc<Mailbox>>()
        .weak::<true>()
        .callee_handled::<false>()
        .build_callback(move |ctx| {
            *held.lock() = Some(ctx.value);
            Ok(())
        })
}
