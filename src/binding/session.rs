//! `CodeModeSession`: converts JS arguments through the session's glue, hands them to the
//! engine's `SessionCore`, and resolves promises with the engine's JSON results.

mod calls;
mod durable;
mod resolve;

pub(super) use calls::CallKind;

use super::glue::{
    create_glue, glue_fail, glue_fail_with, glue_fn, install_redactor, report_names, wake_function,
    CoreSlot,
};
use super::js_host::JsHost;
use super::mailbox::{Held, Mailbox, RunSlot};
use super::options::{
    parse_call_options, parse_exec_input, parse_options, parse_redaction, parse_tool_specs,
};
use super::pending::PendingReplies;
use crate::error::messages;

use crate::run::result::Delivery;
use crate::session::abort_watch::AbortWatches;
use crate::session::core::SessionCore;
use napi::bindgen_prelude::*;
use napi::JsDeferred;
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;

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

/// A result promise opened by the glue, with what settles it: a [`Delivery`] of JSON until
/// `open_call` fits it to the call's budget as a [`Responder`].
pub(super) struct Promised<'env, R = Delivery> {
    pub responder: R,
    pub promise: Object<'env>,
    pub run: RunSlot,
    /// The promise's key in the glue and in the abort table.
    pub token: u32,
}

fn invalid_input(message: &str) -> Error {
    Error::new(Status::InvalidArg, message.to_string())
}

impl CodeModeSession {
    /// Builds a session; `adjust` lets headless scripts read their own options through the
    /// glue and change the config first. `script`: a one-shot headless script, whose
    /// options take the script's keys too and whose MCP servers' list_changed
    /// notifications are not watched (pointless for one run).
    pub(super) fn build(
        env: &Env,
        options: Unknown,
        script: bool,
        adjust: impl FnOnce(&Object, &mut crate::session::core::SessionConfig) -> Result<()>,
    ) -> Result<Self> {
        let pending = Arc::new(PendingReplies::default());
        let core_slot: CoreSlot = Arc::default();
        let held: Held = Arc::default();
        let watches: Arc<AbortWatches> = Arc::default();
        let glue = create_glue(env, &pending, &core_slot, &held, &watches)?;
        let normalize: Function<FnArgs<(Unknown, bool)>, String> =
            glue_fn(&glue, "normalizeOptions")?;
        let normalized = normalize.call((options, script).into())?;
        let (mut config, events) = parse_options(&normalized).map_err(|e| glue_fail(&glue, &e))?;
        let redactor = match parse_redaction(&normalized) {
            Ok(redactor) => Arc::new(redactor),
            Err(message) => return Err(glue_fail(&glue, &message)),
        };
        install_redactor(env, &glue, &redactor)?;
        adjust(&glue, &mut config)?;
        // A missing sandbox executable is a broken install, not a busy runtime: said once,
        // here, with the fix, rather than at every cell.
        if config.isolation == crate::sandbox::isolation::Isolation::Process
            && crate::sandbox::isolation::Isolation::process_supported()
        {
            if let Err(message) = crate::sandbox::locate::executable() {
                let code = crate::error::ErrorCode::RuntimeUnavailable;
                return Err(glue_fail_with(&glue, code, &message));
            }
        }
        let mailbox = Arc::new(Mailbox::new(
            wake_function(&glue, held.clone())?,
            pending.clone(),
            watches,
        ));
        // Only a sandbox's frames, served on this thread, post to it while Node runs.
        if config.isolation == crate::sandbox::isolation::Isolation::Process {
            let wake: Unknown = glue.get_named_property("wake")?;
            super::direct_wake::register(env, &mailbox, held, wake.raw());
        }
        let host = JsHost::new(mailbox.clone(), pending, events);
        let session_id = config.scope.session_id.clone();
        let core = match SessionCore::with_redactor(config, Arc::new(host), redactor) {
            Ok(core) => core,
            Err(message) => return Err(glue_fail(&glue, &message)),
        };
        let _ = core_slot.set(Arc::downgrade(&core));
        match super::durable::sealer_of(&normalized) {
            Ok(Some(sealer)) => super::durable::install(env, &glue, &core, sealer)?,
            Ok(None) => {}
            Err(message) => return Err(glue_fail(&glue, &message)),
        }
        report_names(&glue, &core)?;
        glue_fn::<bool, ()>(&glue, "startMcp")?.call(!script)?;
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

    pub(super) fn glue<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        match &self.glue {
            Some(glue) => glue.get_value(env),
            None => Err(invalid_input(messages::SESSION_CLOSED)),
        }
    }
}

#[napi]
impl CodeModeSession {
    /// Creates a session. Throws a TypeError with `err.code = "invalid_input"` and a
    /// message naming the field on invalid options.
    #[napi(constructor, ts_args_type = "options: CodeModeSessionOptions")]
    pub fn new(env: Env, options: Unknown) -> Result<Self> {
        Self::build(&env, options, false, |_, _| Ok(()))
    }

