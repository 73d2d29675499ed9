//! A cell: one run of guest code from `exec` to its final result, across every `wait`;
//! an actor whose inbox takes host replies, timer fires, deadlines and aborts. Only a turn
//! on a pool worker touches the VM, and a turn never waits for the host.

use super::bridge::CellBridge;
use super::failure::{guest_error_code, guest_error_text_mapped};
use super::owner::RunOwner;
use super::protocol::{Event, Inbox};
use super::result::{self, Outcome, RunMetrics};
use super::state::{Completion, RunBook};
use crate::error::{messages, CodeModeError, ErrorCode};
use crate::guest::control::{instant_of, now_ns, Control, Interrupt};
use crate::guest::vm::{StartError, Vm, VmLimits};
use crate::runtime::watchdog::{self, TurnWatch};
use crate::runtime::{pool, timer};
use crate::source::Language;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub type Responder = Box<dyn FnOnce(Outcome) + Send + 'static>;

/// Cells alive in the process (running, idle or parked): for leak checks and stats.
pub static LIVE_CELLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// What a cell is asked to run.
pub struct CellSource {
    pub code: String,
    pub language: Language,
    pub restart_safe: bool,
}

enum Phase {
    New(CellSource),
    Live(Vm),
    Done,
}

struct CellState {
    phase: Phase,
}

/// Who waits for the current exec/wait call, and its figures. Apart from the VM so the
/// watchdog can answer while a stuck turn holds the VM.
#[derive(Default)]
struct CallSlot {
    responder: Option<Responder>,
    metrics: RunMetrics,
}

pub struct Cell {
    pub run_id: String,
    owner: Arc<dyn RunOwner<Cell>>,
    control: Arc<Control>,
    inbox: Mutex<VecDeque<Event>>,
    /// Events pushed since the last drain: lets a spinning worker poll without locking.
    arrivals: std::sync::atomic::AtomicUsize,
    /// A turn is queued or running.
    scheduled: AtomicBool,
    /// An exec/wait is waiting for this cell's next result. False while parked.
    running: AtomicBool,
    /// Counts exec/wait calls, so a call's abort signal can name the call it belongs to.
    call_epoch: std::sync::atomic::AtomicU64,
    /// Held while `running` goes false on parking and while a call's abort is delivered:
    /// an abort either reaches its running call or finds it answered, never a parked run.
    call_gate: Mutex<()>,
    state: Mutex<CellState>,
    call: Mutex<CallSlot>,
    /// Set once by `finish`: the run is over, whoever still holds the VM.
    finished: AtomicBool,
    /// The turn a worker is in, for the watchdog.
    watch: TurnWatch,
    /// The watchdog check armed by the deadline, an abort or a late turn.
    watchdog_timer: Mutex<Option<timer::TimerKey>>,
    book: Arc<Mutex<RunBook>>,
    bridge: std::sync::OnceLock<Arc<CellBridge>>,
    /// The deadline timer of the current exec/wait call, cancelled when it answers.
    deadline_timer: Mutex<Option<timer::TimerKey>>,
    /// TypeScript cells: where printed positions came from in the user's source.
    position_map: std::sync::OnceLock<crate::source::typescript::PositionMap>,
    language: Language,
    parent_call_id: Option<String>,
}

impl Cell {
    pub fn new(
        owner: Arc<dyn RunOwner<Cell>>,
        run_id: String,
        source: CellSource,
        parent_call_id: Option<String>,
    ) -> Arc<Cell> {
        let limits = owner.limits();
        let book = Arc::new(Mutex::new(
            RunBook::new(
                limits.max_output_bytes as usize,
                limits.max_pending_tool_calls as usize,
            )
            .with_redactor(owner.redactor().clone()),
        ));
        let language = source.language;
        LIVE_CELLS.fetch_add(1, Ordering::Relaxed);
        Arc::new(Cell {
            run_id,
            owner,
            control: Arc::new(Control::new()),
            inbox: Mutex::new(VecDeque::new()),
            arrivals: std::sync::atomic::AtomicUsize::new(0),
            scheduled: AtomicBool::new(false),
            running: AtomicBool::new(false),
            call_epoch: std::sync::atomic::AtomicU64::new(0),
            call_gate: Mutex::new(()),
            state: Mutex::new(CellState {
                phase: Phase::New(source),
            }),
            call: Mutex::new(CallSlot::default()),
            finished: AtomicBool::new(false),
            watch: TurnWatch::default(),
            watchdog_timer: Mutex::new(None),
            book,
            bridge: std::sync::OnceLock::new(),
            deadline_timer: Mutex::new(None),
            position_map: std::sync::OnceLock::new(),
            language,
            parent_call_id,
        })
    }

