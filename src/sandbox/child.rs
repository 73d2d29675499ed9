//! The sandbox process's side: VMs keyed by id, commands run on a fixed set of executor
//! threads started before the jail closes, bridge calls forwarded to the addon. The end
//! of its input (the addon exited or was killed) ends the process at once.

mod args;
mod proxy;

pub use args::Args;

use super::jail;
use super::privileges::{self, Parent};
use super::wire::{
    read_frame, write_frame, Clock, Done, Figures, FromChild, StartFailure, Step, ToChild,
};
use crate::guest::control::{Control, Interrupt};
use crate::guest::vm::{Vm, VmLimits};
use crate::runtime::spare_vms::Spares;
use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;
use proxy::ProxyBridge;
use std::collections::HashMap;
use std::io::{BufReader, BufWriter};
use std::sync::Arc;
use std::time::Duration;

/// Where frames to the addon go; shared by every executor.
type Out = Arc<Mutex<BufWriter<std::io::Stdout>>>;
type Job = (Arc<Guest>, Clock, Vec<Step>);

/// One VM and what its commands share.
struct Guest {
    id: u64,
    vm: Mutex<Option<Vm>>,
    control: Arc<Control>,
    replies: (
        Sender<super::wire::BridgeReply>,
        Receiver<super::wire::BridgeReply>,
    ),
    /// The largest frame the addon accepts from this process (set by `Bind`).
    max_frame: std::sync::atomic::AtomicUsize,
}

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
    // One spare at start (a second would compete with the session's first cell), two
    // after: enough for the cells a session starts back to back.
    let (spares, keep_house) = Spares::new(2, 1);
    let intake = Arc::new(Intake {
        input: Mutex::new(BufReader::new(std::io::stdin())),
        guests: Mutex::new(HashMap::new()),
        out: Arc::new(Mutex::new(BufWriter::new(std::io::stdout()))),
        spares,
    });
    // One more than may run at once, so a thread is always free to read aborts and the
    // replies a running guest waits for, even beside a worker the addon gave up on.
    let executors = args.executors.max(1) + 1;
    // Every thread must be fully started before the jail (thread start-up itself makes
    // system calls the filter forbids), and no executor may read a frame before it is
    // closed. The housekeeper reads none: its first spare is made while the jail closes.
    let started = Arc::new(std::sync::Barrier::new(executors + 2));
    let jailed = Arc::new(std::sync::Barrier::new(executors + 1));
    let housekeeper = {
        let (started, intake) = (started.clone(), intake.clone());
        std::thread::Builder::new()
            .name("codemode-sandbox-spares".into())
            .spawn(move || {
                started.wait();
                keep_house(&intake.spares);
            })
    };
    if housekeeper.is_err() {
        return 70;
    }
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
    jailed.wait();
    // The executors read and run everything; the main thread's stack is not sized for
    // guests. The first to read the pipe's end ends the process.
    loop {
        std::thread::park();
    }
}

/// Tells the addon why this process cannot start (its stderr goes nowhere); the exit
/// status to end with. No executor has written yet, so the frame is not interleaved.
fn fatal(message: String) -> i32 {
    let _ = write_frame(&mut std::io::stdout().lock(), &FromChild::Fatal { message });
    71
}

/// The pipe from the addon and what its frames reach. Threads take turns reading it: the
/// one that reads a command hands the pipe to the next idle thread and runs the command
/// itself, so a command starts without waking a second thread.
struct Intake {
    input: Mutex<BufReader<std::io::Stdin>>,
    guests: Mutex<HashMap<u64, Arc<Guest>>>,
    out: Out,
    spares: Spares,
}

impl Intake {
    /// An executor's life: read until a command comes, run it, and again.
    fn execute(&self) -> ! {
        loop {
            let (guest, clock, steps) = self.read_until_run();
            guest.run(clock, steps, &self.out, &self.spares);
        }
    }

    /// Reads frames, handling all but commands, until a command comes; the pipe is free
    /// for the next reader once this returns. At the pipe's end (the addon is gone) the
    /// process ends.
    fn read_until_run(&self) -> Job {
        let mut input = self.input.lock();
        loop {
            let Ok(Some(message)) = read_frame::<ToChild>(&mut *input) else {
                // Nobody can use what this process holds.
                std::process::exit(0)
            };
            match message {
                ToChild::Run { vm, clock, steps } => {
                    let guest = self
                        .guests
                        .lock()
                        .entry(vm)
                        .or_insert_with(|| Guest::new(vm))
                        .clone();
                    return (guest, clock, steps);
                }
                ToChild::Reply { vm, reply } => {
                    if let Some(guest) = self.guests.lock().get(&vm) {
                        let _ = guest.replies.0.send(reply);
                    }
                }
                ToChild::Abort { vm } => {
                    if let Some(guest) = self.guests.lock().get(&vm) {
                        guest.control.abort();
                    }
                }
                ToChild::Release { vm } => {
                    if let Some(guest) = self.guests.lock().remove(&vm) {
                        self.spares.free(Box::new(guest));
                    }
                }
                ToChild::Forbidden { call } => jail::attempt_forbidden(&call),
            }
        }
    }
}

