//! A deterministic VM's clock and random source: `Date`, `performance` and `Math.random`
//! replaced by native functions that read a logical clock and one seeded PRNG. Installed at
//! bind, before any user code, so no guest ever holds the built-ins they replace.

use parking_lot::Mutex;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rquickjs::class::{ClassKind, JsCell, JsClass, Readable, Trace, Tracer};
use rquickjs::function::{Args, Constructor, Params};
use rquickjs::object::Property;
use rquickjs::{Class, Ctx, Function, JsLifetime, Object, Value};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What makes a VM's clock and randomness reproducible: the same values, the same code and
/// the same `set_clock` sequence give the same reads in every VM, in either isolation mode.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Determinism {
    /// Seeds `Math.random`.
    pub seed: u64,
    /// Where the logical clock starts: a Unix epoch time in milliseconds.
    pub origin_ms: f64,
}

/// The largest time a `Date` holds (ECMA-262 TimeClip), in milliseconds either side of 1970.
const MAX_TIME_MS: f64 = 8.64e15;

/// A bound VM's logical clock and PRNG, shared by its native functions and its owner.
pub struct Logical {
    origin_ms: f64,
    /// The clock's `f64` bits: set by the owner between guest turns, read by the guest.
    clock: AtomicU64,
    random: Mutex<Xoshiro256PlusPlus>,
}

impl Logical {
    /// `None` for an origin that is not a finite number.
    pub fn new(determinism: Determinism) -> Option<Logical> {
        determinism.origin_ms.is_finite().then(|| Logical {
            origin_ms: determinism.origin_ms,
            clock: AtomicU64::new(determinism.origin_ms.to_bits()),
            random: Mutex::new(Xoshiro256PlusPlus::seed_from_u64(determinism.seed)),
        })
    }

    /// Moves the clock to `ms` (epoch milliseconds); a value that is not finite leaves it.
    pub fn set_clock(&self, ms: f64) {
        if ms.is_finite() {
            self.clock.store(ms.to_bits(), Ordering::SeqCst);
        }
    }

    fn now(&self) -> f64 {
        f64::from_bits(self.clock.load(Ordering::SeqCst))
    }

    /// `Date.now()`: what `new Date().getTime()` reads (ECMA-262 TimeClip of the clock).
    fn date_now(&self) -> f64 {
        let now = self.now();
        if now.abs() > MAX_TIME_MS {
            f64::NAN
        } else {
            // `+ 0.0` turns -0 into +0, as TimeClip does.
            now.trunc() + 0.0
        }
    }

    /// The next `Math.random()`: the top 53 bits of the next output, in [0, 1).
    fn random(&self) -> f64 {
        let bits = self.random.lock().next_u64() >> 11;
        bits as f64 / (1u64 << 53) as f64
    }
}

/// Replaces the clock and random built-ins of a fresh VM's context. The replaced ones are
/// left unreachable: the global and `Date.prototype.constructor` name the new `Date`.
pub fn install(ctx: &Ctx<'_>, logical: &Arc<Logical>) -> rquickjs::Result<()> {
    let global = ctx.globals();
    let original: Constructor = global.get("Date")?;
    let prototype: Object = original.get("prototype")?;
    let to_string: Function = prototype.get("toString")?;
    let statics = (
        original.get::<_, Value>("parse")?,
        original.get::<_, Value>("UTC")?,
    );
    let date = Class::instance(
        ctx.clone(),
        DateConstructor {
            original,
            to_string,
            logical: logical.clone(),
        },
    )?
    .into_inner();
    let date = Value::from(date)
        .into_function()
        .ok_or(rquickjs::Error::Unknown)?;
    date.set_name("Date")?;
    date.set_length(7)?;
    date.set_constructor(true);
    date.prop("prototype", Property::from(prototype.clone()))?;
    date.prop("parse", method(statics.0))?;
    date.prop("UTC", method(statics.1))?;
    let clock = logical.clone();
    date.prop("now", method(native(ctx, "now", move || clock.date_now())?))?;
    prototype.prop("constructor", method(date.clone()))?;
    global.prop("Date", method(date))?;

    let math: Object = global.get("Math")?;
    let random = logical.clone();
    math.prop(
        "random",
        method(native(ctx, "random", move || random.random())?),
    )?;

    // The prelude's `performance` (wall clock) gives way to one on the logical clock.
    let performance = Object::new(ctx.clone())?;
    let clock = logical.clone();
    let now = native(ctx, "now", move || clock.now() - clock.origin_ms)?;
    performance.prop("now", Property::from(now).enumerable())?;
    performance.prop("timeOrigin", Property::from(logical.origin_ms).enumerable())?;
    let object: Object = global.get("Object")?;
    let freeze: Function = object.get("freeze")?;
    let _: Value = freeze.call((performance.clone(),))?;
    global.prop("performance", method(performance))
}