    pub fn control(&self) -> Arc<Control> {
        self.control.clone()
    }

    pub fn is_running(&self) -> bool {
        self.running.load(Ordering::SeqCst)
    }

    /// Starts (first exec) or resumes (wait) the cell with a fresh budget. Returns false
    /// if the cell is already being run by someone else.
    pub fn begin_call(
        self: &Arc<Self>,
        budget: Duration,
        responder: Responder,
        first: bool,
    ) -> Result<(), Responder> {
        {
            // Responder, deadline and `running` change together under the state lock, which
            // every turn holds: a turn sees either none of a new call or all of it (a turn
            // that saw `running` without a responder and a fresh deadline would park again).
            let state = self.state.lock();
            if self.running.load(Ordering::SeqCst)
                || matches!(state.phase, Phase::Done)
                || self.finished.load(Ordering::SeqCst)
            {
                return Err(responder);
            }
            let mut call = self.call.lock();
            call.responder = Some(responder);
            self.call_epoch.fetch_add(1, Ordering::SeqCst);
            call.metrics.call_started_ns = now_ns();
            self.control.set_deadline_after(budget);
            self.running.store(true, Ordering::SeqCst);
        }
        let weak = Arc::downgrade(self);
        let key = timer::schedule(instant_of(self.control.deadline_ns()), move || {
            if let Some(cell) = weak.upgrade() {
                cell.push(Event::Deadline);
                if cell.is_running() && cell.control.deadline_passed() {
                    cell.arm_watchdog();
                }
            }
        });
        if let Some(previous) = self.deadline_timer.lock().replace(key) {
            timer::cancel(previous);
        }
        if first {
            self.scheduled.store(true, Ordering::SeqCst);
            let cell = self.clone();
            if pool::global()
                .submit_start(Box::new(move || cell.turn()))
                .is_err()
            {
                self.scheduled.store(false, Ordering::SeqCst);
                self.finish(Err(CodeModeError::new(
                    ErrorCode::RuntimeUnavailable,
                    messages::RUNTIME_BUSY,
                )));
            }
        } else {
            self.schedule();
        }
        Ok(())
    }

    /// The current exec/wait call (read right after it starts).
    pub fn call_epoch(&self) -> u64 {
        self.call_epoch.load(Ordering::SeqCst)
    }

    /// The abort signal of call `epoch` fired. It aborts only that call while it still
    /// runs: a signal that fires after its call answered (say, a gateway aborting its
    /// whole turn) must not poison a run that is now parked, nor a later wait of it.
    pub fn abort_call(self: &Arc<Self>, epoch: u64) {
        let _gate = self.call_gate.lock();
        if self.running.load(Ordering::SeqCst) && self.call_epoch() == epoch {
            self.push(Event::Abort);
        }
    }

    /// Adds an event; wakes the cell only while someone waits for its result (a parked
    /// cell buffers events until `wait`).
    pub fn push(self: &Arc<Self>, event: Event) {
        let urgent = matches!(event, Event::Abort);
        if urgent {
            self.control.abort();
        }
        self.inbox.lock().push_back(event);
        self.arrivals.fetch_add(1, Ordering::SeqCst);
        if self.running.load(Ordering::SeqCst) {
            self.schedule();
            if urgent {
                self.arm_watchdog();
            }
        }
    }

