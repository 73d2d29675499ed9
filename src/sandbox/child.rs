//! The sandbox process's side: VMs keyed by id, commands run on executor threads started
//! before the jail closes, bridge calls forwarded to the addon. The end of its input (the
//! addon exited or was killed) ends the process at once.

mod args;
mod guest;
mod intake;
mod linger;
mod proxy;
mod ready;

pub use args::Args;

use super::jail;
use super::privileges::{self, Parent};
use super::wire::{write_frame, FromChild};
use crate::runtime::spare_vms::Spares;
use intake::Intake;
use parking_lot::Mutex;
use ready::Wake;
use std::io::BufWriter;
use std::sync::{Arc, Barrier};

/// Where frames to the addon go; shared by every executor.
type Out = Arc<Mutex<BufWriter<std::io::Stdout>>>;

/// The sandbox executable's entry: serves the addon on stdin/stdout until stdin ends.
pub fn serve(args: Args) -> i32 {
    // A panic here is a bug: dying makes the addon report a crash instead of waiting on a
    // command that will never answer.
    std::panic::set_hook(Box::new(|_| std::process::abort()));
    jail::close_inherited_fds();
    // Credentials are per thread: they change before the first thread starts, so every
    // thread inherits them.
    match privileges::give_up(args.parent_pid) {
        Ok(Parent::Alive) => {}
        // Nobody can use what this process would hold.
        Ok(Parent::Gone) => return 0,
        Err(error) => return fatal(format!("cannot drop privileges: {error}")),
    }
    let Ok(wake) = Wake::new() else {
        return 70;
    };
    // One spare per executor, each of which may bind a cell at once, and one more: back to
    // back cells then find one ready while the one taken is remade. None at start: made
    // while the jail closes, it made no measurable difference to a new session's first
    // cell (bench/README.md).
    let executors = args.executors.max(1);
    let out = Arc::new(Mutex::new(BufWriter::new(std::io::stdout())));
    let ready_out = out.clone();
    let intake = Arc::new(Intake::new(out, Spares::on_demand(executors + 1), wake));
    // Every thread must be fully started before the jail (thread start-up itself makes
    // system calls the filter forbids, and the filter forbids starting threads), and no
    // executor may read a frame before it is closed.
    let started = Arc::new(Barrier::new(executors + 1));
    let jailed = Arc::new(Barrier::new(executors + 1));
    for _ in 0..executors {
        let (started, jailed, intake) = (started.clone(), jailed.clone(), intake.clone());
        let spawned = std::thread::Builder::new()
            .name("codemode-sandbox".into())
            .stack_size(crate::runtime::pool::WORKER_STACK_BYTES)
            .spawn(move || {
                started.wait();
                jailed.wait();
                intake.execute();
            });
        if spawned.is_err() {
            return 70;
        }
    }
    started.wait();
    if let Err(error) = jail::lock_down(args.data_limit_bytes) {
        return fatal(format!("cannot lock down the process: {error}"));
    }
    // Before any executor can read a command, so before any other frame.
    if write_frame(&mut *ready_out.lock(), &FromChild::Ready).is_err() {
        return 0;
    }
    jailed.wait();
    intake.serve_main()
}

/// Tells the addon why this process cannot start (its stderr goes nowhere); the exit
/// status to end with. No executor has written yet, so the frame is not interleaved.
fn fatal(message: String) -> i32 {
    let _ = write_frame(&mut std::io::stdout().lock(), &FromChild::Fatal { message });
    71
}
