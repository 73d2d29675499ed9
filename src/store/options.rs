//! The JSON options of the run-store API, checked with the messages docs/durable-runs.md
//! lists: `put`'s `{ expectVersion, ttlSeconds }` and `sqliteRunStore`'s options.

use super::sqlite::SqliteOptions;
use super::{check_ttl, MAX_RECORD_BYTES_RANGE};
use crate::error::CodeModeError;
use serde_json::{Map, Value};
use std::time::Duration;

/// `ttlSeconds` when a put names none: one day.
pub const DEFAULT_TTL_SECONDS: u64 = 86_400;
/// The longest `busyTimeoutMs`: ten minutes.
pub const MAX_BUSY_TIMEOUT_MS: u64 = 600_000;
/// Versions travel as JS numbers: integers up to 2^53 - 1 stay exact.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// What one `put` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PutOptions {
    /// `None`: create-only.
    pub expect_version: Option<u64>,
    pub ttl_seconds: u64,
}

/// `put`'s options: `expectVersion` (null or absent: create-only) and `ttlSeconds`.
pub fn put_options(options: Option<&Value>) -> Result<PutOptions, CodeModeError> {
    let fields = object(options, "put options", &["expectVersion", "ttlSeconds"])?;
    let expect_version = match fields.and_then(|f| f.get("expectVersion")) {
        None | Some(Value::Null) => None,
        Some(v) => Some(version(Some(v), "expectVersion")?),
    };
    let ttl_seconds = match fields.and_then(|f| f.get("ttlSeconds")) {
        None | Some(Value::Null) => DEFAULT_TTL_SECONDS,
        Some(v) => {
            let ttl = v.as_u64().unwrap_or(0);
            check_ttl(ttl)?;
            ttl
        }
    };
    Ok(PutOptions {
        expect_version,
        ttl_seconds,
    })
}

/// `delete`'s optional `expectVersion`.
pub fn delete_version(value: Option<&Value>) -> Result<Option<u64>, CodeModeError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => version(Some(v), "expectVersion").map(Some),
    }
}

/// `sqliteRunStore`'s options: `busyTimeoutMs` and `maxRecordBytes`.
pub fn sqlite_options(options: Option<&Value>) -> Result<SqliteOptions, CodeModeError> {
    let fields = object(
        options,
        "sqliteRunStore options",
        &["busyTimeoutMs", "maxRecordBytes"],
    )?;
    let mut result = SqliteOptions::default();
    if let Some(v) = fields
        .and_then(|f| f.get("busyTimeoutMs"))
        .filter(|v| !v.is_null())
    {
        let ms = integer_in(v, 0, MAX_BUSY_TIMEOUT_MS, "busyTimeoutMs")?;
        result.busy_timeout = Duration::from_millis(ms);
    }
    if let Some(v) = fields
        .and_then(|f| f.get("maxRecordBytes"))
        .filter(|v| !v.is_null())
    {
        let (min, max) = MAX_RECORD_BYTES_RANGE;
        result.max_record_bytes = integer_in(v, min, max, "maxRecordBytes")?;
    }
    Ok(result)
}

fn object<'a>(
    value: Option<&'a Value>,
    what: &str,
    keys: &[&str],
) -> Result<Option<&'a Map<String, Value>>, CodeModeError> {
    let fields = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(fields)) => fields,
        Some(_) => {
            return Err(CodeModeError::invalid_input(format!(
                "{what} must be an object."
            )))
        }
    };
    if let Some(unknown) = fields.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(CodeModeError::invalid_input(format!(
            "{unknown} is not an option of {what}; the options are {}.",
            keys.join(", ")
        )));
    }
    Ok(Some(fields))
}

fn version(value: Option<&Value>, name: &str) -> Result<u64, CodeModeError> {
    integer_in(value.unwrap_or(&Value::Null), 1, MAX_SAFE_INTEGER, name)
}

fn integer_in(value: &Value, min: u64, max: u64, name: &str) -> Result<u64, CodeModeError> {
    match value.as_u64() {
        Some(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(CodeModeError::invalid_input(format!(
            "{name} must be an integer from {min} to {max}."
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn put_options_default_to_create_only_for_a_day() {
        let none = PutOptions {
            expect_version: None,
            ttl_seconds: DEFAULT_TTL_SECONDS,
        };
        assert_eq!(put_options(None).unwrap(), none);
        assert_eq!(
            put_options(Some(&json!({ "expectVersion": null }))).unwrap(),
            none
        );
        let cas = put_options(Some(&json!({ "expectVersion": 4, "ttlSeconds": 1 }))).unwrap();
        assert_eq!(
            cas,
            PutOptions {
                expect_version: Some(4),
                ttl_seconds: 1
            }
        );
    }

    #[test]
    fn bad_options_name_the_field() {
        let message = |v: Value| put_options(Some(&v)).unwrap_err().message;
        assert_eq!(
            message(json!({ "expectVersion": 0 })),
            format!("expectVersion must be an integer from 1 to {MAX_SAFE_INTEGER}.")
        );
        assert_eq!(
            message(json!({ "expectVersion": 1.5 })),
            format!("expectVersion must be an integer from 1 to {MAX_SAFE_INTEGER}.")
        );
        assert_eq!(
            message(json!({ "ttl": 1 })),
            "ttl is not an option of put options; the options are expectVersion, ttlSeconds."
        );
        assert_eq!(
            message(json!({ "ttlSeconds": -1 })),
            "ttlSeconds must be an integer from 1 to 31536000."
        );
        assert_eq!(message(json!(3)), "put options must be an object.");
        let sqlite = sqlite_options(Some(&json!({ "maxRecordBytes": 10 }))).unwrap_err();
        assert_eq!(
            sqlite.message,
            "maxRecordBytes must be an integer from 1024 to 268435456."
        );
    }

    #[test]
    fn sqlite_options_are_read() {
        let o = sqlite_options(Some(
            &json!({ "busyTimeoutMs": 250, "maxRecordBytes": 2048 }),
        ))
        .unwrap();
        assert_eq!(
            (o.busy_timeout, o.max_record_bytes),
            (Duration::from_millis(250), 2048)
        );
    }
}
