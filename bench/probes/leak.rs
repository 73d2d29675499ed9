//! Leak probes: resident-memory growth over thousands of VMs and cells, with the engine's
//! live-VM and pending-timer counts.

use std::sync::atomic::Ordering;
use std::time::Duration;

use codemode_native::guest::control::Control;
use codemode_native::guest::vm::{Vm, VmLimits, LIVE_VMS};
use codemode_native::runtime::timer;
use serde_json::json;

use crate::common::tool;
use crate::hosts::{bind_null, exec, session, wait};

/// The process's resident set in KB (Linux; 0 elsewhere).
fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmRSS:")).map(|l| {
                l.split_whitespace()
                    .nth(1)
                    .unwrap_or("0")
                    .parse()
                    .unwrap_or(0)
            })
        })
        .unwrap_or(0)
}

fn growth(before: u64) -> i64 {
    rss_kb() as i64 - before as i64
}

/// Growth over 3,000 VMs at each stage of their life, then over 3,000 trivial cells.
pub fn vm_and_exec(_: &[String]) {
    let before = rss_kb();
    for _ in 0..3000 {
        let vm = Vm::blank().ok();
        drop(vm);
    }
    println!("blank+drop: {} KB growth", growth(before));
    let limits = VmLimits {
        memory_bytes: 64 << 20,
        max_stack_bytes: 1 << 20,
    };
    let before = rss_kb();
    for _ in 0..3000 {
        let vm = Vm::blank().ok().unwrap();
        bind_null(&vm, limits);
        drop(vm);
    }
    println!("blank+bind+drop: {} KB growth", growth(before));
    let before = rss_kb();
    for _ in 0..3000 {
        let vm = Vm::blank().ok().unwrap();
        bind_null(&vm, limits);
        let _ = vm.start("return 1", "user.js");
        vm.drain_jobs(&Control::new());
        drop(vm);
    }
    println!("blank+bind+start+drop: {} KB growth", growth(before));
    let s = session(json!({}), vec![]);
    let before = rss_kb();
    for _ in 0..3000 {
        exec(&s, "return 1");
    }
    std::thread::sleep(Duration::from_millis(500));
    println!(
        "exec: {} KB growth, live VMs {}",
        growth(before),
        LIVE_VMS.load(Ordering::Relaxed)
    );
}

/// Six rounds of 2,000 cells mixing tool calls, tool errors, timers, output, throws and
/// yields (each waited to completion).
pub fn mixed(_: &[String]) {
    let s = session(
        json!({"timeoutMs": 200}),
        vec![tool("echo"), tool("broken")],
    );
    let programs = [
        "return await echo({a: 1})",
        "try { await broken({}) } catch (e) { return e.message }",
        "await new Promise(r => setTimeout(r, 1)); return 1",
        "text('x'.repeat(1000)); return [1, 2, 3]",
        "throw new Error('fail')",
        "await yield_control('y'); return 2",
    ];
    for round in 0..6 {
        let before = rss_kb();
        for i in 0..2000 {
            let mut result = exec(&s, programs[(i + round) % programs.len()]);
            while result["status"] == "waiting" {
                let run_id = result["runId"].as_str().unwrap_or_default().to_string();
                result = wait(&s, &run_id);
            }
        }
        println!(
            "round {round}: {} KB growth, timers pending {}, live VMs {}",
            growth(before),
            timer::pending(),
            LIVE_VMS.load(Ordering::Relaxed)
        );
    }
}
