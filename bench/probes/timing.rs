//! Timing probes: an exec round trip, the phases of a cell (VM, bind, prepare, start), the
//! engine's cost per nested tool call, building a large catalog, and deterministic VMs.

use std::sync::Arc;
use std::time::{Duration, Instant};

use codemode_native::catalog::{Catalog, Source, ToolSpec};
use codemode_native::guest::allocator::{HeapMeter, MeteredAllocator};
use codemode_native::guest::control::Control;
use codemode_native::guest::natives::{install_natives, BridgeSlot};
use codemode_native::guest::vm::{Determinism, Vm, VmLimits};
use codemode_native::source::{prepare, Language};
use serde_json::{json, Value};

use crate::common;
use crate::hosts::{bind_null, bind_null_with, exec, session, InstantHost};

fn micros_per(start: Instant, n: u32) -> f64 {
    start.elapsed().as_secs_f64() * 1e6 / f64::from(n)
}

fn new_and_free_runtimes(n: u32) {
    for _ in 0..n {
        let rt = rquickjs::Runtime::new().unwrap();
        let ctx = rquickjs::Context::full(&rt).unwrap();
        drop(ctx);
        drop(rt);
    }
}

/// A trivial cell's exec round trip, and a bare QuickJS runtime + context for scale.
pub fn trivial_cells(_: &[String]) {
    let s = session(json!({}), vec![]);
    for _ in 0..50 {
        exec(&s, "return 1");
    }
    let n = 2000;
    let start = Instant::now();
    for _ in 0..n {
        exec(&s, "return 1 + 1");
    }
    println!("exec round trip: {:.1} us", micros_per(start, n));
    let start = Instant::now();
    new_and_free_runtimes(n);
    println!("runtime+context: {:.1} us", micros_per(start, n));
}

/// A bare runtime and full context made and freed apart, and a context made and freed on a
/// kept runtime (what reusing a runtime across cells could save at most).
fn bare_phases(n: u32) {
    let (mut runtime, mut context, mut free) = (0.0, 0.0, 0.0);
    for _ in 0..n {
        let t = Instant::now();
        let rt = rquickjs::Runtime::new().unwrap();
        runtime += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let ctx = rquickjs::Context::full(&rt).unwrap();
        context += t.elapsed().as_secs_f64();
        let t = Instant::now();
        drop(ctx);
        drop(rt);
        free += t.elapsed().as_secs_f64();
    }
    let us = |total: f64| total * 1e6 / f64::from(n);
    println!(
        "bare: runtime {:.1} us, full context {:.1} us, free both {:.1} us",
        us(runtime),
        us(context),
        us(free)
    );
    // As `Vm::blank` makes them, without the prelude: the difference is the prelude's share.
    let (mut made, mut free) = (0.0, 0.0);
    for _ in 0..n {
        let t = Instant::now();
        let meter = HeapMeter::new();
        let rt = rquickjs::Runtime::new_with_alloc(MeteredAllocator::new(meter)).unwrap();
        let ctx = rquickjs::Context::full(&rt).unwrap();
        ctx.with(|ctx| drop(install_natives(&ctx, BridgeSlot::default())));
        made += t.elapsed().as_secs_f64();
        let t = Instant::now();
        drop(ctx);
        drop(rt);
        free += t.elapsed().as_secs_f64();
    }
    println!(
        "metered runtime, full context and natives, no prelude: {:.1} us, free {:.1} us",
        us(made),
        us(free)
    );
    let rt = rquickjs::Runtime::new().unwrap();
    let (mut context, mut free) = (0.0, 0.0);
    for _ in 0..n {
        let t = Instant::now();
        let ctx = rquickjs::Context::full(&rt).unwrap();
        context += t.elapsed().as_secs_f64();
        let t = Instant::now();
        drop(ctx);
        rt.run_gc();
        free += t.elapsed().as_secs_f64();
    }
    println!(
        "kept runtime: full context {:.1} us, free it + gc {:.1} us",
        us(context),
        us(free)
    );
}

const PRELUDE: &str = include_str!("../../src/guest/prelude.js");

