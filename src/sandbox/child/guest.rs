//! One VM of the sandbox process and the commands it runs: its steps, the answers to host
//! calls that come while it lingers, the answer within the addon's frame cap, and the
//! calls its guest makes through the proxy bridge.

use super::super::wire::{write_frame, Clock, Done, Figures, FromChild, StartFailure, Step};
use super::linger::Outstanding;
use super::proxy::ProxyBridge;
use super::Out;
use crate::guest::control::{Control, Interrupt};
use crate::guest::vm::{Vm, VmLimits};
use crate::runtime::spare_vms::Spares;
use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A command read from the pipe, waiting for or on an executor.
pub(super) struct Job {
    pub(super) guest: Arc<Guest>,
    pub(super) clock: Clock,
    pub(super) linger: Duration,
    /// See `ToChild::Run`.
    pub(super) hold_calls: bool,
    pub(super) steps: Vec<Step>,
}

/// One VM and what its commands share.
pub(super) struct Guest {
    id: u64,
    vm: Mutex<Option<Vm>>,
    pub(super) control: Arc<Control>,
    pub(super) replies: (
        Sender<super::super::wire::BridgeReply>,
        Receiver<super::super::wire::BridgeReply>,
    ),
    /// The largest frame the addon accepts from this process (set by `Bind`).
    max_frame: std::sync::atomic::AtomicUsize,
    /// `Apply` frames read for this VM, in order; `None` only ends a lingering wait (an
    /// abort came). Unbounded: the addon sends one per host call it answers.
    applies: (Sender<Option<Step>>, Receiver<Option<Step>>),
    /// `Apply` frames applied so far, reported in every `Done`.
    applied: AtomicU64,
    /// `Settle` and `FireTimer` steps of the command under way that landed so far.
    landed: AtomicU32,
    outstanding: Arc<Outstanding>,
}

