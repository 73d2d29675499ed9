//! A VM that lives in a sandbox process: the same calls as `guest::vm::Vm`. Binding waits
//! for the start, host replies and timer fires wait for the next drain, so a turn costs
//! one round trip; a host reply that comes while a command is out goes straight into it
//! ([`DirectLink`]). The guest's bridge calls are served as they arrive, by the thread
//! serving the process's hub; host calls carry the sandbox's ids, which `calls` maps to.

use super::liveness::Liveness;
use super::process::SandboxProcess;
use super::serve::serve;
use super::wire::{BridgeRequest, Clock, Done, Figures, FromChild, StartFailure, Step, ToChild};
use crate::guest::control::Control;
use crate::guest::natives::Bridge;
use crate::guest::vm::{check_determinism, Determinism, StartError, VmLimits};
use crate::source::typescript::PositionMap;
use crate::source::Language;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use direct::OpenTurn;
pub use direct::{DirectLink, DIRECT_REPLIES};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

mod clock;
mod direct;
mod replay;
pub use replay::{
    BatchRoom, ReplayStep, Replayed, MAX_BATCH_BYTES, MAX_BATCH_DELIVERIES, REPLAYED_IN_BATCHES,
};

/// Steps a VM may have waiting for its next command (refused calls, host replies, timer
/// fires); past it the sandbox is making calls no turn of a real guest could.
const MAX_PENDING_STEPS: usize = 4096;
/// The longest refusal message kept for the guest.
const MAX_REFUSAL_BYTES: usize = 1024;
/// Bytes of refused calls one turn may send: a real guest's refused calls are small (an
/// unknown name, a closed session, a full queue refuses before the input is looked at).
const MAX_REFUSED_BYTES: usize = 64 << 20;

pub struct RemoteVm {
    process: Arc<SandboxProcess>,
    link: Arc<Link>,
    /// Each command's answer; disconnected when the process ends.
    done: Receiver<Done>,
    control: OnceLock<Arc<Control>>,
    /// The VM's state after the last command.
    last: Mutex<Figures>,
    lost: OnceLock<String>,
    /// Bound with `Determinism`: only then is a clock change queued.
    deterministic: AtomicBool,
}

/// What the VM's turns and the thread serving its bridge calls (its hub's) share.
struct Link {
    vm: u64,
    process: Weak<SandboxProcess>,
    bridge: OnceLock<Arc<dyn Bridge>>,
    /// Steps not sent yet: they go with the next command that needs an answer.
    pending: Mutex<Vec<Step>>,
    /// The run's bridge id of each host call in flight → the sandbox's id for it.
    calls: Mutex<HashMap<u32, u32>>,
    /// Whether `pending` holds a refused call: the guest must see it in this turn.
    refused: AtomicBool,
    /// Bytes of the calls refused since the last command was sent: each was read and
    /// parsed on the addon's side, so a flood of large ones costs the gateway's CPU.
    refused_bytes: AtomicUsize,
    /// Calls refused since the last command was sent.
    refused_calls: AtomicUsize,
    /// The command out, and the answers sent straight into it (`direct`). Locked before
    /// `pending` and `calls`.
    turn: Mutex<OpenTurn>,
    /// How long the next command may linger for host replies (see `ToChild::Run`).
    linger_ns: AtomicU64,
    /// The commands under way are a replay's batch: see `ToChild::Run::hold_calls`.
    hold_calls: AtomicBool,
    /// A command is out: set before its clock reads the abort flag, cleared by its `Done`.
    /// An abort while none is out needs no frame: the next command carries the flag.
    out: AtomicBool,
}

