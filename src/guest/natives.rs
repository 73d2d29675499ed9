//! The Rust functions a guest's prelude calls (`native.*`). They only move strings and
//! integers between the guest and a `Bridge`; the engine implements `Bridge`, so this
//! module knows nothing about tools, budgets or the host.

use rquickjs::{Ctx, Exception, Function, Object, Value};
use std::sync::Arc;

/// What the guest can ask of the engine. Every method runs on the worker currently
/// running the VM, inside guest execution: implementations must not block.
pub trait Bridge: Send + Sync {
    /// Starts (or queues) a host call; returns its bridge id, or an error to throw.
    fn call(&self, method: &str, target: &str, input_json: String) -> Result<u32, String>;
    /// `text()` (kind 0) or `json()` (kind 1) output.
    fn output(&self, kind: u8, text: String);
    fn console(&self, line: String);
    /// Starts (or queues) a host timer; returns its id (1, 2, …).
    fn timer(&self, delay_ms: u64) -> Result<u32, String>;
    fn clear_timer(&self, id: u32);
    /// Requests a `yield` suspension; returns the bridge id that resolves on resume.
    fn yield_control(&self, reason: Option<String>) -> u32;
    /// The cell's top-level promise settled (`ok`: value JSON, else error JSON).
    fn finish(&self, ok: bool, payload: String);
    /// A failure outside the top-level promise (a throwing timer callback).
    fn fail(&self, payload: String);
    /// `catalog.search`: a JSON array of callable names, or an error to throw.
    fn search(&self, query: &str, limit: u32) -> Result<String, String>;
    /// `handle.describe()`: the description JSON, or an error to throw.
    fn describe(&self, callable: &str) -> Result<String, String>;
}

fn optional_string(value: &Value<'_>) -> Option<String> {
    if value.is_null() || value.is_undefined() {
        return None;
    }
    value.as_string().and_then(|s| s.to_string().ok())
}

pub fn install_natives<'js>(ctx: &Ctx<'js>, bridge: Arc<dyn Bridge>) -> rquickjs::Result<Object<'js>> {
    let native = Object::new(ctx.clone())?;

    let b = bridge.clone();
    native.set(
        "call",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, method: String, target: String, input: String| -> rquickjs::Result<u32> {
                b.call(&method, &target, input)
                    .map_err(|message| Exception::throw_message(&ctx, &message))
            },
        )?,
    )?;

    let b = bridge.clone();
    native.set(
        "output",
        Function::new(ctx.clone(), move |kind: u8, text: String| b.output(kind, text))?,
    )?;

    let b = bridge.clone();
    native.set(
        "console",
        Function::new(ctx.clone(), move |line: String| b.console(line))?,
    )?;

    let b = bridge.clone();
    native.set(
        "timer",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, delay: f64| -> rquickjs::Result<u32> {
            // The prelude already floors and clamps; this keeps a hostile caller in range.
            let delay = if delay.is_finite() && delay > 0.0 { delay.min(u32::MAX as f64) as u64 } else { 0 };
            b.timer(delay).map_err(|message| Exception::throw_message(&ctx, &message))
        })?,
    )?;

    let b = bridge.clone();
    native.set(
        "clearTimer",
        Function::new(ctx.clone(), move |id: u32| b.clear_timer(id))?,
    )?;

    let b = bridge.clone();
    native.set(
        "yieldControl",
        Function::new(ctx.clone(), move |reason: Value<'js>| b.yield_control(optional_string(&reason)))?,
    )?;

    let b = bridge.clone();
    native.set(
        "finish",
        Function::new(ctx.clone(), move |ok: bool, payload: String| b.finish(ok, payload))?,
    )?;

    let b = bridge.clone();
    native.set(
        "fail",
        Function::new(ctx.clone(), move |payload: String| b.fail(payload))?,
    )?;

    let b = bridge.clone();
    native.set(
        "search",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, query: String, limit: u32| -> rquickjs::Result<String> {
                b.search(&query, limit)
                    .map_err(|message| Exception::throw_message(&ctx, &message))
            },
        )?,
    )?;

    let b = bridge;
    native.set(
        "describe",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, name: String| -> rquickjs::Result<String> {
            b.describe(&name)
                .map_err(|message| Exception::throw_message(&ctx, &message))
        })?,
    )?;

    // URL parsing lives in Rust (WHATWG semantics from the `url` crate).
    super::url::install(ctx, &native)?;
    Ok(native)
}