/// The prelude's share of a VM apart: reading its bytecode, evaluating the module, running
/// its factory (the runtime's own `Vm::blank` does these three in one).
fn prelude_parts(n: u32) {
    use rquickjs::module::WriteOptions;
    use rquickjs::{Module, Object};
    let rt = rquickjs::Runtime::new().unwrap();
    let ctx = rquickjs::Context::full(&rt).unwrap();
    let bytes: Vec<u8> = ctx.with(|ctx| {
        let module =
            Module::declare(ctx.clone(), "prelude", format!("export default {PRELUDE}")).unwrap();
        module
            .write(WriteOptions {
                strip_source: true,
                strip_debug: true,
                ..WriteOptions::default()
            })
            .unwrap()
    });
    let (mut read, mut eval, mut run) = (0.0, 0.0, 0.0);
    for _ in 0..n {
        let rt =
            rquickjs::Runtime::new_with_alloc(MeteredAllocator::new(HeapMeter::new())).unwrap();
        let context = rquickjs::Context::full(&rt).unwrap();
        context.with(|ctx| {
            let natives = install_natives(&ctx, BridgeSlot::default()).unwrap();
            let t = Instant::now();
            // SAFETY: the bytes were written by `Module::write` of this QuickJS build, above.
            let module = unsafe { Module::load(ctx.clone(), &bytes) }.unwrap();
            read += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let (module, promise) = module.eval().unwrap();
            promise.finish::<rquickjs::Value>().unwrap();
            let factory: rquickjs::Function = module.get("default").unwrap();
            eval += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let _: Object = factory.call((natives,)).unwrap();
            run += t.elapsed().as_secs_f64();
        });
    }
    let us = |total: f64| total * 1e6 / f64::from(n);
    println!(
        "prelude ({} bytes of bytecode): read {:.1} us, evaluate the module {:.1} us, run the factory {:.1} us",
        bytes.len(),
        us(read),
        us(eval),
        us(run)
    );
}

/// Each phase of a cell apart: blank VM, bind, free, prepare, start + drain.
pub fn phases(_: &[String]) {
    let n = 1000;
    let limits = VmLimits {
        memory_bytes: 64 << 20,
        max_stack_bytes: 1 << 20,
    };
    let t = Instant::now();
    new_and_free_runtimes(n);
    println!(
        "bare runtime + full context, new and free: {:.1} us",
        micros_per(t, n)
    );
    bare_phases(n);
    prelude_parts(n);
    // One VM at a time, as the engine does: memory is reused, not touched anew.
    let (mut blank, mut bind, mut free) = (0.0, 0.0, 0.0);
    for _ in 0..n {
        let t = Instant::now();
        let Ok(vm) = Vm::blank() else { continue };
        blank += t.elapsed().as_secs_f64();
        let t = Instant::now();
        bind_null(&vm, limits);
        bind += t.elapsed().as_secs_f64();
        let t = Instant::now();
        drop(vm);
        free += t.elapsed().as_secs_f64();
    }
    let us = |total: f64| total * 1e6 / f64::from(n);
    println!(
        "vm blank (context, natives, prelude) {:.1} us, bind {:.1} us, free {:.1} us",
        us(blank),
        us(bind),
        us(free)
    );
    let t = Instant::now();
    for _ in 0..n {
        let _ = prepare("return 1 + 1", Language::JavaScript);
    }
    println!("prepare: {:.1} us", micros_per(t, n));
    let vm = Vm::blank().ok().unwrap();
    let blank_bytes = vm.heap_bytes();
    bind_null(&vm, limits);
    let bound_bytes = vm.heap_bytes();
    let _ = vm.start("return 1 + 1", "user.js");
    vm.drain_jobs(&Control::new());
    println!(
        "heap: blank {} KiB, bound {} KiB, after a trivial cell {} KiB",
        blank_bytes >> 10,
        bound_bytes >> 10,
        vm.heap_bytes() >> 10
    );
    let t = Instant::now();
    for _ in 0..n {
        let _ = vm.start("return 1 + 1", "user.js");
        vm.drain_jobs(&Control::new());
    }
    println!("start+drain: {:.1} us", micros_per(t, n));
}

/// The engine's own cost per nested call: 20,000 calls to a host that answers at once.
pub fn nested_call_cost(_: &[String]) {
    let mut add = common::tool("add");
    add.parameters = Some(
        json!({ "type": "object", "properties": { "a": { "type": "number" }, "b": { "type": "number" } }, "required": ["a", "b"], "additionalProperties": false }),
    );
    let s = common::session(
        "probe",
        json!({ "timeoutMs": 60000 }),
        vec![add],
        Arc::new(InstantHost),
    );
    let code = "let s = 0;\nfor (let i = 0; i < 20000; i++) s += (await add({ a: i, b: 1 })).sum;\nreturn s";
    let _ = common::exec_within(&s, code, Duration::from_secs(60));
    let start = Instant::now();
    let out = common::exec_within(&s, code, Duration::from_secs(60));
    println!(
        "engine cost per nested call: {:.2} us ({})",
        start.elapsed().as_secs_f64() * 1e6 / 20000.0,
        out.map(|o| o.to_string().chars().take(80).collect::<String>())
            .unwrap_or_default()
    );
}

