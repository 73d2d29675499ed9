//! Who reads the addon's pipe: an idle executor, which runs the command it reads, else the
//! main thread, which queues commands until an executor is free (so a running guest's
//! replies and aborts are always read). A thread that sees no frame for a while trims.

use super::super::jail;
use super::super::wire::{read_frame, ToChild};
use super::guest::{Guest, Job};
use super::ready::{wait_for_input, Ready, Wake};
use super::Out;
use crate::runtime::give_back::free_memory_of_this_thread;
use crate::runtime::spare_vms::Spares;
use parking_lot::{Condvar, Mutex, MutexGuard};
use std::collections::{HashMap, VecDeque};
use std::io::{BufReader, Stdin};
use std::sync::Arc;
use std::time::Duration;

/// How long a thread goes without a frame or a command before it frees the spare VMs and
/// returns its free memory: long enough that a conversation's next turn finds spares.
const IDLE: Duration = Duration::from_secs(2);
/// The longest a command lingers for host replies, whatever the addon asks: it holds an
/// executor meanwhile.
const MAX_LINGER: Duration = Duration::from_millis(100);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Reader {
    Nobody,
    Executor,
    Main,
}

struct Turn {
    reader: Reader,
    /// Commands the main thread read, for the next executor to finish.
    jobs: VecDeque<Job>,
    /// Executors waiting for a command or the pipe.
    idle: usize,
    /// An idle executor has asked the main thread for the pipe since it took it.
    main_asked: bool,
}

pub(super) struct Intake {
    /// Locked only by the thread whose turn it is to read.
    pipe: Mutex<BufReader<Stdin>>,
    turn: Mutex<Turn>,
    for_executors: Condvar,
    for_main: Condvar,
    /// Ends the main thread's wait on the pipe when an executor becomes idle.
    wake: Wake,
    guests: Mutex<HashMap<u64, Arc<Guest>>>,
    out: Out,
    spares: Spares,
}

impl Intake {
    pub(super) fn new(out: Out, spares: Spares, wake: Wake) -> Intake {
        Intake {
            pipe: Mutex::new(BufReader::new(std::io::stdin())),
            turn: Mutex::new(Turn {
                reader: Reader::Nobody,
                jobs: VecDeque::new(),
                idle: 0,
                main_asked: false,
            }),
            for_executors: Condvar::new(),
            for_main: Condvar::new(),
            wake,
            guests: Mutex::new(HashMap::new()),
            out,
            spares,
        }
    }

    /// An executor's life: run a queued command, or read until one comes and run it, or
    /// wait for either; after `IDLE` with nothing, trim once.
    pub(super) fn execute(&self) -> ! {
        let mut trimmed = false;
        let mut turn = self.turn.lock();
        loop {
            if let Some(job) = turn.jobs.pop_front() {
                self.unwatched(&turn);
                drop(turn);
                self.run(job);
                trimmed = false;
            } else if turn.reader == Reader::Nobody {
                turn.reader = Reader::Executor;
                drop(turn);
                let job = self.read_until_run(&mut trimmed);
                self.pass_pipe(&mut self.turn.lock());
                self.run(job);
                trimmed = false;
            } else {
                if turn.reader == Reader::Main && !turn.main_asked {
                    turn.main_asked = true;
                    self.wake.signal();
                }
                turn.idle += 1;
                let timed_out = if trimmed {
                    self.for_executors.wait(&mut turn);
                    false
                } else {
                    self.for_executors.wait_for(&mut turn, IDLE).timed_out()
                };
                turn.idle -= 1;
                if !timed_out {
                    continue;
                }
                drop(turn);
                self.trim();
                trimmed = true;
            }
            turn = self.turn.lock();
        }
    }

    /// The main thread's life: read while no executor can, else wait; it runs no guest
    /// (its stack is not sized for one).
    pub(super) fn serve_main(&self) -> ! {
        let mut trimmed = false;
        let mut turn = self.turn.lock();
        loop {
            if turn.reader == Reader::Nobody && turn.idle == 0 {
                turn.reader = Reader::Main;
                turn.main_asked = false;
                // Busy again: the spares it makes, and the VMs it made that executors free,
                // are returned at its next idle trim.
                trimmed = false;
                drop(turn);
                self.read_for_busy_executors(&mut trimmed);
                turn = self.turn.lock();
                self.pass_pipe(&mut turn);
                if turn.idle > 0 {
                    // An executor reads now; the spare the last command took is made here,
                    // beside it, rather than on it before the next command.
                    drop(turn);
                    self.spares.tidy(true);
                    turn = self.turn.lock();
                }
            } else if trimmed {
                self.for_main.wait(&mut turn);
            } else if self.for_main.wait_for(&mut turn, IDLE).timed_out() {
                drop(turn);
                self.trim();
                trimmed = true;
                turn = self.turn.lock();
            }
        }
    }

