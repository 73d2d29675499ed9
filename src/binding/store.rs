//! `sqliteRunStore(path, options?)`: the embedded run store as a JS object. Every operation
//! runs on libuv's thread pool (an `AsyncTask`): the Node thread never waits on the file.
//! Failures reject with an `Error` whose `code` is documented (docs/durable-runs.md).

use super::errors::{invalid, plain_json, thrown, Code};
use crate::error::CodeModeError;
use crate::store::options::{delete_version, put_options, sqlite_options};
use crate::store::sqlite::SqliteStore;
use crate::store::{PutOutcome, StoredRecord};
use napi::bindgen_prelude::*;
use napi::{JsError, Task};
use napi_derive::napi;
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// A run record as a store returns it.
#[napi(object)]
pub struct RunStoreRecord {
    pub version: f64,
    pub bytes: Buffer,
}

/// What a put did: `{ ok: true, version }` or `{ ok: false, current }`.
#[napi(object)]
pub struct RunStorePutReply {
    pub ok: bool,
    pub version: Option<f64>,
    pub current: Option<Either<f64, Null>>,
}

/// The embedded run store: one SQLite file (WAL) that several processes may share.
#[napi]
pub struct SqliteRunStore {
    store: Arc<SqliteStore>,
}

/// Opens (on first use) the SQLite run store at `path`; see docs/durable-runs.md.
#[napi(ts_args_type = "path: string, options?: SqliteRunStoreOptions")]
pub fn sqlite_run_store(
    env: Env,
    path: Unknown,
    options: Option<Unknown>,
) -> std::result::Result<SqliteRunStore, Error<Code>> {
    let path = match path.get_type() {
        Ok(ValueType::String) => {
            // SAFETY: the type was checked just above.
            unsafe { path.cast::<String>() }.map_err(|e| invalid(e.reason))?
        }
        _ => String::new(),
    };
    if path.is_empty() {
        return Err(invalid("path must be a non-empty string."));
    }
    let options = json_of(&env, options)?;
    let options = sqlite_options(options.as_ref()).map_err(thrown)?;
    // Resolved now, so a later `process.chdir` cannot move the store.
    let path = std::path::absolute(&path).map_err(|e| invalid(format!("path {path}: {e}")))?;
    Ok(SqliteRunStore {
        store: Arc::new(SqliteStore::new(path, options)),
    })
}

#[napi]
impl SqliteRunStore {
    /// The live record of `runId`, or null when there is none or it expired.
    #[napi(
        ts_args_type = "runId: string",
        ts_return_type = "Promise<RunStoreRecord | null>"
    )]
    pub fn get(
        &self,
        run_id: Unknown,
    ) -> std::result::Result<AsyncTask<StoreTask<Option<StoredRecord>>>, Error<Code>> {
        let run_id = string_arg(run_id)?;
        let store = self.store.clone();
        Ok(task(move || store.get(&run_id)))
    }

    /// Writes `bytes` if the live version is `options.expectVersion` (null: none).
    #[napi(
        ts_args_type = "runId: string, bytes: Uint8Array, options?: RunStorePutOptions",
        ts_return_type = "Promise<RunStorePutResult>"
    )]
    pub fn put(
        &self,
        env: Env,
        run_id: Unknown,
        bytes: Unknown,
        options: Option<Unknown>,
    ) -> std::result::Result<AsyncTask<StoreTask<PutOutcome>>, Error<Code>> {
        let run_id = string_arg(run_id)?;
        // SAFETY: `bytes` is a live value of this call; the conversion checks its type.
        let bytes = unsafe { Uint8Array::from_napi_value(env.raw(), bytes.raw()) }
            .map_err(|_| invalid("bytes must be a Uint8Array (or Buffer)."))?
            .to_vec();
        let options = json_of(&env, options)?;
        let options = put_options(options.as_ref()).map_err(thrown)?;
        let store = self.store.clone();
        Ok(task(move || {
            store.put(&run_id, &bytes, options.expect_version, options.ttl_seconds)
        }))
    }

    /// Deletes the live record of `runId` (only at `expectVersion` when given); resolves
    /// true if one was deleted.
    #[napi(
        ts_args_type = "runId: string, expectVersion?: number | null",
        ts_return_type = "Promise<boolean>"
    )]
    pub fn delete(
        &self,
        env: Env,
        run_id: Unknown,
        expect_version: Option<Unknown>,
    ) -> std::result::Result<AsyncTask<StoreTask<bool>>, Error<Code>> {
        let run_id = string_arg(run_id)?;
        let expect = json_of(&env, expect_version)?;
        let expect = delete_version(expect.as_ref()).map_err(thrown)?;
        let store = self.store.clone();
        Ok(task(move || store.delete(&run_id, expect)))
    }

    /// Closes the file; later operations reject with `store_unavailable`. Idempotent.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close(&self) -> AsyncTask<StoreTask<()>> {
        let store = self.store.clone();
        task(move || {
            store.close();
            Ok(())
        })
    }
}