impl RemoteVm {
    pub fn new(process: Arc<SandboxProcess>) -> RemoteVm {
        // One command at a time per VM, and an answer nobody asked for is refused by the
        // poller: one slot is enough.
        let (answers, done) = crossbeam_channel::bounded(1);
        let id = process.new_vm_id();
        let link = Arc::new(Link {
            vm: id,
            process: Arc::downgrade(&process),
            bridge: OnceLock::new(),
            pending: Mutex::new(Vec::new()),
            calls: Mutex::new(HashMap::new()),
            refused: AtomicBool::new(false),
            refused_bytes: AtomicUsize::new(0),
            refused_calls: AtomicUsize::new(0),
            turn: Mutex::new(OpenTurn::default()),
            linger_ns: AtomicU64::new(0),
            hold_calls: AtomicBool::new(false),
            out: AtomicBool::new(false),
        });
        let shared = link.clone();
        // The route alone holds the sender: the process's end disconnects `done`.
        process.open_vm(
            id,
            Arc::new(move |message| shared.receive(message, &answers)),
        );
        RemoteVm {
            process,
            link,
            done,
            control: OnceLock::new(),
            last: Mutex::new(Figures::default()),
            lost: OnceLock::new(),
            deterministic: AtomicBool::new(false),
        }
    }

    pub fn process(&self) -> &Arc<SandboxProcess> {
        &self.process
    }

    /// The way host replies reach this VM's open commands from other threads.
    pub fn direct(&self) -> DirectLink {
        DirectLink(self.link.clone())
    }

    /// Why the VM is gone (its process ended), once it is.
    pub fn lost(&self) -> Option<&str> {
        self.lost.get().map(String::as_str)
    }

    /// Records the binding; it travels with `start`, which reports its failure.
    pub fn bind(
        &self,
        limits: VmLimits,
        control: Arc<Control>,
        bridge: Arc<dyn Bridge>,
        config_json: &str,
        determinism: Option<Determinism>,
    ) -> Result<(), StartError> {
        check_determinism(determinism.as_ref())?;
        self.deterministic
            .store(determinism.is_some(), Ordering::SeqCst);
        let _ = self.link.bridge.set(bridge);
        let link = Arc::downgrade(&self.link);
        control.on_abort(Box::new(move || {
            // Only a command out has a guest to stop: a finished run's VM is released
            // next (one frame, not two), a parked one's next command carries the flag.
            // The flag is set before `out` is read here, and `out` before a command's
            // clock reads the flag, so either this frame goes or the command carries it.
            let Some(link) = link.upgrade() else {
                return;
            };
            if link.out.load(Ordering::SeqCst) {
                if let Some(process) = link.process.upgrade() {
                    process.send(&ToChild::Abort { vm: link.vm });
                }
            }
        }));
        let _ = self.control.set(control);
        self.link.pending.lock().push(Step::Bind {
            memory_bytes: limits.memory_bytes,
            max_stack_bytes: limits.max_stack_bytes,
            config_json: config_json.to_owned(),
            max_frame_bytes: self.process.max_frame_bytes(),
            determinism,
        });
        Ok(())
    }

    /// Moves a deterministic VM's clock for the steps queued after this; it goes with the
    /// next command, which a clock change alone does not send.
    pub fn set_clock(&self, ms: f64) {
        if self.deterministic.load(Ordering::SeqCst) {
            clock::queue(&mut self.link.pending.lock(), ms);
        }
    }

    /// Binds (if not yet), runs the front-end on `code`, starts the JavaScript and runs
    /// the first jobs, in one command; a TypeScript cell's position map comes back.
    pub fn start(&self, code: &str, language: Language) -> Result<Option<PositionMap>, StartError> {
        let start = Step::Start {
            code: code.to_owned(),
            language,
        };
        match self.run([start, Step::DrainJobs]) {
            Some(Done {
                started: Some(Err(StartFailure::TooComplex)),
                ..
            }) => {
                // The process exits after this answer: no new VM may go there meanwhile.
                self.process.kill();
                Err(StartFailure::TooComplex.into())
            }
            Some(Done {
                started: Some(started),
                map,
                ..
            }) => started.map(|()| map).map_err(StartError::from),
            _ => Err(StartError::Runtime(
                self.lost()
                    .unwrap_or("code mode sandbox did not answer")
                    .to_owned(),
            )),
        }
    }

    pub fn settle(&self, id: u32, ok: bool, payload: &str) {
        let id = self.link.calls.lock().remove(&id).unwrap_or(id);
        self.link.pending.lock().push(Step::Settle {
            id,
            ok,
            payload: payload.to_owned(),
        });
    }

    pub fn fire_timer(&self, id: u32) {
        self.link.pending.lock().push(Step::FireTimer { id });
    }

