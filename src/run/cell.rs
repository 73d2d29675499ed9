//! A cell: one run of guest code from `exec` to its final result, across every `wait`;
//! an actor whose inbox takes host replies, timer fires, deadlines and aborts. Only a turn
//! on a pool worker touches the VM, and a turn never waits for the host.

mod booting;
mod direct;
mod ending;
mod external;
mod held;
mod inbox;
mod journal;
mod placement;
mod replay;
mod take_up;
mod verdict;

use super::bridge::CellBridge;
use super::owner::RunOwner;
use super::protocol::{Event, Inbox};
use super::result::RunMetrics;
use super::state::RunBook;
use crate::error::{messages, CodeModeError, ErrorCode};
use crate::guest::control::{instant_of, now_ns, Control, Interrupt};
use crate::guest::vm::{StartError, VmLimits};
use crate::runtime::watchdog::TurnWatch;
use crate::runtime::{pool, timer};
use crate::sandbox::handle::VmHandle;
use crate::source::Language;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use crate::run::result::Responder;
pub use journal::{unix_ms, DurableStart, EFFECT_UNKNOWN};

/// Cells alive in the process (running, idle or parked): for leak checks and stats.
pub static LIVE_CELLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// What a cell is asked to run.
pub struct CellSource {
    pub code: String,
    pub language: Language,
    pub restart_safe: bool,
    /// A durable run (`durableRuns`): its journal starts from this.
    pub durable: Option<DurableStart>,
}

enum Phase {
    New(CellSource),
    Live(VmHandle),
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
    /// Process mode: where host replies go while the sandbox's command is out.
    direct: std::sync::OnceLock<crate::sandbox::remote::DirectLink>,
    /// The deadline timer of the current exec/wait call, cancelled when it answers.
    deadline_timer: Mutex<Option<timer::TimerKey>>,
    /// The clock stands still until the sandbox process this first cell needs has started.
    start_paused: AtomicBool,
    /// TypeScript cells: where printed positions came from in the user's source.
    position_map: std::sync::OnceLock<crate::source::typescript::PositionMap>,
    language: Language,
    /// The source lines that call into `MCP`, to explain a call of a missing tool.
    mcp_lines: super::mcp_hint::McpLines,
    parent_call_id: Option<String>,
    /// A durable run's journal and what its record keeps of the source.
    durable: Option<journal::Durable>,
}

impl Cell {
    pub fn new(
        owner: Arc<dyn RunOwner<Cell>>,
        run_id: String,
        mut source: CellSource,
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
        // The ledger moves into the journal; the phase keeps the rest of the source.
        let durable = source
            .durable
            .take()
            .map(|start| journal::Durable::new(start, &source.code, source.restart_safe));
        let mcp_lines = super::mcp_hint::McpLines::of(&source.code);
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
            direct: std::sync::OnceLock::new(),
            deadline_timer: Mutex::new(None),
            start_paused: AtomicBool::new(false),
            position_map: std::sync::OnceLock::new(),
            language,
            mcp_lines,
            parent_call_id,
            durable,
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
        self.arm_deadline();
        if first {
            // The sandbox process boots while the cell waits for a worker, not after.
            if let Some(sandbox) = self.owner.sandbox() {
                sandbox.prestart(self.owner.limits());
                self.pause_while_starting();
            }
            self.scheduled.store(true, Ordering::SeqCst);
            let cell = self.clone();
            if let Err(refused) = pool::global().submit_start(Box::new(move || cell.turn())) {
                self.scheduled.store(false, Ordering::SeqCst);
                self.finish(Err(refused_error(refused)));
            }
        } else {
            self.schedule();
        }
        Ok(())
    }