    /// Checks after `watchdog::GRACE` that the turn running now (if any) has returned.
    /// One check at a time: an earlier one stays, and hands over to a later turn.
    fn arm_watchdog(self: &Arc<Self>) {
        self.arm_watchdog_with(self.watch.arming());
    }

    fn arm_watchdog_with(self: &Arc<Self>, arming: watchdog::Arming) {
        let mut slot = self.watchdog_timer.lock();
        if slot.is_some() {
            return;
        }
        let epoch = self.call_epoch();
        let weak = Arc::downgrade(self);
        *slot = Some(timer::schedule(
            Instant::now() + watchdog::GRACE,
            move || {
                if let Some(cell) = weak.upgrade() {
                    cell.watchdog_timer.lock().take();
                    cell.answer_if_stuck(epoch, arming);
                }
            },
        ));
    }

    /// The watchdog's check (timer thread). If the call `epoch` is still unanswered and
    /// the turn it watched computed through the grace without returning, the guest is
    /// inside something that never reaches the interrupt handler: the call is answered
    /// now, without the VM, and the worker replaced; the turn retires the VM on return.
    fn answer_if_stuck(self: &Arc<Self>, epoch: u64, arming: watchdog::Arming) {
        if !self.is_running() || self.call_epoch() != epoch {
            return;
        }
        match self.watch.judge(arming) {
            watchdog::Judgement::Idle => {}
            watchdog::Judgement::Again(next) => self.arm_watchdog_with(next),
            watchdog::Judgement::Stuck => {
                pool::global().replace_stuck_worker();
                let error = if self.control.is_aborted() {
                    CodeModeError::aborted()
                } else {
                    CodeModeError::timeout()
                };
                self.finish(Err(error));
            }
        }
    }

    fn schedule(self: &Arc<Self>) {
        if !self.scheduled.swap(true, Ordering::SeqCst) {
            let cell = self.clone();
            pool::global().submit(Box::new(move || cell.turn()));
        }
    }

    /// One turn on a worker. A panic anywhere inside fails the cell with `internal_error`.
    fn turn(self: Arc<Self>) {
        self.watch.enter();
        let turned = catch_unwind(AssertUnwindSafe(|| self.turn_inner()));
        let abandoned = self.watch.leave();
        if turned.is_err() {
            self.finish(Err(CodeModeError::internal(
                "internal error: the code mode engine hit a bug and contained it; the cell was stopped.",
            )));
        }
        if abandoned {
            self.retire_vm();
            pool::stuck_turn_returned();
        }
        self.scheduled.store(false, Ordering::SeqCst);
        if self.running.load(Ordering::SeqCst) && !self.inbox.lock().is_empty() {
            self.schedule();
        }
    }

    fn turn_inner(self: &Arc<Self>) {
        let mut state = self.state.lock();
        let turn_started = Instant::now();
        if matches!(state.phase, Phase::Done) || self.finished.load(Ordering::SeqCst) {
            self.inbox.lock().clear();
            return;
        }
        // Nobody is waiting for a result (the run is parked): events stay buffered for the
        // next wait instead of running the guest with no one to answer.
        if self.call.lock().responder.is_none() {
            return;
        }
        // A turn after the deadline or an abort should end at once; if it does not, the
        // watchdog answers.
        if self.control.is_aborted() || self.control.deadline_passed() {
            self.arm_watchdog();
        }
        if let Phase::New(_) = state.phase {
            // Its budget ran out while it waited for a worker (behind stuck ones, say).
            if self.control.deadline_passed() {
                drop(state);
                self.finish(Err(CodeModeError::timeout()));
                return;
            }
            let Phase::New(source) = std::mem::replace(&mut state.phase, Phase::Done) else {
                return;
            };
            match self.start(source) {
                Ok(vm) => state.phase = Phase::Live(vm),
                Err(error) => {
                    drop(state);
                    self.finish(Err(error));
                    return;
                }
            }
        }
        let mut guest_started = turn_started;
        let verdict = loop {
            let Phase::Live(vm) = &state.phase else {
                return;
            };
            self.apply_events(vm);
            vm.drain_jobs(&self.control);
            let verdict = self.verdict(vm);
            let heap = (!matches!(verdict, Verdict::Idle)).then(|| vm.peak_heap_bytes());
            {
                let mut call = self.call.lock();
                if let Some(heap) = heap {
                    call.metrics.observe_heap(heap);
                }
                // Spinning for a reply is waiting, not guest work: it stays off the guest clock.
                call.metrics.guest_ns += elapsed_ns(guest_started);
            }
            match verdict {
                Verdict::Idle if self.spin_for_events() => guest_started = Instant::now(),
                verdict => break verdict,
            }
        };
        drop(state);
        match verdict {
            Verdict::Idle => {}
            Verdict::Finish(result) => self.finish(result),
            Verdict::Park(reason) => self.park(reason),
        }
    }