/// A nested-call record's previews of a small input and result, made at once (redacted:
/// the token, credential-pair and secret passes) and deferred (kept as they came, redacted
/// when a result reads the record), per call.
pub fn record_previews(_: &[String]) {
    use codemode_native::run::nested_calls::{deferred_preview, preview};
    use codemode_native::source::redact::Redactor;
    let redactor = Redactor::default();
    let (input, output) = (r#"{"a":12345,"b":1}"#, r#"{"sum":12346}"#);
    let n = 1_000_000;
    for round in 0..3 {
        let t = Instant::now();
        for _ in 0..n {
            std::hint::black_box(preview(&redactor, std::hint::black_box(input)));
            std::hint::black_box(preview(&redactor, std::hint::black_box(output)));
        }
        let eager = micros_per(t, n) * 1000.0;
        let t = Instant::now();
        for _ in 0..n {
            std::hint::black_box(deferred_preview(&redactor, std::hint::black_box(input)));
            std::hint::black_box(deferred_preview(&redactor, std::hint::black_box(output)));
        }
        let deferred = micros_per(t, n) * 1000.0;
        println!(
            "round {round}: previews per call at once {eager:.0} ns, deferred {deferred:.0} ns"
        );
    }
}

/// Parsing, catalog build, session creation and `model_tools` for the catalog in the
/// `{"tools": [...]}` file named by the first argument.
pub fn large_catalog(args: &[String]) {
    let Some(path) = args.first() else {
        eprintln!("large-catalog needs the path of a {{\"tools\": [...]}} JSON file");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read the catalog {path}: {e}"));
    let t = Instant::now();
    let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    println!("parse: {:?}", t.elapsed());
    let tools: Vec<ToolSpec> = value["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|t| ToolSpec {
            name: t["name"].as_str().unwrap_or("").into(),
            description: t["description"].as_str().unwrap_or("").into(),
            label: None,
            parameters: t.get("parameters").cloned(),
            output_schema: t.get("outputSchema").cloned().filter(|v| !v.is_null()),
            source: Source::Core,
            direct_only: false,
            replay_safe: false,
            control: false,
        })
        .collect();
    let t = Instant::now();
    let catalog = Catalog::build(tools.clone(), &[]);
    println!(
        "catalog build: {:?} ({} entries)",
        t.elapsed(),
        catalog.len()
    );
    let t = Instant::now();
    let s = session(json!({}), tools);
    println!("session new: {:?}", t.elapsed());
    let t = Instant::now();
    let m = s.model_tools();
    println!(
        "model tools: {:?} ({} bytes)",
        t.elapsed(),
        m.to_string().len()
    );
}

/// A deterministic VM against a plain one: bind, and the guest's clock and random reads.
pub fn determinism(_: &[String]) {
    let n = 1000;
    let limits = VmLimits {
        memory_bytes: 64 << 20,
        max_stack_bytes: 1 << 20,
    };
    let seeded = Determinism {
        seed: 1,
        origin_ms: 1.7e12,
    };
    let reads = 100_000;
    let loop_of =
        |read: &str| format!("let x = 0; for (let i = 0; i < {reads}; i++) x += {read}; return x");
    for (label, determinism) in [("plain", None), ("deterministic", Some(seeded))] {
        let mut bind = 0.0;
        for _ in 0..n {
            let Ok(vm) = Vm::blank() else { continue };
            let t = Instant::now();
            bind_null_with(&vm, limits, determinism);
            bind += t.elapsed().as_secs_f64();
        }
        let vm = Vm::blank().ok().unwrap();
        bind_null_with(&vm, limits, determinism);
        let mut per_read = Vec::new();
        for read in [
            "Date.now()",
            "new Date().getTime()",
            "performance.now()",
            "Math.random()",
        ] {
            let t = Instant::now();
            let _ = vm.start(&loop_of(read), "user.js");
            vm.drain_jobs(&Control::new());
            per_read.push(format!("{read} {:.3} us", micros_per(t, reads)));
        }
        println!(
            "{label}: bind {:.1} us; per read: {}",
            bind * 1e6 / f64::from(n),
            per_read.join(", ")
        );
    }
}
