//! One isolated QuickJS runtime + context per cell; the only module that touches rquickjs.
//! A `Vm` is `Send` (rquickjs `parallel`), so a parked cell resumes on any worker; pending
//! resolvers stay in the guest heap, never in Rust handles.

use super::allocator::{HeapMeter, MeteredAllocator};
use super::control::Control;
pub use super::determinism::Determinism;
use super::determinism::{install as install_determinism, Logical};
use super::modules::{bytecode, load_default, ModuleBytecode};
use super::natives::{install_natives, Bridge, BridgeSlot};
use rquickjs::context::EvalOptions;
use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Function, Object, Runtime, Value};
use std::sync::{Arc, OnceLock};

const PRELUDE: &str = include_str!("prelude.js");
/// The prelude's internal surface (settle, fire timers, watch the top-level promise),
/// kept in the runtime's userdata rather than on any object the guest can reach: a guest
/// must not be able to settle its own pending calls with forged results.
struct Internal<'js>(Object<'js>);

// SAFETY: `Internal` holds only a `'js` value, so changing the lifetime is exactly
// re-labelling that value, as for rquickjs's own value types.
unsafe impl<'js> rquickjs::JsLifetime<'js> for Internal<'js> {
    type Changed<'to> = Internal<'to>;
}
const PRELUDE_NAME: &str = "codemode:prelude";
/// What precedes the user's code on its first line.
pub const WRAPPER_PREFIX: &str = "(async function () {";

/// A column on script line 1 includes the wrapper prefix; user columns do not.
pub fn user_column(line: u32, column: u32) -> u32 {
    if line == 1 {
        column.saturating_sub(WRAPPER_PREFIX.len() as u32).max(1)
    } else {
        column.max(1)
    }
}
pub const USER_FILE_JS: &str = "user.js";
pub const USER_FILE_TS: &str = "user.ts";

/// Limits a VM is created with.
#[derive(Clone, Copy, Debug)]
pub struct VmLimits {
    pub memory_bytes: usize,
    pub max_stack_bytes: usize,
}

/// Why starting a cell failed before any user code ran.
#[derive(Debug)]
pub enum StartError {
    /// The user source does not compile; message and user-relative position.
    Syntax {
        message: String,
        line: u32,
        column: u32,
    },
    /// The runtime itself could not be set up (allocation failure and the like).
    Runtime(String),
    /// The source front-end refused the cell (run in a sandbox process): its message.
    Refused(String),
}

pub struct Vm {
    // Field order matters: the context must drop before its runtime.
    context: Context,
    runtime: Runtime,
    bridge: BridgeSlot,
    control: Arc<parking_lot::Mutex<Option<Arc<Control>>>>,
    meter: Arc<HeapMeter>,
    /// The logical clock and PRNG of a VM bound with `Determinism`.
    logical: OnceLock<Arc<Logical>>,
}