    fn start(self: &Arc<Self>, source: CellSource) -> Result<Vm, CodeModeError> {
        if self.control.is_aborted() {
            return Err(CodeModeError::aborted());
        }
        crate::runtime::panic_probe::maybe_panic(
            &source.code,
            crate::runtime::panic_probe::WORKER_MARKER,
        );
        let prepared = crate::source::prepare(&source.code, source.language)?;
        let js = prepared.js;
        if let Some(map) = prepared.map {
            let _ = self.position_map.set(map);
        }
        let limits = self.owner.limits();
        let bridge = Arc::new(CellBridge {
            book: self.book.clone(),
            context: self.owner.clone(),
            cell: Arc::downgrade(&(self.clone() as Arc<dyn Inbox>)),
            run_id: self.run_id.clone(),
            parent_call_id: self.parent_call_id.clone(),
            restart_safe: source.restart_safe,
        });
        let _ = self.bridge.set(bridge.clone());
        let vm_limits = VmLimits {
            memory_bytes: limits.memory_limit_bytes as usize,
            max_stack_bytes: pool::GUEST_STACK_BYTES,
        };
        let vm = crate::runtime::spare_vms::take().map_err(|e| start_error(e, self.language))?;
        vm.bind(
            vm_limits,
            self.control.clone(),
            bridge,
            &self.owner.prelude_config(),
        )
        .map_err(|e| start_error(e, self.language))?;
        match vm.start(&js, self.language.user_file()) {
            Ok(()) => Ok(vm),
            // Out of memory while compiling or running synchronously, or interrupted: the
            // turn's verdict reports it.
            Err(_) if vm.memory_exhausted() => Ok(vm),
            Err(StartError::Runtime(_)) if self.control.interrupt() != Interrupt::None => Ok(vm),
            Err(error) => Err(start_error(error, self.language)),
        }
    }

    fn apply_events(&self, vm: &Vm) {
        self.arrivals.store(0, Ordering::SeqCst);
        let events: Vec<Event> = self.inbox.lock().drain(..).collect();
        let bridge_admit = !events.is_empty();
        for event in events {
            match event {
                Event::Abort | Event::Deadline => {}
                Event::HostReply { bridge_id, outcome } => {
                    let (contracts, callable) = {
                        let book = self.book.lock();
                        let call = book.calls.get(&bridge_id);
                        (
                            call.and_then(|c| c.contracts.clone()),
                            call.map(|c| c.callable_name.clone()).unwrap_or_default(),
                        )
                    };
                    let outcome = self.admit_result(contracts.as_deref(), outcome, &callable);
                    let known = self.book.lock().settle_call(bridge_id, &outcome);
                    if known {
                        match &outcome {
                            Ok(json) => vm.settle(bridge_id, true, json),
                            Err(failure) => vm.settle(
                                bridge_id,
                                false,
                                &serde_json::json!({ "message": failure.message, "code": failure.code })
                                    .to_string(),
                            ),
                        }
                    }
                }
                Event::Timer { id } => {
                    if self.book.lock().timers.remove(&id).is_some() {
                        vm.fire_timer(id);
                    }
                }
            }
            if self.control.interrupt() != Interrupt::None {
                return;
            }
        }
        if bridge_admit {
            if let Some(bridge) = self.bridge.get() {
                bridge.admit();
            }
        }
    }

