//! `session.resolveCall(...)`: the glue checks the input's shape and turns the value into
//! JSON; the session core records the outcome. Answers a promise, so a durable store can
//! later sit behind it without changing the signature.

use super::super::glue::glue_fn;
use super::CodeModeSession;
use crate::error::messages;
use napi::bindgen_prelude::*;
use napi::JsDeferred;
use napi_derive::napi;

#[napi]
impl CodeModeSession {
    /// Settles an external call (its tool called `ctx.suspend(payload)`) of a run of this
    /// session's scope with `value`, or with `error: { message }`; the next `wait` (or the
    /// call in flight) delivers it to the guest. Answers `"resolved"` the first time and
    /// `"already_resolved"` after; rejects with `invalid_input` on a bad input, an unknown
    /// or foreign run, an unknown call, or a call that is not external.
    #[napi(
        ts_args_type = "input: ResolveCallInput",
        ts_return_type = "Promise<ResolveCallAnswer>"
    )]
    pub fn resolve_call<'env>(&self, env: &'env Env, input: Unknown) -> Result<Object<'env>> {
        if self.core.is_closed() {
            return self.reject_invalid(env, messages::SESSION_CLOSED);
        }
        let glue = self.glue(env)?;
        let read: Function<Unknown, Object> = glue_fn(&glue, "readResolveInput")?;
        let read = read.call(input)?;
        if let Some(message) = read.get_named_property::<Option<String>>("refused")? {
            return self.reject_invalid(env, &message);
        }
        if self.core.is_durable() {
            let resolve: Function<Object, Object> = glue_fn(&glue, "durableResolve")?;
            return resolve.call(read);
        }
        let run_id: String = read.get_named_property("runId")?;
        let call_id: String = read.get_named_property("callId")?;
        let ok: bool = read.get_named_property("ok")?;
        let text: String = read.get_named_property("text")?;
        let outcome = crate::run::state::external::resolved_outcome(ok, text);
        match self.core.resolve_call(&run_id, &call_id, outcome) {
            Ok(resolution) => {
                let (deferred, promise): (JsDeferred<String, _>, Object) = env.create_deferred()?;
                let answer = resolution.as_str().to_string();
                deferred.resolve(move |_env| Ok(answer));
                Ok(promise)
            }
            Err(error) => self.reject_invalid(env, &error.message),
        }
    }
}