    /// (Re)arms the current call's deadline timer at the control's deadline.
    fn arm_deadline(self: &Arc<Self>) {
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

    fn schedule(self: &Arc<Self>) {
        if !self.scheduled.swap(true, Ordering::SeqCst) {
            let cell = self.clone();
            pool::global().submit(Box::new(move || cell.turn()));
        }
    }

    /// One turn on a worker. A panic anywhere inside fails the cell with `internal_error`.
    fn turn(self: Arc<Self>) {
        let epoch = self.call_epoch();
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
            // A remote turn's worker only waited; the process it waited on was killed.
            if !self.watch.is_remote() {
                pool::stuck_turn_returned();
            }
        }
        self.scheduled.store(false, Ordering::SeqCst);
        // A call that began while this turn was ending (a wait sent as soon as the turn
        // parked the run) found it still scheduled and queued no turn of its own: it gets
        // one here even without events, since a run with only external calls left must
        // park again without any.
        let new_call = self.call_epoch() != epoch;
        if self.running.load(Ordering::SeqCst) && (new_call || !self.inbox.lock().is_empty()) {
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
                self.finish(Err(CodeModeError::timeout(self.control.budget_ms())));
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
            match &self.durable {
                Some(durable) => self.durable_step(durable, vm),
                None => self.apply_events(vm),
            }
            self.set_linger();
            vm.drain_jobs(&self.control);
            let mut verdict = self.verdict(vm);
            if let Some(durable) = &self.durable {
                verdict = self.durable_verdict(durable, verdict);
            }
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
                Verdict::Idle if self.durable.as_ref().is_some_and(|d| self.durable_more(d)) => {
                    guest_started = Instant::now()
                }
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

    fn start(self: &Arc<Self>, source: CellSource) -> Result<VmHandle, CodeModeError> {
        if self.control.is_aborted() {
            return Err(CodeModeError::aborted());
        }
        crate::runtime::panic_probe::maybe_panic(
            &source.code,
            crate::runtime::panic_probe::WORKER_MARKER,
        );
        // In this process the front-end runs before a VM is taken; a sandbox process runs
        // it itself, so a parse of hostile source never computes in the gateway.
        let prepared = match self.owner.sandbox() {
            None => Some(self.prepare_here(&source)?),
            Some(_) => None,
        };
        let limits = self.owner.limits();
        let bridge = Arc::new(CellBridge {
            book: self.book.clone(),
            context: self.owner.clone(),
            cell: Arc::downgrade(&(self.clone() as Arc<dyn Inbox>)),
            run_id: self.run_id.clone(),
            parent_call_id: self.parent_call_id.clone(),
            restart_safe: source.restart_safe,
            journal: self.durable.as_ref().map(|d| d.journal.clone()),
        });
        let _ = self.bridge.set(bridge.clone());
        let vm_limits = VmLimits {
            memory_bytes: limits.memory_limit_bytes as usize,
            max_stack_bytes: pool::GUEST_STACK_BYTES,
        };
        let vm = self.new_vm(&source.code)?;
        // A durable run's deliveries are ordered and recorded by its turns: none may go
        // straight into the sandbox's open command.
        if let (VmHandle::Process(remote), None) = (&vm, &self.durable) {
            let _ = self.direct.set(remote.direct());
            self.set_linger();
        }
        let config = self.owner.prelude_config();
        let determinism = self.durable.as_ref().map(|durable| durable.determinism);
        if let Err(error) = vm.bind(
            vm_limits,
            self.control.clone(),
            bridge,
            &config,
            determinism,
        ) {
            return Err(match vm.lost() {
                Some(why) => lost_error(why),
                None => start_error(error, self.language),
            });
        }
        match vm.start(&source.code, source.language, prepared) {
            Ok(map) => {
                if let Some(map) = map {
                    let _ = self.position_map.set(map);
                }
                Ok(vm)
            }
            // Out of memory while compiling or running synchronously, interrupted, or its
            // sandbox process died: the turn's verdict reports it.
            Err(_) if vm.memory_exhausted() || vm.lost().is_some() => Ok(vm),
            Err(StartError::Runtime(_)) if self.control.interrupt() != Interrupt::None => Ok(vm),
            Err(error) => Err(start_error(error, self.language)),
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

/// A new cell the pool could not take.
fn refused_error(refused: pool::Refused) -> CodeModeError {
    let message = match refused {
        pool::Refused::QueueFull => messages::RUNTIME_BUSY.to_owned(),
        pool::Refused::NoFreeWorker { stuck, cap } => messages::no_free_worker(stuck, cap),
    };
    CodeModeError::new(ErrorCode::RuntimeUnavailable, message)
}

/// A run whose sandbox process died under it.
fn lost_error(why: &str) -> CodeModeError {
    CodeModeError::internal(format!("{why}; this run is lost"))
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
        StartError::Runtime(detail) if detail.contains("out of memory") => CodeModeError::new(
            ErrorCode::MemoryLimitExceeded,
            format!("code mode runtime ran out of memory while starting: {detail}"),
        ),
        StartError::Runtime(detail) => CodeModeError::new(
            ErrorCode::RuntimeUnavailable,
            format!("code mode runtime could not start: {detail}"),
        ),
        StartError::Refused(message) => CodeModeError::invalid_input(message),
    }
}

impl Inbox for Cell {
    fn deliver(self: Arc<Self>, event: Event) {
        let event = match event {
            Event::HostReply { bridge_id, outcome } => {
                match self.settle_direct(bridge_id, outcome) {
                    None => return,
                    Some(outcome) => Event::HostReply { bridge_id, outcome },
                }
            }
            other => other,
        };
        self.push(event);
    }

    fn suspend(self: Arc<Self>, bridge_id: u32, payload: String) -> super::protocol::Suspension {
        self.suspend_call(bridge_id, payload)
    }

    fn control(&self) -> Arc<Control> {
        self.control.clone()
    }
}

/// What a turn decided.
enum Verdict {
    Idle,
    Finish(Result<String, CodeModeError>),
    Park(&'static str),
}