/// A built-in's attributes: writable and configurable, not enumerable.
fn method<T>(value: T) -> Property<T> {
    Property::from(value).writable().configurable()
}

fn native<'js>(
    ctx: &Ctx<'js>,
    name: &str,
    read: impl Fn() -> f64 + Send + 'js,
) -> rquickjs::Result<Function<'js>> {
    Function::new(ctx.clone(), read)?.with_name(name)
}

/// The deterministic `Date`: a native constructor over the built-in one, which it holds
/// where the guest cannot reach it (traced, so the collector sees the reference).
struct DateConstructor<'js> {
    original: Constructor<'js>,
    /// `Date.prototype.toString` as it was at bind: `Date()` must not call a guest's.
    to_string: Function<'js>,
    logical: Arc<Logical>,
}

// SAFETY: the `'js` values are exactly re-labelled, as for rquickjs's own value types; the
// `Arc` holds no JavaScript value.
unsafe impl<'js> JsLifetime<'js> for DateConstructor<'js> {
    type Changed<'to> = DateConstructor<'to>;
}

impl<'js> Trace<'js> for DateConstructor<'js> {
    fn trace<'a>(&self, tracer: Tracer<'a, 'js>) {
        self.original.trace(tracer);
        self.to_string.trace(tracer);
    }
}

impl<'js> JsClass<'js> for DateConstructor<'js> {
    const NAME: &'static str = "Date";
    const KIND: ClassKind = ClassKind::Callable;
    type Mutable = Readable;

    fn prototype(ctx: &Ctx<'js>) -> rquickjs::Result<Option<Object<'js>>> {
        Ok(Some(Function::prototype(ctx.clone())))
    }

    fn constructor(_ctx: &Ctx<'js>) -> rquickjs::Result<Option<Constructor<'js>>> {
        Ok(None)
    }

    /// `new Date()` (also through `Reflect.construct` or a subclass's `super()`) is the
    /// built-in given the clock; with arguments it is the built-in as they are. `Date()`
    /// as a function ignores its arguments and gives the clock's time as a string.
    fn call<'a>(this: &JsCell<'js, Self>, params: Params<'a, 'js>) -> rquickjs::Result<Value<'js>> {
        let this = this.borrow();
        let ctx = params.ctx().clone();
        let now = this.logical.now();
        if !params.is_constructor() {
            let date: Value = this.original.construct((now,))?;
            return this.to_string.call((rquickjs::function::This(date),));
        }
        let mut args = Args::new(ctx, params.len().max(1));
        // A constructor's `this` is `new.target`: the subclass's prototype is kept.
        args.this(params.this())?;
        if params.is_empty() {
            args.push_arg(now)?;
        } else {
            for index in 0..params.len() {
                args.push_arg(params.arg(index))?;
            }
        }
        args.construct(&this.original)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logical(origin_ms: f64) -> Logical {
        Logical::new(Determinism { seed: 7, origin_ms }).expect("a finite origin")
    }

    #[test]
    fn date_now_is_the_clock_clipped_as_a_date_holds_it() {
        let clock = logical(-0.25);
        assert_eq!(
            clock.date_now().to_bits(),
            0.0f64.to_bits(),
            "-0 becomes +0"
        );
        clock.set_clock(12.9);
        assert_eq!(clock.date_now(), 12.0);
        clock.set_clock(-12.9);
        assert_eq!(clock.date_now(), -12.0);
        clock.set_clock(MAX_TIME_MS + 1.0);
        assert!(clock.date_now().is_nan());
        clock.set_clock(f64::NAN);
        assert!(clock.date_now().is_nan(), "NaN left the clock as it was");
    }

    #[test]
    fn an_origin_that_is_not_finite_makes_no_clock() {
        for origin_ms in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(Logical::new(Determinism { seed: 1, origin_ms }).is_none());
        }
    }

    #[test]
    fn random_values_are_in_the_unit_interval_and_follow_the_seed() {
        let (a, b) = (logical(0.0), logical(0.0));
        let first: Vec<f64> = (0..1000).map(|_| a.random()).collect();
        assert!(first.iter().all(|v| (0.0..1.0).contains(v)));
        assert_eq!(first, (0..1000).map(|_| b.random()).collect::<Vec<_>>());
    }
}
