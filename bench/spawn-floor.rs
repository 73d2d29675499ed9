//! The floor of a sandbox start (issue 36's burst): N spawns of a trivial binary from one
//! thread of a process holding a large resident heap, by `posix_spawn` and by `fork`.
//! Std only: `rustc -O bench/spawn-floor.rs -o target/spawn-floor && target/spawn-floor`.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let program = args.get(2).cloned().unwrap_or_else(|| "/bin/true".into());
    println!("heap_mib,method,spawn_us_median,spawn_us_p90,spawn_and_exit_us_median");
    let mut heap: Vec<Vec<u8>> = Vec::new();
    for heap_mib in [0usize, 256, 1024, 4096] {
        // Touch every page, as a gateway's live heap is: fork copies its page tables.
        while heap.len() < heap_mib / 64 {
            heap.push(vec![1u8; 64 << 20]);
        }
        for fork in [false, true] {
            let program = program.clone();
            let figures = std::thread::spawn(move || measure(&program, count, fork))
                .join()
                .unwrap_or_default();
            let method = if fork { "fork+exec" } else { "posix_spawn" };
            println!(
                "{heap_mib},{method},{},{},{}",
                median(&figures.0),
                p90(&figures.0),
                median(&figures.1)
            );
        }
    }
    std::hint::black_box(&heap);
}

/// Per spawn: the time `spawn` holds the spawning thread, and spawn until reaped.
fn measure(program: &str, count: usize, fork: bool) -> (Vec<u64>, Vec<u64>) {
    let (mut spawn, mut whole) = (Vec::new(), Vec::new());
    for _ in 0..count {
        let mut command = Command::new(program);
        command
            .env_clear()
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        if fork {
            // A pre-exec hook makes std fork instead of posix_spawn.
            // SAFETY: the hook does nothing.
            unsafe { command.pre_exec(|| Ok(())) };
        }
        let began = Instant::now();
        let Ok(mut child) = command.spawn() else {
            continue;
        };
        spawn.push(micros(began));
        let _ = child.wait();
        whole.push(micros(began));
    }
    (spawn, whole)
}

fn micros(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX)
}

fn median(values: &[u64]) -> u64 {
    percentile(values, 50)
}

fn p90(values: &[u64]) -> u64 {
    percentile(values, 90)
}

fn percentile(values: &[u64], at: usize) -> u64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.get(sorted.len() * at / 100).copied().unwrap_or(0)
}
