//! Errors thrown by the free gateway helpers: a JS `Error` whose `code` is one of the
//! documented error codes (napi sets `err.code` from the status string).

use crate::error::{CodeModeError, ErrorCode};
use napi::bindgen_prelude::*;
use serde_json::Value;

/// The `code` of a thrown error.
pub struct Code(&'static str);

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.0
    }
}

/// A thrown error carrying the documented code of `error`.
pub fn thrown(error: CodeModeError) -> Error<Code> {
    Error::new(Code(error.code.as_str()), error.message)
}

pub fn invalid(message: impl Into<String>) -> Error<Code> {
    Error::new(Code(ErrorCode::InvalidInput.as_str()), message.into())
}

/// A napi failure (the environment itself) as an `internal_error`.
pub fn internal(error: Error) -> Error<Code> {
    Error::new(
        Code(ErrorCode::InternalError.as_str()),
        error.reason.clone(),
    )
}

/// A JS value as JSON, the way `JSON.stringify` sees it: `undefined` (and functions or
/// symbols) read as absent, `undefined`/function properties are dropped. `Err` holds
/// the message of a throwing conversion (a cycle, a BigInt, a throwing `toJSON`).
pub fn plain_json(env: &Env, value: Unknown) -> Result<std::result::Result<Option<Value>, String>> {
    let json: Object = env.get_global()?.get_named_property("JSON")?;
    let stringify: Function<Unknown, Unknown> = json.get_named_property("stringify")?;
    let text = match stringify.call(value) {
        Ok(text) => text,
        Err(error) => return Ok(Err(error.reason.clone())),
    };
    if text.get_type()? != ValueType::String {
        return Ok(Ok(None));
    }
    // SAFETY: the type was checked just above.
    let text: String = unsafe { text.cast()? };
    Ok(serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| e.to_string()))
}
