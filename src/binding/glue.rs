//! The session's host glue on the Node thread: the JS modules compiled into one script,
//! and the Rust callbacks it is wired with (replies, budget pauses, MCP reports, the
//! mailbox's wake-up and abort signals).

use super::mailbox::{Held, Letter, Mailbox, WakeFn};
use super::pending::PendingReplies;
use crate::error::ErrorCode;
use crate::run::nested_calls::preview;
use crate::run::protocol::Suspension;
use crate::session::abort_watch::AbortWatches;
use crate::session::core::SessionCore;
use crate::source::redact::Redactor;
use napi::bindgen_prelude::*;
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
    ",\nsignals: ",
    include_str!("glue/signals.js"),
    ",\nredaction: ",
    include_str!("glue/redaction.js"),
    ",\ntelemetry: ",
    include_str!("glue/telemetry.js"),
    ",\ndurable: ",
    include_str!("glue/durable.js"),
    ",\ndurableRuns: ",
    include_str!("glue/durable_runs.js"),
    ",\nexternal: ",
    include_str!("glue/external.js"),
    "})"
);
/// `redactionAsText(options)`: RegExp patterns as Rust regex text.
/// Also compiled on its own for `redactSource`.
pub(super) const REDACTION_GLUE: &str = include_str!("glue/redaction.js");
const MCP_WATCH: &str = include_str!("glue/mcp_watch.js");

/// `createHost(done, pauseBudget, resumeBudget, mcpLoaded, take, abort, scheduler,
/// watchToolList, limits, suspendCall)`; `limits` is `limits::glue_limits()` as JSON text.
type GlueFactoryArgs<'a> = FnArgs<(
    Function<'a, (), ()>,
    Function<'a, (), ()>,
    Function<'a, (), ()>,
    Function<'a, (), Option<String>>,
    Function<'a, (), Option<Letter>>,
    Function<'a, (), ()>,
    Object<'a>,
    Unknown<'a>,
    String,
    Function<'a, (), Either<bool, String>>,
)>;

/// Where the glue's `mcpLoaded` finds the session core (created after the glue).
pub(super) type CoreSlot = Arc<OnceLock<Weak<SessionCore>>>;
pub(super) fn glue_fn<'env, Args: JsValuesTupleIntoVec, R: FromNapiValue>(
    glue: &Object<'env>,
    name: &str,
) -> Result<Function<'env, Args, R>> {
    glue.get_named_property(name)
}

/// The glue's `invalid_input` TypeError for `message` (so `err.code` is set).
/// Throws an `Error` with the documented `code` and `message` through the glue.
pub(super) fn glue_fail_with(glue: &Object, code: ErrorCode, message: &str) -> Error {
    match glue_fn::<FnArgs<(&str, String)>, ()>(glue, "failWith") {
        Ok(fail) => fail
            .call((code.as_str(), message.to_string()).into())
            .err()
            .unwrap_or_else(|| invalid_input(message)),
        Err(error) => error,
    }
}

pub(super) fn glue_fail(glue: &Object, message: &str) -> Error {
    match glue_fn::<String, ()>(glue, "fail") {
        Ok(fail) => fail
            .call(message.to_string())
            .err()
            .unwrap_or_else(|| invalid_input(message)),
        Err(error) => error,
    }
}

/// Gives the glue the session's redaction for the previews it builds for events.
pub(super) fn install_redactor(env: &Env, glue: &Object, redactor: &Arc<Redactor>) -> Result<()> {
    let redactor = redactor.clone();
    let redact = env.create_function_from_closure("redactPreview", move |ctx| {
        let text: String = ctx.get(0)?;
        Ok(preview(&redactor, &text))
    })?;
    let set: Function<Function<String, String>, ()> = glue_fn(glue, "setRedactor")?;
    set.call(redact)
}

/// Compiles the host glue and wires its Rust callbacks.
pub(super) fn create_glue<'env>(
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
    let suspend_pending = pending.clone();
    // `suspendCall(token, payloadJson)`: the tool behind `token` called `ctx.suspend`.
    // Answers true (parked), false (its run ended) or the refusal's message.
    let suspend = env.create_function_from_closure("suspendCall", move |ctx| {
        Ok(match suspend_pending.suspend(ctx.get(0)?, ctx.get(1)?) {
            Suspension::Parked => Either::A(true),
            Suspension::RunEnded => Either::A(false),
            Suspension::Refused(message) => Either::B(message),
        })
    })?;
    let slot = core_slot.clone();
    // Answers with the catalog's renamed tools (`renamed_json`), for the glue's `names` event.
    let mcp_loaded = env.create_function_from_closure("mcpLoaded", move |ctx| {
        let report: String = ctx.get(0)?;
        Ok(slot.get().and_then(Weak::upgrade).map(|core| {
            let report: Value = serde_json::from_str(&report).unwrap_or(Value::Null);
            core.set_mcp(&report);
            renamed_json(&core)
        }))
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
        suspend,
    )))
}

/// The renamed tools as JSON `[{ toolName, callableName, server? }, …]`, what the glue's
/// `reportNames` takes: host tools (as `session.names()` lists them), then MCP tools whose
/// `MCP.<server>.<tool>` path differs from their server's or their own name.
pub(super) fn renamed_json(core: &SessionCore) -> String {
    let host = core
        .renamed_tools()
        .into_iter()
        .map(|(tool, callable)| serde_json::json!({ "toolName": tool, "callableName": callable }));
    let mcp = core.renamed_mcp_tools().into_iter().map(|(server, tool, path)| {
        serde_json::json!({ "toolName": tool, "callableName": path, "server": server })
    });
    Value::Array(host.chain(mcp).collect()).to_string()
}

/// Hands the glue the catalog's renamed tools; it reports each new rename once through
/// `onEvent` (a `names` event).
pub(super) fn report_names(glue: &Object, core: &SessionCore) -> Result<()> {
    glue_fn::<String, ()>(glue, "reportNames")?.call(renamed_json(core))
}

/// The glue's `wake()` as a weak threadsafe function: the mailbox's only way into Node.
pub(super) fn wake_function(glue: &Object, held: Held) -> Result<WakeFn> {
    let wake: Function<(), ()> = glue_fn(glue, "wake")?;
    wake.build_threadsafe_function::<Arc<Mailbox>>()
        .weak::<true>()
        .callee_handled::<false>()
        .build_callback(move |ctx| {
            *held.lock() = Some(ctx.value);
            Ok(())
        })
}

fn invalid_input(message: &str) -> Error {
    Error::new(Status::InvalidArg, message.to_string())
}