/// The overrun hook of a command: the front-end's parse of its source ran over its memory
/// budget. The cell is refused, and the process exits, since that thread cannot go on.
fn refuse_and_exit(vm: u64, out: &Out) {
    let done = Done {
        started: Some(Err(StartFailure::TooComplex)),
        map: None,
        first_unhandled: None,
        figures: Figures::default(),
    };
    let _ = write_frame(&mut *out.lock(), &FromChild::Done { vm, done });
    // SAFETY: `_exit` ends the process without running anything else; the addon reports
    // the end to the session's other runs.
    unsafe { libc::_exit(super::wire::EXIT_PARSE_OVERRUN) }
}

/// The answer to a command, within the addon's frame cap: a huge source's position map
/// (errors then point into the JavaScript) or rejection text is left out rather than get
/// the process killed.
fn fit(vm: u64, mut done: Done, max_frame: usize) -> FromChild {
    let size = |done: &Done| serde_json::to_vec(done).map_or(usize::MAX, |body| body.len() + 64);
    if size(&done) > max_frame {
        done.map = None;
    }
    if size(&done) > max_frame {
        done.first_unhandled =
            Some("RangeError: the unhandled rejection was too large to report".into());
    }
    FromChild::Done { vm, done }
}

impl Guest {
    fn new(id: u64) -> Arc<Guest> {
        Arc::new(Guest {
            id,
            vm: Mutex::new(None),
            control: Arc::new(Control::new()),
            replies: crossbeam_channel::unbounded(),
            max_frame: std::sync::atomic::AtomicUsize::new(super::wire::MAX_FRAME),
        })
    }

    fn run(self: &Arc<Self>, clock: Clock, steps: Vec<Step>, out: &Out, spare: &Spares) {
        let (vm, report) = (self.id, out.clone());
        crate::runtime::alloc_budget::on_overrun_here(Box::new(move || {
            refuse_and_exit(vm, &report)
        }));
        let remaining = clock
            .remaining_ns
            .map_or(Duration::MAX, Duration::from_nanos);
        self.control.set_deadline_after(remaining);
        if clock.aborted {
            self.control.abort();
        }
        let mut slot = self.vm.lock();
        let mut done = Done {
            started: None,
            map: None,
            first_unhandled: None,
            figures: Figures::default(),
        };
        for step in steps {
            if !self.step(&mut slot, step, &mut done, out, spare) {
                break;
            }
        }
        if let Some(vm) = slot.as_ref() {
            done.figures = Figures {
                has_unhandled: vm.has_unhandled_rejection(),
                heap_bytes: vm.heap_bytes(),
                peak_heap_bytes: vm.peak_heap_bytes(),
                memory_exhausted: vm.memory_exhausted(),
                interrupt: 0,
            };
        }
        done.figures.interrupt = self.control.interrupt_code();
        drop(slot);
        let max_frame = self.max_frame.load(std::sync::atomic::Ordering::SeqCst);
        let _ = write_frame(&mut *out.lock(), &fit(self.id, done, max_frame));
    }

    /// Runs one step; false when the rest must not run (as the in-process cell would stop).
    fn step(
        self: &Arc<Self>,
        slot: &mut Option<Vm>,
        step: Step,
        done: &mut Done,
        out: &Out,
        spare: &Spares,
    ) -> bool {
        if let Step::Bind {
            memory_bytes,
            max_stack_bytes,
            config_json,
            max_frame_bytes,
        } = step
        {
            self.max_frame
                .store(max_frame_bytes, std::sync::atomic::Ordering::SeqCst);
            let limits = VmLimits {
                memory_bytes,
                max_stack_bytes,
            };
            let bound = self.bind(slot, limits, &config_json, out, spare);
            let ok = bound.is_ok();
            done.started = Some(bound);
            return ok;
        }
        let Some(vm) = slot.as_ref() else {
            done.started = Some(Err(StartFailure::Runtime(
                "the sandbox has no VM for this run".into(),
            )));
            return false;
        };
        match step {
            Step::Bind { .. } => {}
            Step::Start { code, language } => {
                let started = match crate::source::prepare(&code, language) {
                    Ok(prepared) => {
                        done.map = prepared.map;
                        vm.start(&prepared.js, language.user_file())
                            .map_err(StartFailure::from)
                    }
                    Err(refused) => Err(StartFailure::Refused(refused.message)),
                };
                let ok = started.is_ok();
                done.started = Some(started);
                return ok;
            }
            Step::Settle { id, ok, payload } => vm.settle(id, ok, &payload),
            Step::FireTimer { id } => vm.fire_timer(id),
            Step::Refuse { id, message } => vm.refuse(id, &message),
            Step::DrainJobs => vm.drain_jobs(&self.control),
            Step::FirstUnhandled => done.first_unhandled = vm.first_unhandled_rejection(),
        }
        self.control.interrupt() == Interrupt::None
    }

    fn bind(
        self: &Arc<Self>,
        slot: &mut Option<Vm>,
        limits: VmLimits,
        config_json: &str,
        out: &Out,
        spare: &Spares,
    ) -> Result<(), StartFailure> {
        let vm = spare.take().map_err(StartFailure::from)?;
        let bridge = Arc::new(ProxyBridge::new(
            self.id,
            out.clone(),
            self.replies.1.clone(),
            self.max_frame.load(std::sync::atomic::Ordering::SeqCst),
        ));
        vm.bind(limits, self.control.clone(), bridge, config_json)
            .map_err(StartFailure::from)?;
        *slot = Some(vm);
        Ok(())
    }
}
