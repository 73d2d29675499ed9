//! Deterministic VMs (`Determinism` at bind), in this process and in a real sandbox
//! process through `VmHandle`: the clock reads its origin until `set_clock` in every read
//! path and alias, `Math.random` follows the seed, and without determinism nothing changes.
#![cfg(unix)]

mod common;

use codemode_native::guest::vm::{Determinism, StartError};
use codemode_native::sandbox::handle::VmHandle;
use common::recorded::{guest, try_guest, Mode, MODES};
use serde_json::{json, Value};
use std::time::{SystemTime, UNIX_EPOCH};

const ORIGIN_MS: f64 = 1_700_000_000_000.0;
const SEEDED: Determinism = Determinism {
    seed: 42,
    origin_ms: ORIGIN_MS,
};

/// Every way the guest reads the time, through the aliases it can reach.
const READS: &str = r#"
function reads() {
  class Sub extends Date {}
  const sub = new Sub();
  return {
    now: Date.now(),
    newDate: new Date().getTime(),
    valueOf: +new Date(),
    called: Date() === new Date(Date.now()).toString(),
    calledWithArgs: Date(2001, 1) === Date(),
    prototypeConstructor: new Date.prototype.constructor().getTime(),
    instanceConstructor: new (new Date(0).constructor)().getTime(),
    reflect: Reflect.construct(Date, []).getTime(),
    reflectTarget: Reflect.construct(Date, [], Sub) instanceof Sub,
    sub: sub.getTime(),
    subKept: sub instanceof Sub && sub instanceof Date && sub.constructor === Sub,
    bound: new (Date.bind(null))().getTime(),
    detachedNow: (0, Date.now)(),
    descriptorNow: Object.getOwnPropertyDescriptor(Date, "now").value(),
    globalDate: new globalThis.Date().getTime(),
    performanceNow: performance.now(),
    globalPerformanceNow: globalThis.performance.now(),
    detachedPerformanceNow: (0, performance.now)(),
    timeOrigin: performance.timeOrigin,
    local: new Date().toLocaleString() === new Date(Date.now()).toLocaleString(),
  };
}
"#;

fn check_reads(reads: &Value, clock: f64, origin: f64, what: &str) {
    let date = clock.trunc();
    for key in [
        "now",
        "newDate",
        "valueOf",
        "prototypeConstructor",
        "instanceConstructor",
        "reflect",
        "sub",
        "bound",
        "detachedNow",
        "descriptorNow",
        "globalDate",
    ] {
        assert_eq!(reads[key].as_f64(), Some(date), "{what}: {key} in {reads}");
    }
    for key in [
        "performanceNow",
        "globalPerformanceNow",
        "detachedPerformanceNow",
    ] {
        assert_eq!(
            reads[key].as_f64(),
            Some(clock - origin),
            "{what}: {key} in {reads}"
        );
    }
    assert_eq!(
        reads["timeOrigin"].as_f64(),
        Some(origin),
        "{what}: {reads}"
    );
    for key in [
        "called",
        "calledWithArgs",
        "reflectTarget",
        "subKept",
        "local",
    ] {
        assert_eq!(reads[key], json!(true), "{what}: {key} in {reads}");
    }
}

#[test]
fn the_clock_reads_its_origin_in_every_path_until_set_and_then_the_new_time() {
    for mode in MODES {
        let guest = guest(mode, Some(SEEDED));
        let code = format!(
            "{READS}\nconst first = reads(); await yield_control('tick');\n\
             const second = reads(); await yield_control('tock');\n\
             return {{ first, second, third: reads() }};"
        );
        let later = ORIGIN_MS + 1234.75;
        let result = guest.run(&code, &[later, ORIGIN_MS - 5.5]);
        check_reads(
            &result["first"],
            ORIGIN_MS,
            ORIGIN_MS,
            &format!("{mode:?} first"),
        );
        check_reads(
            &result["second"],
            later,
            ORIGIN_MS,
            &format!("{mode:?} second"),
        );
        // The clock is the host's to move, backwards too.
        let earlier = ORIGIN_MS - 5.5;
        check_reads(
            &result["third"],
            earlier,
            ORIGIN_MS,
            &format!("{mode:?} third"),
        );
    }
}