    /// A host result on its way into the guest: checked against the declared output of
    /// the tool the guest called as `callable`, and bounded by `maxOutputBytes` (an
    /// oversized MCP result is cut inside and keeps its shape; any other becomes the
    /// marker). A failure's text is the tool's own and passes unchanged.
    fn admit_result(
        &self,
        contracts: Option<&crate::run::contracts::ToolContracts>,
        outcome: Result<String, crate::run::protocol::HostFailure>,
        callable: &str,
    ) -> Result<String, crate::run::protocol::HostFailure> {
        let json = outcome?;
        crate::runtime::panic_probe::maybe_panic(&json, crate::runtime::panic_probe::RESULT_MARKER);
        // V8 escapes a lone surrogate as `\udXXX`, which serde cannot parse (JSON only:
        // docs/contract.md, Bridge).
        let json = crate::guest::text::into_well_formed_json(json);
        if let Some(contracts) = contracts {
            contracts.check_output(callable, &json)?;
        }
        let max = self.owner.limits().max_output_bytes as usize;
        if json.len() <= max {
            return Ok(json);
        }
        // Only the `MCP` global holds MCP surfaces (it is reserved).
        let mcp = callable.starts_with("MCP.");
        if let Some(fitted) = mcp.then(|| crate::mcp::fit_result(&json, max)).flatten() {
            return Ok(fitted);
        }
        Ok(crate::run::output::truncation_marker(&json, max)
            .map(|marker| marker.to_json_string())
            .unwrap_or_else(|| "null".to_string()))
    }

    /// After a bounded spin, true if new events arrived and the turn should go on: host
    /// replies often come back within microseconds, and a spin is cheaper than a wake-up.
    fn spin_for_events(&self) -> bool {
        if !pool::global().is_idle() {
            return false;
        }
        let until = Instant::now() + Duration::from_micros(40);
        while Instant::now() < until {
            if self.arrivals.load(Ordering::SeqCst) > 0 {
                return true;
            }
            std::hint::spin_loop();
        }
        false
    }

    fn verdict(&self, vm: &Vm) -> Verdict {
        // Whatever the guest caught and whatever calls are still out: a heap that hit its
        // limit may be in any state, so the run ends here instead of parking.
        if vm.memory_exhausted() {
            return Verdict::Finish(Err(self.out_of_memory()));
        }
        match self.control.interrupt() {
            Interrupt::Deadline => return Verdict::Finish(Err(CodeModeError::timeout())),
            Interrupt::Abort => return Verdict::Finish(Err(CodeModeError::aborted())),
            Interrupt::Memory => return Verdict::Finish(Err(self.out_of_memory())),
            Interrupt::None => {}
        }
        if self.control.is_aborted() {
            return Verdict::Finish(Err(CodeModeError::aborted()));
        }
        let mut book = self.book.lock();
        if let Some(fatal) = book.fatal.take() {
            return Verdict::Finish(Err(fatal));
        }
        if let Some(thrown) = book.thrown.take() {
            return Verdict::Finish(Err(self.guest_failure(&thrown, vm)));
        }
        // The top-level promise settling is not the end while dispatched calls or timers
        // are still out: their failures must still be able to fail the cell
        // (docs/contract.md, Guest runtime).
        if book.completion.is_some() && book.outstanding() == 0 {
            let Some(completion) = book.completion.take() else {
                return Verdict::Idle;
            };
            drop(book);
            if let Some(verdict) = self.unhandled_rejection(vm) {
                return verdict;
            }
            return Verdict::Finish(match completion {
                Completion::Value(json) => Ok(json),
                Completion::Error(payload) => Err(self.guest_failure(&payload, vm)),
            });
        }
        if book.yield_request.is_some() {
            return Verdict::Park("yield");
        }
        if book.outstanding() == 0 {
            drop(book);
            if let Some(verdict) = self.unhandled_rejection(vm) {
                return verdict;
            }
            // A job that ran out of memory can leave its promise pending forever: say so.
            if self.under_memory_pressure(vm) {
                let limit = self.owner.limits().memory_limit_bytes;
                return Verdict::Finish(Err(CodeModeError::internal(format!(
                    "{} (code mode cell ran out of memory: its limit is {limit} bytes)",
                    messages::PENDING_WITHOUT_HOST_WORK
                ))));
            }
            return Verdict::Finish(Err(CodeModeError::internal(
                messages::PENDING_WITHOUT_HOST_WORK,
            )));
        }
        if self.control.deadline_passed() {
            return Verdict::Park("pending_tools");
        }
        Verdict::Idle
    }