    /// The pipe is nobody's: an idle executor takes it, else the main thread.
    fn pass_pipe(&self, turn: &mut MutexGuard<'_, Turn>) {
        turn.reader = Reader::Nobody;
        if turn.idle > 0 {
            self.for_executors.notify_all();
        } else {
            self.for_main.notify_one();
        }
    }

    /// Before an executor leaves to run a queued command: if nobody reads and no executor
    /// is idle to, the main thread must.
    fn unwatched(&self, turn: &Turn) {
        if turn.reader == Reader::Nobody && turn.idle == 0 {
            self.for_main.notify_one();
        }
    }

    fn run(&self, job: Job) {
        let guest = job.guest.clone();
        let busy = || !self.turn.lock().jobs.is_empty();
        guest.run(job, &self.out, &self.spares, &busy);
        // Spares are made after the answer is written and only when no command waits; by
        // the main thread if it holds the pipe, since it hands the pipe back now and then
        // has nothing to do.
        let refill = {
            let turn = self.turn.lock();
            turn.jobs.is_empty() && turn.reader != Reader::Main
        };
        self.spares.tidy(refill);
    }

    /// Idle: spares and free memory go back to the system. Each thread that made spares
    /// trims, so whichever comes last returns the pages of those the other freed.
    fn trim(&self) {
        self.spares.clear();
        free_memory_of_this_thread();
    }

    /// An executor's turn at the pipe: frames until a command, which it then runs.
    fn read_until_run(&self, trimmed: &mut bool) -> Job {
        let mut pipe = self.pipe.lock();
        loop {
            if !*trimmed
                && pipe.buffer().is_empty()
                && wait_for_input(None, Some(IDLE)) == Ready::TimedOut
            {
                self.trim();
                *trimmed = true;
                continue;
            }
            *trimmed = false;
            if let Some(job) = self.handle(read_frame::<ToChild>(&mut *pipe)) {
                return job;
            }
        }
    }

    /// The main thread's turn: frames, commands queued for the executors, until an idle
    /// executor asks for the pipe.
    fn read_for_busy_executors(&self, trimmed: &mut bool) {
        let mut pipe = self.pipe.lock();
        loop {
            if pipe.buffer().is_empty() {
                match wait_for_input(Some(&self.wake), (!*trimmed).then_some(IDLE)) {
                    Ready::Woken => return,
                    Ready::TimedOut => {
                        self.trim();
                        *trimmed = true;
                        continue;
                    }
                    Ready::Input => {}
                }
            }
            *trimmed = false;
            if let Some(job) = self.handle(read_frame::<ToChild>(&mut *pipe)) {
                self.turn.lock().jobs.push_back(job);
                self.for_executors.notify_all();
            }
        }
    }

    /// Handles a frame; a command is returned for running. At the pipe's end (the addon is
    /// gone) the process ends.
    fn handle(&self, frame: std::io::Result<Option<ToChild>>) -> Option<Job> {
        let Ok(Some(message)) = frame else {
            // Nobody can use what this process holds.
            std::process::exit(0)
        };
        match message {
            ToChild::Run {
                vm,
                clock,
                linger_ns,
                hold_calls,
                steps,
            } => {
                let guest = self
                    .guests
                    .lock()
                    .entry(vm)
                    .or_insert_with(|| Guest::new(vm))
                    .clone();
                return Some(Job {
                    guest,
                    clock,
                    linger: Duration::from_nanos(linger_ns).min(MAX_LINGER),
                    hold_calls,
                    steps,
                });
            }
            ToChild::Apply { vm, step } => {
                if let Some(guest) = self.guests.lock().get(&vm) {
                    guest.apply_later(step);
                }
            }
            ToChild::Reply { vm, reply } => {
                if let Some(guest) = self.guests.lock().get(&vm) {
                    let _ = guest.replies.0.send(reply);
                }
            }
            ToChild::Abort { vm } => {
                if let Some(guest) = self.guests.lock().get(&vm) {
                    guest.control.abort();
                    guest.interrupt_wait();
                }
            }
            ToChild::Release { vm } => {
                if let Some(guest) = self.guests.lock().remove(&vm) {
                    // A command of it that lingers has nobody left to answer it.
                    guest.control.abort();
                    guest.interrupt_wait();
                    self.spares.free(Box::new(guest));
                }
            }
            ToChild::Forbidden { call } => jail::attempt_forbidden(&call),
        }
        None
    }
}