#[test]
fn the_replaced_built_ins_look_like_the_originals_and_dates_with_arguments_are_unchanged() {
    let code = r#"
      const d = Object.getOwnPropertyDescriptor(globalThis, "Date");
      const p = Object.getOwnPropertyDescriptor(Date, "prototype");
      return {
        typeofDate: typeof Date, name: Date.name, length: Date.length,
        sameConstructor: Date.prototype.constructor === Date,
        instance: new Date() instanceof Date,
        tag: Object.prototype.toString.call(new Date()),
        native: Function.prototype.toString.call(Date).includes("[native code]"),
        globalAttributes: [d.writable, d.enumerable, d.configurable],
        prototypeAttributes: [p.writable, p.enumerable, p.configurable],
        epoch: new Date(0).getTime(),
        fields: new Date(2020, 0, 2, 3, 4, 5, 6).getMilliseconds(),
        year: new Date(2020, 0, 1).getFullYear(),
        utc: Date.UTC(2020, 0, 1),
        parsed: Date.parse("2020-01-01T00:00:00Z"),
        fromString: new Date("2020-01-01T00:00:00Z").getTime(),
        copy: new Date(new Date(5)).getTime(),
        invalid: Number.isNaN(new Date(NaN).getTime()),
        randomIsNative: Function.prototype.toString.call(Math.random).includes("[native code]"),
        intl: typeof Intl,
        atomicsWait: (() => {
          try { return Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1); }
          catch (e) { return "throws"; }
        })(),
      };
    "#;
    for mode in MODES {
        let result = guest(mode, Some(SEEDED)).run(code, &[]);
        assert_eq!(
            result,
            json!({
                "typeofDate": "function", "name": "Date", "length": 7,
                "sameConstructor": true, "instance": true, "tag": "[object Date]",
                "native": true, "globalAttributes": [true, false, true],
                "prototypeAttributes": [false, false, false],
                "epoch": 0, "fields": 6, "year": 2020,
                "utc": 1_577_836_800_000u64, "parsed": 1_577_836_800_000u64,
                "fromString": 1_577_836_800_000u64, "copy": 5, "invalid": true,
                "randomIsNative": true, "intl": "undefined", "atomicsWait": "throws",
            }),
            "{mode:?}"
        );
    }
}

#[test]
fn no_stack_frame_or_caller_hands_the_guest_the_built_in_date() {
    // The built-in constructor is on the stack while it converts an argument.
    let code = r#"
      const found = [];
      function sloppyValueOf() {
        Error.prepareStackTrace = (e, sites) => sites.map((site) => site.getFunction());
        const functions = new Error().stack;
        Error.prepareStackTrace = undefined;
        let caller;
        try { caller = sloppyValueOf.caller; } catch (e) { caller = e; }
        found.push({ functions, caller });
        return 0;
      }
      new Date({ valueOf: sloppyValueOf });
      Reflect.construct(Date, [{ valueOf: sloppyValueOf }], class extends Date {});
      return found.map(({ functions, caller }) => ({
        frames: functions.length > 1,
        handed: functions.filter((f) => f !== undefined).length,
        callerIsFunction: typeof caller === "function",
      }));
    "#;
    for mode in MODES {
        let result = guest(mode, Some(SEEDED)).run(code, &[]);
        let seen = json!({ "frames": true, "handed": 0, "callerIsFunction": false });
        assert_eq!(result, json!([seen.clone(), seen]), "{mode:?}");
    }
}

const RANDOMS: &str = "return Array.from({ length: 16 }, () => Math.random());";

fn randoms(mode: Mode, determinism: Option<Determinism>) -> Vec<f64> {
    let result = guest(mode, determinism).run(RANDOMS, &[]);
    let values: Vec<f64> = serde_json::from_value(result).expect("numbers");
    assert!(values.iter().all(|v| (0.0..1.0).contains(v)), "{values:?}");
    values
}

#[test]
fn the_same_seed_gives_the_same_random_sequence_in_either_mode_and_another_seed_another() {
    let thread = randoms(Mode::Thread, Some(SEEDED));
    assert_eq!(thread, randoms(Mode::Thread, Some(SEEDED)));
    assert_eq!(thread, randoms(Mode::Process, Some(SEEDED)));
    let other = Determinism { seed: 43, ..SEEDED };
    let reseeded = randoms(Mode::Process, Some(other));
    assert_ne!(thread, reseeded);
    assert_eq!(reseeded, randoms(Mode::Thread, Some(other)));
    // The clock origin is not part of the sequence.
    let moved = Determinism {
        origin_ms: 0.0,
        ..SEEDED
    };
    assert_eq!(thread, randoms(Mode::Thread, Some(moved)));
}