/// A run-store operation, run once on the thread pool.
type Work<R> = Box<dyn FnOnce() -> std::result::Result<R, CodeModeError> + Send>;

pub struct StoreTask<R: Reply> {
    work: Option<Work<R>>,
}

fn task<R: Reply>(
    work: impl FnOnce() -> std::result::Result<R, CodeModeError> + Send + 'static,
) -> AsyncTask<StoreTask<R>> {
    AsyncTask::new(StoreTask {
        work: Some(Box::new(work)),
    })
}

/// What an operation answers, and its JS value.
pub trait Reply: Send + 'static {
    type Js: ToNapiValue + TypeName;
    fn into_js(self) -> Result<Self::Js>;
}

impl Reply for Option<StoredRecord> {
    type Js = Option<RunStoreRecord>;
    fn into_js(self) -> Result<Self::Js> {
        Ok(self.map(|r| RunStoreRecord {
            version: r.version as f64,
            bytes: r.bytes.into(),
        }))
    }
}

impl Reply for PutOutcome {
    type Js = RunStorePutReply;
    fn into_js(self) -> Result<RunStorePutReply> {
        Ok(match self {
            PutOutcome::Written { version } => RunStorePutReply {
                ok: true,
                version: Some(version as f64),
                current: None,
            },
            PutOutcome::Conflict { current } => RunStorePutReply {
                ok: false,
                version: None,
                current: Some(current.map_or(Either::B(Null), |v| Either::A(v as f64))),
            },
        })
    }
}

impl Reply for bool {
    type Js = bool;
    fn into_js(self) -> Result<bool> {
        Ok(self)
    }
}

impl Reply for () {
    type Js = ();
    fn into_js(self) -> Result<()> {
        Ok(())
    }
}

impl<R: Reply> Task for StoreTask<R> {
    type Output = std::result::Result<R, CodeModeError>;
    type JsValue = R::Js;

    fn compute(&mut self) -> Result<Self::Output> {
        let Some(work) = self.work.take() else {
            return Ok(Err(CodeModeError::internal("a run-store task ran twice")));
        };
        // A panic stays on this side: the promise rejects with `internal_error`.
        Ok(catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|_| {
            Err(CodeModeError::internal(
                "the run store panicked; this is a bug",
            ))
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
        match output {
            Ok(reply) => reply.into_js(),
            // Rejects with the JS error itself, so its `code` is the documented one.
            Err(error) => Err(Error::from(JsError::from(thrown(error)).into_unknown(env))),
        }
    }
}

fn string_arg(value: Unknown) -> std::result::Result<String, Error<Code>> {
    let bad = || invalid("runId must be a string of 1 to 256 bytes.");
    if value.get_type().map_err(|_| bad())? != ValueType::String {
        return Err(bad());
    }
    // SAFETY: the type was checked just above.
    unsafe { value.cast::<String>() }.map_err(|_| bad())
}

fn json_of(env: &Env, value: Option<Unknown>) -> std::result::Result<Option<Value>, Error<Code>> {
    let Some(value) = value else { return Ok(None) };
    match plain_json(env, value).map_err(super::errors::internal)? {
        Ok(json) => Ok(json),
        Err(message) => Err(invalid(format!("options are not plain JSON: {message}"))),
    }
}
