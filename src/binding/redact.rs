//! `redactSource`: a thin conversion around `crate::source::redact`.

use super::errors::{internal, invalid, plain_json, thrown, Code};
use super::glue::REDACTION_GLUE;
use crate::runtime::bounded;
use crate::source::redact::Redactor;
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Masks credential literals in JS/TS source for session history: string literals
/// assigned to credential-named bindings or properties, recognisable tokens (`sk-…`,
/// `ghp_…`, `xox…-`, `AKIA…`, JWTs, PEM private keys), registered `secrets` and
/// `patterns` (RegExp objects, or strings in Rust regex syntax). Masks are `[REDACTED]`
/// inside the original quotes, so redacting twice is stable. Unparsable source gets the
/// token and pattern masks only. Throws (`code: "invalid_input"`) for an invalid pattern or option.
#[napi(
    ts_args_type = "code: string, options?: { secrets?: string[]; patterns?: Array<string | RegExp> }",
    ts_return_type = "string"
)]
pub fn redact_source(env: Env, code: Unknown, options: Option<Unknown>) -> Result<String, Code> {
    if code.get_type().map_err(internal)? != ValueType::String {
        return Err(invalid("code must be a string."));
    }
    // SAFETY: the type was checked just above.
    let code: String = unsafe { code.cast() }.map_err(internal)?;
    let options = match options {
        Some(options) => plain_json(&env, redaction_as_text(&env, options).map_err(internal)?)
            .map_err(internal)?
            .map_err(|e| invalid(format!("options must be plain JSON: {e}")))?,
        None => None,
    };
    let redactor = Redactor::from_json(options.as_ref(), "options").map_err(thrown)?;
    // The literal layer parses the source: off the Node thread and within a budget, else
    // the text layers alone, as for source that does not parse.
    let shared = std::sync::Arc::new(code);
    let parsed = shared.clone();
    let literals = bounded::run(bounded::BUDGET, move || {
        crate::source::redact::credential_literal_spans(&parsed)
    });
    Ok(redactor.redact_source_with(&shared, literals.ok().flatten()))
}

/// `options` with RegExp patterns as Rust regex text (`glue/redaction.js`, which the
/// session's `redaction` option goes through too).
fn redaction_as_text<'env>(env: &'env Env, options: Unknown<'env>) -> Result<Unknown<'env>> {
    let convert: Function<Unknown, Unknown> = env.run_script(REDACTION_GLUE)?;
    convert.call(options)
}