#[test]
fn two_vms_with_the_same_determinism_and_clock_sequence_see_identical_values() {
    // Timers, yields, promise jobs and the values the guest derives from the clock.
    let code = r#"
      const seen = [];
      const stamp = (tag) => seen.push([tag, Date.now(), performance.now(), Math.random(), String(new Date())]);
      stamp("start");
      await new Promise((resolve) => setTimeout(() => { stamp("timer"); resolve(); }, 10));
      await Promise.resolve().then(() => stamp("job"));
      await yield_control("again");
      stamp("resumed");
      return seen;
    "#;
    let run = |mode: Mode| {
        let guest = guest(mode, Some(SEEDED));
        guest.start(code);
        guest.vm.set_clock(ORIGIN_MS + 10.25);
        guest.fire_timer();
        guest.vm.set_clock(ORIGIN_MS + 99.5);
        guest.resume();
        guest.recorder.result()
    };
    let thread = run(Mode::Thread);
    let read = |stamp: usize, what: usize| thread[stamp][what].as_f64();
    assert_eq!(read(0, 1), Some(ORIGIN_MS), "{thread}");
    assert_eq!(read(1, 1), Some(ORIGIN_MS + 10.0), "{thread}");
    assert_eq!(read(1, 2), Some(10.25), "{thread}");
    assert_eq!(read(2, 2), Some(10.25), "{thread}");
    assert_eq!(read(3, 2), Some(99.5), "{thread}");
    assert_eq!(thread, run(Mode::Thread));
    assert_eq!(thread, run(Mode::Process));
}

fn epoch_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as f64
}

#[test]
fn without_determinism_the_clock_is_real_time_and_random_differs_across_vms() {
    for mode in MODES {
        let guest = guest(mode, None);
        let before = epoch_ms();
        guest.start("await yield_control('x'); return [Date.now(), new Date().getTime()];");
        // Ignored without determinism.
        guest.vm.set_clock(ORIGIN_MS);
        guest.resume();
        let after = epoch_ms();
        let read: Vec<f64> = serde_json::from_value(guest.recorder.result()).expect("numbers");
        for value in read {
            assert!(
                before <= value && value <= after,
                "{mode:?}: {value} not within [{before}, {after}]"
            );
        }
        assert_ne!(randoms(mode, None), randoms(mode, None), "{mode:?}");
    }
}

#[test]
fn a_clock_time_that_is_not_finite_leaves_the_clock_as_it_was() {
    for mode in MODES {
        let guest = guest(mode, Some(SEEDED));
        let code = "await yield_control('a'); const a = Date.now(); \
                    await yield_control('b'); return [a, Date.now(), performance.now()];";
        guest.start(code);
        guest.vm.set_clock(f64::NAN);
        guest.resume();
        guest.vm.set_clock(ORIGIN_MS + 7.0);
        guest.vm.set_clock(f64::INFINITY);
        guest.vm.set_clock(f64::NEG_INFINITY);
        guest.resume();
        let read: Vec<f64> = serde_json::from_value(guest.recorder.result()).expect("numbers");
        assert_eq!(read, [ORIGIN_MS, ORIGIN_MS + 7.0, 7.0], "{mode:?}");
    }
}

#[test]
fn a_determinism_origin_that_is_not_finite_is_refused_at_bind() {
    for mode in MODES {
        for origin_ms in [f64::NAN, f64::INFINITY] {
            let bound = try_guest(mode, Some(Determinism { seed: 1, origin_ms }));
            match bound {
                Err(StartError::Runtime(message)) => {
                    assert_eq!(message, "the determinism origin is not a finite time")
                }
                Err(other) => panic!("{mode:?}: {other:?}"),
                Ok(_) => panic!("{mode:?}: a bind with origin {origin_ms} succeeded"),
            }
        }
    }
}

#[test]
fn a_sandboxed_clock_change_sends_no_frame_of_its_own_and_goes_with_the_next_command() {
    let guest = guest(Mode::Process, Some(SEEDED));
    guest.start("await yield_control('a'); return Date.now();");
    let VmHandle::Process(remote) = &guest.vm else {
        unreachable!("a process-mode guest");
    };
    let frames = remote.process().seen().frames;
    guest.vm.set_clock(ORIGIN_MS + 1.0);
    guest.vm.set_clock(ORIGIN_MS + 2.0);
    // Nothing else waits, so there is nothing to drain: no command goes.
    guest.vm.drain_jobs(&guest.control);
    assert!(guest.vm.first_unhandled_rejection().is_none());
    assert_eq!(remote.process().seen().frames, frames, "no frame was read");
    guest.resume();
    assert_eq!(guest.recorder.result().as_f64(), Some(ORIGIN_MS + 2.0));
}