    /// The session id this session was created with.
    #[napi(getter)]
    pub fn session_id(&self) -> String {
        self.session_id.clone()
    }

    /// Runs a cell. Never rejects for guest, tool or limit problems: those are `failed` results.
    #[napi(
        ts_args_type = "input: CodeModeExecInput, options?: CallOptions",
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
        self.start_call(
            env,
            this.object,
            options,
            CallKind::Exec,
            |core, call_id, responder, on_start| core.start_exec(raw, call_id, responder, on_start),
        )
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
        ts_args_type = "input: CodeModeWaitInput, options?: CallOptions",
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
        if let Some(run) = run_id.as_deref().filter(|_| self.core.is_durable()) {
            if let Some(answered) = self.durable_wait(env, &this, input, &options, run)? {
                return Ok(answered);
            }
        }
        let kind = CallKind::Wait(run_id.clone());
        self.start_call(
            env,
            this.object,
            options,
            kind,
            |core, _call_id, responder, _| core.wait(run_id, responder).into(),
        )
    }

    /// Appends tools. Client tool additions keep counterScope and counters; the
    /// description refreshes.
    #[napi(ts_args_type = "tools: ToolDefinition[]")]
    pub fn add_tools(&self, env: Env, tools: Unknown) -> Result<()> {
        let glue = self.glue(&env)?;
        if self.core.is_closed() {
            return Err(glue_fail(&glue, messages::SESSION_CLOSED));
        }
        let add: Function<Unknown, Object> = glue_fn(&glue, "addTools")?;
        let added = add.call(tools)?;
        let text: String = added.get_named_property("text")?;
        let specs = parse_tool_specs(&text).map_err(|e| glue_fail(&glue, &e))?;
        // The glue registers the definitions only now, so a refused batch leaves the host
        // indices as they were.
        added
            .get_named_property::<Function<(), ()>>("commit")?
            .call(())?;
        self.core.add_tools(specs);
        report_names(&glue, &self.core)
    }

    /// `[exec, wait, ...directOnly tools]`: what the gateway sends to the model.
    /// Deterministic for equal catalogs. With `strict: true`, `exec` and `wait` take the
    /// OpenAI strict function-calling form (every property required, optional ones
    /// nullable) and are marked `strict: true`; exec reads `null` as absent.
    #[napi(
        ts_args_type = "options?: ModelToolsOptions",
        ts_return_type = "ModelToolDefinition[]"
    )]
    pub fn model_tools(&self, env: Env, options: Option<Object>) -> Result<Value> {
        let tools = self.core.model_tools();
        let strict = match options {
            None => false,
            Some(options) => {
                let strict: Unknown = options.get_named_property("strict")?;
                match strict.get_type()? {
                    ValueType::Undefined | ValueType::Null => false,
                    ValueType::Boolean => strict.coerce_to_bool()?,
                    _ => {
                        return Err(glue_fail(
                            &self.glue(&env)?,
                            "modelTools options.strict must be a boolean",
                        ))
                    }
                }
            }
        };
        Ok(if strict {
            crate::catalog::strict_schema::strict_model_tools(tools)
        } else {
            tools
        })
    }

    /// The tools whose name the guest calls differs from their own (`web-search` becomes
    /// `web_search`, a keyword or a clash gets a suffix): tool name to callable name.
    #[napi(ts_return_type = "{ [toolName: string]: string }")]
    pub fn names(&self) -> Value {
        let renamed = self.core.renamed_tools().into_iter();
        Value::Object(
            renamed
                .map(|(tool, callable)| (tool, Value::from(callable)))
                .collect(),
        )
    }

    /// The direct-only tool definitions this session holds, as they were passed (with their
    /// `execute`): what a framework adapter runs when the model calls one of them.
    #[napi(ts_return_type = "ToolDefinition[]")]
    pub fn direct_only_tools<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        let glue = self.glue(env)?;
        glue_fn::<(), Unknown>(&glue, "directOnlyTools")?.call(())
    }

    /// Catalog counters and sizes (cumulative for the catalog lifetime).
    #[napi(ts_return_type = "CodeModeTelemetry")]
    pub fn telemetry(&self) -> Value {
        self.core.telemetry().into_value()
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
    /// A durable run's record is deleted too (in the background), so no process resumes it.
    #[napi]
    pub fn cancel_run(&self, env: Env, run_id: String) -> Result<bool> {
        let version = crate::session::durable::version_of(&run_id);
        let cancelled = self.core.cancel_run(&run_id);
        if let (true, Some(version)) = (cancelled && self.core.is_durable(), version) {
            let glue = self.glue(&env)?;
            glue_fn::<FnArgs<(String, f64)>, ()>(&glue, "durableCancelled")?
                .call(FnArgs::from((run_id, version as f64)))?;
        }
        Ok(cancelled)
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