    /// Runs what is pending and then the jobs; nothing pending (no steps here but clock
    /// changes, no replies waiting in the sandbox) means no jobs either (the last command
    /// drained them).
    pub fn drain_jobs(&self) {
        if clock::needs_command(&self.link.pending.lock()) || self.unapplied() {
            self.run([Step::DrainJobs]);
        }
    }

    /// Replies went to a command that had ended: the sandbox holds them for the next.
    fn unapplied(&self) -> bool {
        self.link.turn.lock().has_unapplied()
    }

    pub fn first_unhandled_rejection(&self) -> Option<String> {
        let flagged = self.last.lock().has_unhandled;
        if !flagged && !clock::needs_command(&self.link.pending.lock()) {
            return None;
        }
        self.run([Step::FirstUnhandled])?.first_unhandled
    }

    pub fn heap_bytes(&self) -> u64 {
        self.last.lock().heap_bytes
    }

    pub fn memory_exhausted(&self) -> bool {
        self.last.lock().memory_exhausted
    }

    pub fn peak_heap_bytes(&self) -> u64 {
        self.last.lock().peak_heap_bytes
    }

    /// Sends the pending steps and `steps` and waits until the command is done (the
    /// hub's thread serves the guest's bridge calls meanwhile). Calls the host refused
    /// are rejected in a follow-up command, as in-process they throw within the same
    /// turn, and so are replies that reached the sandbox after its command ended. `None`
    /// if the process died first (the VM is then lost).
    fn run(&self, steps: impl IntoIterator<Item = Step>) -> Option<Done> {
        let mut done = self.run_once(steps)?;
        while self.link.refused.swap(false, Ordering::SeqCst) || self.unapplied() {
            let (started, map) = (done.started.take(), done.map.take());
            let missed = done.landed_before_miss;
            done = self.run_once([Step::DrainJobs])?;
            (done.started, done.map) = (started, map);
            // A follow-up applies no delivery of its own: the first command's count stands.
            done.landed_before_miss = missed.or(done.landed_before_miss.map(|_| 0));
        }
        Some(done)
    }

    fn run_once(&self, steps: impl IntoIterator<Item = Step>) -> Option<Done> {
        if self.lost().is_some() {
            return None;
        }
        let mut all = {
            self.link.turn.lock().open();
            self.link.out.store(true, Ordering::SeqCst);
            std::mem::take(&mut *self.link.pending.lock())
        };
        self.link.refused_bytes.store(0, Ordering::SeqCst);
        self.link.refused_calls.store(0, Ordering::SeqCst);
        all.extend(steps);
        let clock = self.control.get().map_or(
            Clock {
                remaining_ns: None,
                aborted: false,
            },
            |control| Clock {
                remaining_ns: control.remaining_ns(),
                aborted: control.is_aborted(),
            },
        );
        let within = answer_within(clock.remaining_ns);
        let message = ToChild::Run {
            vm: self.link.vm,
            clock,
            linger_ns: self.link.linger_ns.load(Ordering::SeqCst),
            hold_calls: self.link.hold_calls.load(Ordering::SeqCst),
            steps: all,
        };
        if !self.process.command(self.link.vm, &message) {
            return self.lose();
        }
        let done = self.wait_for_answer(within)?;
        if let Some(control) = self.control.get() {
            control.adopt_interrupt(done.figures.interrupt);
        }
        *self.last.lock() = done.figures;
        Some(done)
    }

    /// The answer to the command just sent. A process that stops answering, or answers
    /// past `within`, is killed here, which ends the wait with the VM lost.
    fn wait_for_answer(&self, within: Duration) -> Option<Done> {
        let mut liveness = Liveness::new(self.process.seen(), within);
        loop {
            match self.done.recv_timeout(super::liveness::CHECK) {
                Ok(done) => return Some(done),
                Err(RecvTimeoutError::Disconnected) => return self.lose(),
                Err(RecvTimeoutError::Timeout) => {
                    if let Some(what) = liveness.judge(self.process.seen()) {
                        self.process.violate(what);
                        return self.lose();
                    }
                }
            }
        }
    }