/// VMs alive in the process (blank, warm, running or parked): for leak checks.
pub static LIVE_VMS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl Drop for Vm {
    fn drop(&mut self) {
        LIVE_VMS.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Vm {
    /// Builds a fresh, unbound runtime with the natives and the prelude installed. No user
    /// code ever runs in it before `bind`, so a warm VM from the pool is as fresh as a new one.
    pub fn blank() -> Result<Vm, StartError> {
        let meter = HeapMeter::new();
        let runtime = Runtime::new_with_alloc(MeteredAllocator::new(meter.clone()))
            .map_err(|e| StartError::Runtime(e.to_string()))?;
        let control: Arc<parking_lot::Mutex<Option<Arc<Control>>>> = Arc::default();
        let interrupt_control = control.clone();
        let interrupt_meter = meter.clone();
        runtime.set_interrupt_handler(Some(Box::new(move || {
            interrupt_control.lock().as_ref().is_some_and(|control| {
                if interrupt_meter.exhausted() {
                    control.stop_for_memory();
                    return true;
                }
                control.should_interrupt()
            })
        })));
        runtime.set_host_promise_rejection_tracker(Some(Box::new(
            |ctx, promise, reason, handled| {
                let _ = track_rejection(&ctx, promise, reason, handled);
            },
        )));
        let context = Context::full(&runtime).map_err(|e| StartError::Runtime(e.to_string()))?;
        let bridge: BridgeSlot = Arc::default();
        context.with(|ctx| -> Result<(), StartError> {
            let natives =
                install_natives(&ctx, bridge.clone()).map_err(|e| runtime_error(&ctx, e))?;
            let factory = load_prelude(&ctx)?;
            let internal: Object = factory
                .call((natives,))
                .catch(&ctx)
                .map_err(|e| StartError::Runtime(format!("prelude failed: {e}")))?;
            ctx.store_userdata(Internal(internal))
                .map(|_| ())
                .map_err(|_| StartError::Runtime("prelude surface could not be stored".into()))
        })?;
        LIVE_VMS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(Vm {
            context,
            runtime,
            bridge,
            control,
            meter,
            logical: OnceLock::new(),
        })
    }

    /// Binds a blank VM to its cell: limits, interrupt control, bridge and tool handles;
    /// with `determinism`, the guest's clock and randomness become reproducible
    /// (`determinism.rs`). A VM is bound once.
    pub fn bind(
        &self,
        limits: VmLimits,
        control: Arc<Control>,
        bridge: Arc<dyn Bridge>,
        config_json: &str,
        determinism: Option<Determinism>,
    ) -> Result<(), StartError> {
        check_determinism(determinism.as_ref())?;
        let logical = determinism.and_then(Logical::new).map(Arc::new);
        self.runtime.set_max_stack_size(limits.max_stack_bytes);
        *self.control.lock() = Some(control);
        *self.bridge.lock() = Some(bridge);
        if let Some(logical) = logical {
            self.context
                .with(|ctx| install_determinism(&ctx, &logical))
                .map_err(|e| {
                    StartError::Runtime(format!("determinism could not be set up: {e}"))
                })?;
            let _ = self.logical.set(logical);
        }
        let installed = self.context.with(|ctx| -> rquickjs::Result<()> {
            let config: Value = ctx.json_parse(config_json)?;
            let _: Value = call_internal(&ctx, "installTools", (config,))?;
            Ok(())
        });
        // The limit goes on last: installing a large catalog must not count against the
        // guest. A blank VM is far below any limit (the smallest is 1 MiB).
        self.meter.set_limit(limits.memory_bytes);
        self.meter.reset_peak();
        installed
            .map_err(|e| StartError::Runtime(format!("tool handles could not be installed: {e}")))
    }

    /// Moves the logical clock to `ms` (epoch milliseconds) for what the guest runs next;
    /// ignored by a VM bound without determinism, and for a value that is not finite.
    pub fn set_clock(&self, ms: f64) {
        if let Some(logical) = self.logical.get() {
            logical.set_clock(ms);
        }
    }

    /// Compiles the user source as the body of an async function and starts it. The
    /// wrapper puts user line 1 on script line 2, so locations are shifted back by one.
    pub fn start(&self, js: &str, file: &str) -> Result<(), StartError> {
        self.context.with(|ctx| {
            // The prefix shares the user's first line, so lines need no rebasing (columns on
            // line 1 are shifted by `WRAPPER_PREFIX.len()`).
            let wrapped = format!("{WRAPPER_PREFIX}{js}\n}})");
            let mut options = EvalOptions::default();
            options.global = true;
            options.strict = false;
            options.backtrace_barrier = true;
            options.filename = Some(file.to_string());
            let compiled: Result<Function, _> = ctx.eval_with_options(wrapped, options).catch(&ctx);
            let function = match compiled {
                Ok(function) => function,
                Err(CaughtError::Exception(exception)) => {
                    let (line, column) =
                        stack_position(&exception.stack().unwrap_or_default(), file);
                    return Err(StartError::Syntax {
                        message: exception.message().unwrap_or_default(),
                        line: line.max(1),
                        column: user_column(line, column),
                    });
                }
                Err(other) => {
                    return Err(StartError::Syntax {
                        message: other.to_string(),
                        line: 1,
                        column: 1,
                    })
                }
            };
            let promise: Value = function
                .call(())
                .map_err(|e| StartError::Runtime(e.to_string()))?;
            call_internal::<_, Value>(&ctx, "watch", (promise,))
                .map(|_| ())
                .map_err(|e| StartError::Runtime(e.to_string()))
        })
    }

    /// Delivers a host result to the promise waiting on bridge id `id`: false if none was
    /// waiting (a sandbox reports it: a replay's recorded answers must all land).
    pub fn settle(&self, id: u32, ok: bool, payload: &str) -> bool {
        self.context.with(|ctx| {
            let landed: rquickjs::Result<Value> = call_internal(&ctx, "settle", (id, ok, payload));
            landed_somewhere(&landed)
        })
    }

    /// Rejects the promise waiting on bridge id `id` with `Error(message)`: a call the host
    /// refused after the guest already went on (a sandbox's calls are not answered).
    pub fn refuse(&self, id: u32, message: &str) {
        self.context.with(|ctx| {
            let _: rquickjs::Result<Value> = call_internal(&ctx, "refuse", (id, message));
        });
    }

    /// Runs the callback of guest timer `id` (a no-op if it was cleared): false if no such
    /// timer was waiting.
    pub fn fire_timer(&self, id: u32) -> bool {
        self.context.with(|ctx| {
            let landed: rquickjs::Result<Value> = call_internal(&ctx, "fireTimer", (id,));
            landed_somewhere(&landed)
        })
    }

    /// Runs queued promise jobs until none is left or the interrupt handler stopped the
    /// guest (the caller checks its `Control`).
    pub fn drain_jobs(&self, control: &Control) {
        self.context.with(|ctx| {
            while ctx.execute_pending_job() {
                if control.interrupt() != super::control::Interrupt::None {
                    break;
                }
            }
        });
    }

    /// The first rejection that no handler has claimed, formatted like a thrown error.
    pub fn first_unhandled_rejection(&self) -> Option<String> {
        self.context.with(|ctx| {
            let text: Option<String> = call_internal(&ctx, "firstUnhandled", ()).ok()?;
            text
        })
    }

    /// Whether some rejection has no handler now (cheap: formats nothing).
    pub fn has_unhandled_rejection(&self) -> bool {
        self.context
            .with(|ctx| call_internal::<_, bool>(&ctx, "hasUnhandled", ()).unwrap_or(false))
    }

    /// Bytes QuickJS has allocated for this VM (exact, O(1)).
    pub fn heap_bytes(&self) -> u64 {
        self.meter.used() as u64
    }

    /// An allocation was refused by the memory limit since the VM was bound.
    pub fn memory_exhausted(&self) -> bool {
        self.meter.exhausted()
    }

    /// The most this VM's heap held since it was bound to its cell.
    pub fn peak_heap_bytes(&self) -> u64 {
        self.meter.peak() as u64
    }
}

/// Refuses a `Determinism` whose clock origin is not a finite time.
pub fn check_determinism(determinism: Option<&Determinism>) -> Result<(), StartError> {
    match determinism {
        Some(determinism) if !determinism.origin_ms.is_finite() => Err(StartError::Runtime(
            "the determinism origin is not a finite time".into(),
        )),
        _ => Ok(()),
    }
}

/// The first `file:line:column` in a QuickJS stack (script lines, not yet rebased).
fn stack_position(stack: &str, file: &str) -> (u32, u32) {
    let marker = format!("{file}:");
    let Some(start) = stack.find(&marker) else {
        return (1, 1);
    };
    let mut numbers = stack[start + marker.len()..]
        .split(|c: char| !c.is_ascii_digit())
        .take(2)
        .map(|n| n.parse::<u32>().unwrap_or(1));
    let line = numbers.next().unwrap_or(1);
    let column = numbers.next().unwrap_or(1);
    (line, column)
}

/// Whether `settle` or `fireTimer` found what it answers: only a plain `false` says not
/// (a call that threw, an interrupted guest say, is judged by the caller's checks).
fn landed_somewhere(landed: &rquickjs::Result<Value<'_>>) -> bool {
    !matches!(landed, Ok(value) if value.as_bool() == Some(false))
}

fn call_internal<'js, A, R>(ctx: &Ctx<'js>, name: &str, args: A) -> rquickjs::Result<R>
where
    A: rquickjs::function::IntoArgs<'js>,
    R: rquickjs::FromJs<'js>,
{
    let internal = internal(ctx).ok_or(rquickjs::Error::Unknown)?;
    let function: Function = internal.get(name)?;
    function.call(args)
}

fn track_rejection<'js>(
    ctx: &Ctx<'js>,
    promise: Value<'js>,
    reason: Value<'js>,
    handled: bool,
) -> rquickjs::Result<()> {
    // The tracker can fire while the prelude itself is still being set up.
    let Some(internal) = internal(ctx) else {
        return Ok(());
    };
    let function: Function = internal.get("track")?;
    function.call((promise, reason, handled))
}

fn internal<'js>(ctx: &Ctx<'js>) -> Option<Object<'js>> {
    ctx.userdata::<Internal>().map(|stored| stored.0.clone())
}

fn load_prelude<'js>(ctx: &Ctx<'js>) -> Result<Function<'js>, StartError> {
    static PRELUDE_BYTECODE: ModuleBytecode = OnceLock::new();
    let bytes = bytecode(&PRELUDE_BYTECODE, PRELUDE_NAME, PRELUDE).map_err(StartError::Runtime)?;
    load_default(ctx, bytes)
        .catch(ctx)
        .map_err(|e| StartError::Runtime(format!("prelude failed to load: {e}")))
}

fn runtime_error(ctx: &Ctx<'_>, error: rquickjs::Error) -> StartError {
    let detail = match error {
        rquickjs::Error::Exception => {
            let caught = ctx.catch();
            format!("{caught:?}")
        }
        other => other.to_string(),
    };
    StartError::Runtime(detail)
}
