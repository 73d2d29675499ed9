//! The runtime's own guest modules (web globals, host surfaces, and the bytecode cache
//! the prelude also uses): compiled once per process, loaded into a VM on first use.

use rquickjs::module::WriteOptions;
use rquickjs::{CatchResultExt, Context, Ctx, Function, Module, Object, Runtime, Value};
use std::sync::OnceLock;

const WEB: &str = include_str!("web.js");
const SURFACES: &str = include_str!("surfaces.js");

/// A guest module's bytecode, compiled on first use and kept for the process.
pub type ModuleBytecode = OnceLock<Result<Vec<u8>, String>>;

/// A guest module compiled once per process to QuickJS bytecode: loading bytecode is far
/// cheaper than parsing hundreds of lines of JavaScript for every cell.
pub fn bytecode(
    cache: &'static ModuleBytecode,
    name: &str,
    source: &str,
) -> Result<&'static [u8], String> {
    cache
        .get_or_init(|| {
            // Rust's allocator, as every VM: `Runtime::new` uses libc's malloc, and a sandbox
            // process then kept that arena (~150 KB) for good, since the VM it was building
            // at the time pinned its pages. A heap of its own measured worse (bench/README.md).
            let runtime = Runtime::new_with_alloc(rquickjs::allocator::RustAllocator)
                .map_err(|e| e.to_string())?;
            let context = Context::full(&runtime).map_err(|e| e.to_string())?;
            context.with(|ctx| {
                let module = Module::declare(ctx.clone(), name, format!("export default {source}"))
                    .catch(&ctx)
                    .map_err(|e| format!("{name} does not compile: {e}"))?;
                // Without source text or debug info: every VM reads this bytecode, the
                // runtime's frames are dropped from guest stacks anyway, and a guest's
                // `fn.toString()` on a runtime function must not print the runtime's source.
                module
                    .write(WriteOptions {
                        strip_source: true,
                        strip_debug: true,
                        ..WriteOptions::default()
                    })
                    .map_err(|e| format!("{name} bytecode: {e}"))
            })
        })
        .as_ref()
        .map(|bytes| bytes.as_slice())
        .map_err(|e| e.clone())
}

/// Loads a module from process bytecode and returns its default export.
pub fn load_default<'js>(ctx: &Ctx<'js>, bytes: &'static [u8]) -> rquickjs::Result<Function<'js>> {
    // SAFETY: the bytes were produced by `Module::write` of this same QuickJS build in
    // this process and live for the whole process (the loader may reference them).
    let module = unsafe { Module::load(ctx.clone(), bytes) }?;
    let (module, promise) = module.eval()?;
    promise.finish::<Value>()?;
    module.get("default")
}

/// Loads a lazily used module into this VM and calls its default export with `arg`.
fn load_lazy<'js, R: rquickjs::FromJs<'js>>(
    ctx: &Ctx<'js>,
    cache: &'static ModuleBytecode,
    (name, source): (&str, &str),
    arg: Object<'js>,
) -> rquickjs::Result<R> {
    let bytes = bytecode(cache, name, source)
        .map_err(|message| rquickjs::Exception::throw_internal(ctx, &message))?;
    load_default(ctx, bytes)?.call((arg,))
}

/// `native.loadWeb(native)`: the web globals' classes, built on first use in a VM.
pub fn load_web<'js>(ctx: &Ctx<'js>, native: Object<'js>) -> rquickjs::Result<Object<'js>> {
    static WEB_BYTECODE: ModuleBytecode = OnceLock::new();
    load_lazy(ctx, &WEB_BYTECODE, ("codemode:web", WEB), native)
}

/// `native.loadSurfaces(kit)`: the installer of host surfaces, loaded only by cells whose
/// session has a namespace, nodes, skills, Swarm or MCP.
pub fn load_surfaces<'js>(ctx: &Ctx<'js>, kit: Object<'js>) -> rquickjs::Result<Function<'js>> {
    static SURFACES_BYTECODE: ModuleBytecode = OnceLock::new();
    load_lazy(
        ctx,
        &SURFACES_BYTECODE,
        ("codemode:surfaces", SURFACES),
        kit,
    )
}
