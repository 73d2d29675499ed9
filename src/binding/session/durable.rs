//! A durable session's `wait`: the store's side (claim the run, or adopt it from its
//! record) runs in the glue first, then the same `wait` again, which finds it done.

use super::super::glue::glue_fn;
use super::{CallKind, CodeModeSession};
use crate::error::{CodeModeError, ErrorCode};
use crate::session::pending_starts::CallStart;
use napi::bindgen_prelude::*;

/// `glue.durableWait(owner, input, options, runId)`.
type DurableWaitArgs<'a, 'b> = FnArgs<(Object<'a>, Unknown<'b>, Option<Unknown<'b>>, String)>;

impl CodeModeSession {
    /// The promise of a wait whose store work is not done yet (the glue's, which calls
    /// `wait` again once it is), or of one the store refused; `None` to go on as any wait.
    pub(super) fn durable_wait<'env, 'arg>(
        &self,
        env: &'env Env,
        this: &This<'env>,
        input: Unknown<'arg>,
        options: &Option<Unknown<'arg>>,
        run_id: &str,
    ) -> Result<Option<Object<'env>>> {
        let glue = self.glue(env)?;
        match durable_prepared(&glue, run_id)? {
            None => {
                let wait: Function<DurableWaitArgs, Object> = glue_fn(&glue, "durableWait")?;
                let args = (this.object, input, *options, run_id.to_string());
                wait.call(FnArgs::from(args)).map(Some)
            }
            Some(Some(refused)) => {
                let kind = CallKind::Wait(Some(run_id.to_string()));
                let answered =
                    self.start_call(env, this.object, *options, kind, |core, _, responder, _| {
                        responder(crate::run::result::early_failure(
                            &refused,
                            core.telemetry(),
                        ));
                        CallStart::Answered
                    })?;
                Ok(Some(answered))
            }
            Some(None) => Ok(None),
        }
    }
}

/// `glue.durablePrepared(runId)`: `None` when the store work of this wait has not been
/// done yet, else whether it refused the wait (with the error to answer).
fn durable_prepared(glue: &Object, run_id: &str) -> Result<Option<Option<CodeModeError>>> {
    let prepared: Function<String, Unknown> = glue_fn(glue, "durablePrepared")?;
    let answer = prepared.call(run_id.to_string())?;
    Ok(match answer.get_type()? {
        ValueType::Undefined => None,
        ValueType::Object => {
            // SAFETY: the value's type was just checked to be an object.
            let refusal: Object = unsafe { answer.cast()? };
            let code: String = refusal.get_named_property("code")?;
            let message: String = refusal.get_named_property("message")?;
            let code = ErrorCode::parse(&code).unwrap_or(ErrorCode::StoreUnavailable);
            Some(Some(CodeModeError::new(code, message)))
        }
        _ => Some(None),
    })
}