    /// The failure for the first unhandled rejection, if any. Formatting the rejection
    /// runs guest code (its `message` getter, say), which the deadline may interrupt: the
    /// cell then times out instead of completing with a rejection nobody could read.
    fn unhandled_rejection(&self, vm: &Vm) -> Option<Verdict> {
        let rejection = vm.first_unhandled_rejection();
        match self.control.interrupt() {
            Interrupt::Deadline => return Some(Verdict::Finish(Err(CodeModeError::timeout()))),
            Interrupt::Abort => return Some(Verdict::Finish(Err(CodeModeError::aborted()))),
            Interrupt::Memory => return Some(Verdict::Finish(Err(self.out_of_memory()))),
            Interrupt::None => {}
        }
        rejection.map(|text| Verdict::Finish(Err(self.guest_failure(&text, vm))))
    }

    fn out_of_memory(&self) -> CodeModeError {
        CodeModeError::internal(messages::out_of_memory(
            self.owner.limits().memory_limit_bytes,
        ))
    }

    /// The heap came within a quarter of its limit during this run. Peak, not current use:
    /// by the time a failure is judged, the allocation that failed was never counted.
    fn under_memory_pressure(&self, vm: &Vm) -> bool {
        let limit = self.owner.limits().memory_limit_bytes;
        vm.peak_heap_bytes().saturating_mul(4) >= limit.saturating_mul(3)
    }

    fn guest_failure(&self, payload: &str, vm: &Vm) -> CodeModeError {
        let map = |line: u32, column: u32| {
            self.position_map
                .get()
                .and_then(|m| m.original(line, column))
                .unwrap_or((line, column))
        };
        let text = guest_error_text_mapped(payload, self.language.user_file(), &map);
        if text.starts_with(messages::MODULE_ACCESS) {
            return CodeModeError::invalid_input(text);
        }
        let limit = self.owner.limits().memory_limit_bytes;
        // Under memory pressure QuickJS may fail to build the error object itself and
        // throw `null`; "string too long" is its string-size wall, hit by doubling bombs.
        let near_limit = self.under_memory_pressure(vm);
        if text.starts_with("Uncaught null") && !near_limit {
            return CodeModeError::internal(format!(
                "{text} (a null exception at this point usually means the cell ran out of memory: its limit is {limit} bytes)"
            ));
        }
        let memory = text.contains("out of memory")
            || text.contains("string too long")
            || (near_limit
                && (text.starts_with("Uncaught null")
                    || text.starts_with("Uncaught exception")
                    // What QuickJS throws when it cannot allocate the real error either.
                    || text.contains("QuickJS library created a unknown error")));
        if memory {
            return CodeModeError::internal(format!(
                "{text} (code mode cell ran out of memory: its limit is {limit} bytes)"
            ));
        }
        let code = match guest_error_code(payload).as_deref() {
            Some("invalid_input") => ErrorCode::InvalidInput,
            _ => ErrorCode::InternalError,
        };
        CodeModeError::new(code, text)
    }

