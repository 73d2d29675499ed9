//! The Rust functions a guest's prelude calls (`native.*`). They only move strings and
//! integers between the guest and a `Bridge`; the engine implements `Bridge`, so this
//! module knows nothing about tools, budgets or the host.

use super::text::{into_well_formed_json, GuestText};
use parking_lot::Mutex;
use rquickjs::{Ctx, Exception, Function, Object, Value};
use std::sync::Arc;

/// The bridge a VM is bound to. Empty while the VM waits warm in the pool: natives called
/// then (never, in practice: no user code runs before binding) do nothing.
pub type BridgeSlot = Arc<Mutex<Option<Arc<dyn Bridge>>>>;

struct Bound(BridgeSlot);

impl Bound {
    fn get(&self) -> Option<Arc<dyn Bridge>> {
        self.0.lock().clone()
    }
}

const UNBOUND: &str = "code mode runtime is not bound to a cell";

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
    /// A handle's guest-visible metadata (built when the handle is first used).
    fn tool_meta(&self, callable: &str) -> Result<String, String>;
    /// `API.list(prefix)`: `{ files: [...] }` as JSON.
    fn api_list(&self, prefix: &str) -> String;
    /// `API.read(path)`: `{ path, content, description, bytes }` as JSON, or an error to throw.
    fn api_read(&self, path: &str) -> Result<String, String>;
    /// `MCP.$api()` (empty server) or `MCP.<server>.$api(tool?, { schema })`, as JSON.
    fn mcp_api(&self, server: &str, tool: Option<&str>, schema: bool) -> Result<String, String>;
}

fn optional_string<'js>(ctx: &Ctx<'js>, value: Value<'js>) -> Option<String> {
    if value.is_null() || value.is_undefined() {
        return None;
    }
    rquickjs::FromJs::from_js(ctx, value)
        .ok()
        .map(|text: GuestText| text.0)
}

/// Guest JSON text (always from the prelude's `JSON.stringify`) that serde can parse.
fn json_text(text: GuestText) -> String {
    into_well_formed_json(text.0)
}

impl Bound {
    /// Runs `f` on the bound bridge; its error (or an unbound VM) is thrown into the guest.
    fn try_with<'js, R>(
        &self,
        ctx: &Ctx<'js>,
        f: impl FnOnce(&dyn Bridge) -> Result<R, String>,
    ) -> rquickjs::Result<R> {
        let bridge = self
            .get()
            .ok_or_else(|| Exception::throw_message(ctx, UNBOUND))?;
        f(bridge.as_ref()).map_err(|message| Exception::throw_message(ctx, &message))
    }

    /// Runs `f` on the bound bridge, if any (notifications that cannot fail).
    fn with(&self, f: impl FnOnce(&dyn Bridge)) {
        if let Some(bridge) = self.get() {
            f(bridge.as_ref());
        }
    }
}

pub fn install_natives<'js>(ctx: &Ctx<'js>, slot: BridgeSlot) -> rquickjs::Result<Object<'js>> {
    let native = Object::new(ctx.clone())?;
    let bound = || Bound(slot.clone());

    let b = bound();
    native.set(
        "call",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, method: GuestText, target: GuestText, input: GuestText| {
                let input = json_text(input);
                b.try_with(&ctx, |bridge| bridge.call(&method.0, &target.0, input))
            },
        )?,
    )?;
    let b = bound();
    native.set(
        "output",
        Function::new(ctx.clone(), move |kind: u8, text: GuestText| {
            let text = if kind == 1 { json_text(text) } else { text.0 };
            b.with(|bridge| bridge.output(kind, text))
        })?,
    )?;
    let b = bound();
    native.set(
        "console",
        Function::new(ctx.clone(), move |line: GuestText| {
            b.with(|bridge| bridge.console(line.0))
        })?,
    )?;
    let b = bound();
    native.set(
        "timer",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, delay: f64| {
            // The prelude already floors and clamps; this keeps a hostile caller in range.
            let delay = if delay.is_finite() && delay > 0.0 {
                delay.min(u32::MAX as f64) as u64
            } else {
                0
            };
            b.try_with(&ctx, |bridge| bridge.timer(delay))
        })?,
    )?;
    let b = bound();
    native.set(
        "clearTimer",
        Function::new(ctx.clone(), move |id: u32| {
            b.with(|bridge| bridge.clear_timer(id))
        })?,
    )?;
    let b = bound();
    native.set(
        "yieldControl",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, reason: Value<'js>| {
            let reason = optional_string(&ctx, reason);
            b.try_with(&ctx, |bridge| Ok(bridge.yield_control(reason)))
        })?,
    )?;
    let b = bound();
    native.set(
        "finish",
        Function::new(ctx.clone(), move |ok: bool, payload: GuestText| {
            let payload = json_text(payload);
            b.with(|bridge| bridge.finish(ok, payload))
        })?,
    )?;
    let b = bound();
    native.set(
        "fail",
        Function::new(ctx.clone(), move |payload: GuestText| {
            let payload = json_text(payload);
            b.with(|bridge| bridge.fail(payload))
        })?,
    )?;
    let b = bound();
    native.set(
        "search",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, query: GuestText, limit: u32| {
                b.try_with(&ctx, |bridge| bridge.search(&query.0, limit))
            },
        )?,
    )?;
    let b = bound();
    native.set(
        "describe",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, name: GuestText| {
            b.try_with(&ctx, |bridge| bridge.describe(&name.0))
        })?,
    )?;
    let b = bound();
    native.set(
        "toolMeta",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, name: GuestText| {
            b.try_with(&ctx, |bridge| bridge.tool_meta(&name.0))
        })?,
    )?;
    let b = bound();
    native.set(
        "apiList",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, prefix: GuestText| {
            b.try_with(&ctx, |bridge| Ok(bridge.api_list(&prefix.0)))
        })?,
    )?;
    let b = bound();
    native.set(
        "apiRead",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, path: GuestText| {
            b.try_with(&ctx, |bridge| bridge.api_read(&path.0))
        })?,
    )?;

    let b = bound();
    native.set(
        "mcpApi",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, server: GuestText, tool: Value<'js>, schema: bool| {
                let tool = optional_string(&ctx, tool);
                b.try_with(&ctx, |bridge| {
                    bridge.mcp_api(&server.0, tool.as_deref(), schema)
                })
            },
        )?,
    )?;

    // URL parsing lives in Rust (WHATWG semantics from the `url` crate).
    super::url::install(ctx, &native)?;
    native.set(
        "loadWeb",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, native: Object<'js>| {
            super::modules::load_web(&ctx, native)
        })?,
    )?;
    native.set(
        "loadSurfaces",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, kit: Object<'js>| {
            super::modules::load_surfaces(&ctx, kit)
        })?,
    )?;
    Ok(native)
}