/// The overrun hook of a command: the front-end's parse of its source ran over its memory
/// budget. The cell is refused, and the process exits, since that thread cannot go on.
fn refuse_and_exit(vm: u64, out: &Out) {
    let done = Done {
        started: Some(Err(StartFailure::TooComplex)),
        map: None,
        first_unhandled: None,
        figures: Figures::default(),
        applied: 0,
        landed_before_miss: None,
    };
    let _ = write_frame(&mut *out.lock(), &FromChild::Done { vm, done });
    // SAFETY: `_exit` ends the process without running anything else; the addon reports
    // the end to the session's other runs.
    unsafe { libc::_exit(super::super::wire::EXIT_PARSE_OVERRUN) }
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
    pub(super) fn new(id: u64) -> Arc<Guest> {
        Arc::new(Guest {
            id,
            vm: Mutex::new(None),
            control: Arc::new(Control::new()),
            replies: crossbeam_channel::unbounded(),
            max_frame: std::sync::atomic::AtomicUsize::new(super::super::wire::MAX_FRAME),
            applies: crossbeam_channel::unbounded(),
            applied: AtomicU64::new(0),
            landed: AtomicU32::new(0),
            outstanding: Arc::new(Outstanding::default()),
        })
    }

    /// An `Apply` frame for this VM, from the thread reading the pipe.
    pub(super) fn apply_later(&self, step: Step) {
        let _ = self.applies.0.send(Some(step));
    }

    /// Ends a lingering wait of this VM's command, if there is one (its guest was aborted).
    pub(super) fn interrupt_wait(&self) {
        let _ = self.applies.0.send(None);
    }

    /// Runs a command. `busy` tells whether other commands wait for an executor: this one
    /// then does not linger.
    pub(super) fn run(
        self: &Arc<Self>,
        job: Job,
        out: &Out,
        spare: &Spares,
        busy: &dyn Fn() -> bool,
    ) {
        let Job {
            clock,
            linger,
            hold_calls,
            steps,
            ..
        } = job;
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
            applied: 0,
            landed_before_miss: None,
        };
        self.outstanding.begin(hold_calls);
        self.landed.store(0, Ordering::SeqCst);
        // Answers that came after the last command ended were sent before this one.
        let mut steps: Vec<Step> = self.take_applies().chain(steps).collect();
        // Calls held for the `Done` cannot be answered before it: no lingering for them.
        let lingers =
            matches!(steps.last(), Some(Step::DrainJobs)) && !linger.is_zero() && !hold_calls;
        let mut going = true;
        for step in steps.drain(..) {
            if !self.step(&mut slot, step, &mut done, out, spare) {
                going = false;
                break;
            }
        }
        if going && lingers {
            self.linger(&mut slot, linger, &mut done, out, spare, busy);
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
        done.applied = self.applied.load(Ordering::SeqCst);
        drop(slot);
        let max_frame = self.max_frame.load(std::sync::atomic::Ordering::SeqCst);
        let _ = write_frame(&mut *out.lock(), &fit(self.id, done, max_frame));
    }

    /// `Apply` frames waiting, counted as applied (they are, by the steps they lead).
    fn take_applies(&self) -> impl Iterator<Item = Step> + '_ {
        self.applies.1.try_iter().flatten().inspect(|_| {
            self.applied.fetch_add(1, Ordering::SeqCst);
        })
    }

    /// While the guest awaits only host calls, nothing is queued for the executors, and the
    /// guest is not interrupted: waits (blocked, up to `linger` for each, never up to the
    /// deadline) for their answers and runs the jobs each one lets run, as the addon's next
    /// command would.
    fn linger(
        self: &Arc<Self>,
        slot: &mut Option<Vm>,
        linger: Duration,
        done: &mut Done,
        out: &Out,
        spare: &Spares,
        busy: &dyn Fn() -> bool,
    ) {
        while self.outstanding.awaits_calls()
            && self.control.interrupt() == Interrupt::None
            && !self.control.is_aborted()
            && !busy()
        {
            // The deadline is the addon's to act on (a run awaiting calls parks there): a
            // wait that would reach it ends the command now instead.
            let left = self.control.remaining_ns().unwrap_or(u64::MAX);
            if Duration::from_nanos(left) <= linger {
                return;
            }
            let Ok(first) = self.applies.1.recv_timeout(linger) else {
                return;
            };
            let Some(first) = first else { continue };
            self.applied.fetch_add(1, Ordering::SeqCst);
            let more: Vec<Step> = self.take_applies().collect();
            let steps = std::iter::once(first).chain(more).chain([Step::DrainJobs]);
            for step in steps {
                if !self.step(slot, step, done, out, spare) {
                    return;
                }
            }
        }
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
            determinism,
        } = step
        {
            self.max_frame
                .store(max_frame_bytes, std::sync::atomic::Ordering::SeqCst);
            let limits = VmLimits {
                memory_bytes,
                max_stack_bytes,
            };
            let bound = self.bind(slot, limits, &config_json, determinism, out, spare);
            let ok = bound.is_ok();
            done.started = Some(bound);
            return ok;
        }
        if let Step::SetClock { ms } = step {
            // Without a VM there is no clock to move (a bind that failed ended the command).
            if let Some(vm) = slot.as_ref() {
                vm.set_clock(ms);
            }
            return true;
        }
        let Some(vm) = slot.as_ref() else {
            done.started = Some(Err(StartFailure::Runtime(
                "the sandbox has no VM for this run".into(),
            )));
            return false;
        };
        self.outstanding.answered(&step);
        match step {
            Step::Bind { .. } | Step::SetClock { .. } => {}
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
            Step::Settle { id, ok, payload } => {
                let landed = vm.settle(id, ok, &payload);
                self.count_landing(done, landed);
            }
            Step::FireTimer { id } => {
                let landed = vm.fire_timer(id);
                self.count_landing(done, landed);
            }
            Step::Refuse { id, message } => vm.refuse(id, &message),
            Step::DrainJobs => vm.drain_jobs(&self.control),
            Step::FirstUnhandled => done.first_unhandled = vm.first_unhandled_rejection(),
        }
        self.control.interrupt() == Interrupt::None
    }

    /// A `Settle` or `FireTimer` step found what it answers, or did not: `Done` says how
    /// many landed before the first miss.
    fn count_landing(&self, done: &mut Done, landed: bool) {
        if done.landed_before_miss.is_none() {
            if landed {
                self.landed.fetch_add(1, Ordering::SeqCst);
            } else {
                done.landed_before_miss = Some(self.landed.load(Ordering::SeqCst));
            }
        }
    }

    fn bind(
        self: &Arc<Self>,
        slot: &mut Option<Vm>,
        limits: VmLimits,
        config_json: &str,
        determinism: Option<crate::guest::vm::Determinism>,
        out: &Out,
        spare: &Spares,
    ) -> Result<(), StartFailure> {
        let vm = spare.take().map_err(StartFailure::from)?;
        let bridge = Arc::new(ProxyBridge::new(
            self.id,
            out.clone(),
            self.replies.1.clone(),
            self.max_frame.load(std::sync::atomic::Ordering::SeqCst),
            self.outstanding.clone(),
        ));
        vm.bind(
            limits,
            self.control.clone(),
            bridge,
            config_json,
            determinism,
        )
        .map_err(StartFailure::from)?;
        *slot = Some(vm);
        Ok(())
    }
}