    /// Ends the run: drops the VM, cancels host work, answers the waiting call (if any).
    pub fn finish(self: &Arc<Self>, result: Result<String, CodeModeError>) {
        let first = !self.finished.swap(true, Ordering::SeqCst);
        let (responder, metrics) = {
            let mut call = self.call.lock();
            (call.responder.take(), call.metrics.clone())
        };
        if !first && responder.is_none() {
            return;
        }
        self.running.store(false, Ordering::SeqCst);
        self.cancel_deadline();
        self.control.abort();
        let cancelled = self.book.lock().cancel_all();
        for call_id in cancelled {
            self.owner.host().cancel(&call_id);
        }
        self.owner.forget(&self.run_id);
        if let Some(responder) = responder {
            let outcome = result::final_result(
                &mut self.book.lock(),
                result,
                &metrics,
                self.owner.telemetry(),
            );
            responder(outcome);
        }
        // A turn the watchdog gave up on still holds the VM; it retires it on return.
        if !self.watch.is_abandoned() {
            self.retire_vm();
        }
    }

    /// Drops the VM after the caller has its answer (freeing a heap is work nobody needs
    /// to wait for), at guest priority.
    fn retire_vm(&self) {
        let retired = std::mem::replace(&mut self.state.lock().phase, Phase::Done);
        if let Phase::Live(vm) = retired {
            crate::runtime::reaper::discard(vm);
        }
    }

    fn cancel_deadline(&self) {
        if let Some(key) = self.deadline_timer.lock().take() {
            timer::cancel(key);
        }
        if let Some(key) = self.watchdog_timer.lock().take() {
            timer::cancel(key);
        }
    }

    fn park(self: &Arc<Self>, reason: &'static str) {
        let heap = {
            let state = self.state.lock();
            match &state.phase {
                Phase::Live(vm) => vm.heap_bytes(),
                _ => 0,
            }
        };
        let (host_bytes, pending) = {
            let book = self.book.lock();
            (book.host_bytes() as u64, book.pending_calls().len())
        };
        if let Err(error) = self.owner.park(self, reason, heap + host_bytes, pending) {
            self.finish(Err(error));
            return;
        }
        // The watchdog answered while this turn was parking: the run must not stay parked.
        if self.finished.load(Ordering::SeqCst) {
            self.owner.forget(&self.run_id);
            return;
        }
        let (responder, metrics) = {
            let _state = self.state.lock();
            let _gate = self.call_gate.lock();
            self.running.store(false, Ordering::SeqCst);
            let mut call = self.call.lock();
            (call.responder.take(), call.metrics.clone())
        };
        self.cancel_deadline();
        if let Some(responder) = responder {
            responder(result::waiting_result(
                &mut self.book.lock(),
                &self.run_id,
                reason,
                &metrics,
                self.owner.telemetry(),
            ));
        }
        // Events that raced with parking stay buffered for the next wait.
    }

    /// Settles a pending `yield_control` so the guest continues after a wait.
    pub fn release_yield(&self) {
        let request = self.book.lock().yield_request.take();
        if let Some((id, reason)) = request {
            let payload = serde_json::json!({ "status": "yielded", "reason": reason }).to_string();
            self.inbox.lock().push_front(Event::HostReply {
                bridge_id: id,
                outcome: Ok(payload),
            });
            self.book.lock().expect_reply(id);
        }
    }
}

impl Drop for Cell {
    fn drop(&mut self) {
        LIVE_CELLS.fetch_sub(1, Ordering::Relaxed);
    }
}

fn elapsed_ns(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

enum Verdict {
    Idle,
    Finish(Result<String, CodeModeError>),
    Park(&'static str),
}

fn start_error(error: StartError, language: Language) -> CodeModeError {
    match error {
        StartError::Syntax {
            message,
            line,
            column,
        } => CodeModeError::invalid_input(crate::source::syntax_message(
            language, line, column, &message,
        )),
        StartError::Runtime(detail) if detail.contains("out of memory") => CodeModeError::internal(
            format!("code mode runtime ran out of memory while starting: {detail}"),
        ),
        StartError::Runtime(detail) => CodeModeError::new(
            ErrorCode::RuntimeUnavailable,
            format!("code mode runtime could not start: {detail}"),
        ),
    }
}

impl Inbox for Cell {
    fn deliver(self: Arc<Self>, event: Event) {
        self.push(event);
    }

    fn control(&self) -> Arc<Control> {
        self.control.clone()
    }
}