    /// Marks the VM lost with its process's end; `None` for `run` to return. A send
    /// fails once the process is being killed: its death, with the reason, follows.
    fn lose(&self) -> Option<Done> {
        self.link.turn.lock().lose();
        self.link.out.store(false, Ordering::SeqCst);
        if self.process.death().is_none() {
            self.process.kill();
            // The poller reaps the killed process, records why it ended, then drops the
            // routes, which disconnects this channel.
            while self.done.recv().is_ok() {}
        }
        let why = self
            .process
            .death()
            .unwrap_or("code mode sandbox process ended");
        let _ = self.lost.set(why.to_owned());
        None
    }
}

/// How long a sandbox may take to answer a command before it is killed: the run's
/// time left (the longest cell timeout while the clock is paused) and the watchdog's
/// judgement of a stuck or starved turn, with room to spare.
fn answer_within(remaining_ns: Option<u64>) -> Duration {
    let left = remaining_ns.map_or(
        Duration::from_millis(crate::limits::MAX_TIMEOUT_MS),
        Duration::from_nanos,
    );
    left + Duration::from_secs(10)
}

impl Link {
    /// One message from the sandbox, on the thread serving its hub: bridge calls are
    /// served here in the order the guest made them; the command's answer goes to the
    /// turn waiting for it, after every call before it was served.
    fn receive(&self, message: FromChild, answers: &Sender<Done>) {
        let request = match message {
            FromChild::Done { done, .. } => {
                if let Err(what) = self.close_turn(done.applied) {
                    if let Some(process) = self.process.upgrade() {
                        process.violate(what.into());
                    }
                    return;
                }
                // The poller lets only the answer to this VM's one command through.
                let _ = answers.try_send(done);
                return;
            }
            FromChild::Bridge { request, .. } => request,
            // The process's own message, never routed to a VM.
            FromChild::Fatal { .. } | FromChild::Ready => return,
        };
        let Some(bridge) = self.bridge.get() else {
            return;
        };
        if let BridgeRequest::Call {
            id,
            method,
            target,
            input_json,
        } = request
        {
            self.call(bridge.as_ref(), id, &method, &target, input_json);
        } else if let Some(reply) = serve(bridge.as_ref(), request) {
            if let Some(process) = self.process.upgrade() {
                process.send(&ToChild::Reply { vm: self.vm, reply });
            }
        }
    }

    /// Starts host call `id` of the sandbox on the run's bridge.
    fn call(&self, bridge: &dyn Bridge, id: u32, method: &str, target: &str, input_json: String) {
        let bytes = method.len() + target.len() + input_json.len();
        match bridge.call(method, target, input_json) {
            Ok(bridge_id) => self.started(bridge_id, id),
            Err(mut message) => {
                let refused = self.refused_bytes.fetch_add(bytes, Ordering::SeqCst) + bytes;
                let calls = self.refused_calls.fetch_add(1, Ordering::SeqCst) + 1;
                let flood = if calls > MAX_PENDING_STEPS
                    || self.pending.lock().len() >= MAX_PENDING_STEPS
                {
                    Some(format!(
                        "made more than {MAX_PENDING_STEPS} refused calls in one turn"
                    ))
                } else {
                    (refused > MAX_REFUSED_BYTES).then(|| {
                        format!(
                            "sent more than {} MiB of refused calls in one turn",
                            MAX_REFUSED_BYTES >> 20
                        )
                    })
                };
                if let Some(what) = flood {
                    if let Some(process) = self.process.upgrade() {
                        process.violate(what);
                    }
                    return;
                }
                // The message may quote a name the guest chose: what is kept is bounded.
                if message.len() > MAX_REFUSAL_BYTES {
                    let mut end = MAX_REFUSAL_BYTES;
                    while !message.is_char_boundary(end) {
                        end -= 1;
                    }
                    // A copy, not `truncate`: that would keep the whole allocation.
                    message = format!("{}…", &message[..end]);
                }
                if !self.apply_or_queue(Step::Refuse { id, message }) {
                    self.refused.store(true, Ordering::SeqCst);
                }
            }
        }
    }
}

impl Drop for RemoteVm {
    fn drop(&mut self) {
        self.process.release_vm(self.link.vm);
    }
}
