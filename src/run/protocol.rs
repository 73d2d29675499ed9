//! The seam between a run and whoever runs its tools, and the events that reach a run:
//! leaf types only. The napi binding implements `Host` with threadsafe functions into
//! Node; tests implement it with fake hosts.

use crate::guest::control::Control;
use std::sync::{Arc, Weak};

/// What lands in a run's inbox: host replies, timer fires, its deadline, an abort.
#[derive(Debug)]
pub enum Event {
    HostReply {
        bridge_id: u32,
        outcome: Result<String, HostFailure>,
    },
    Timer {
        id: u32,
    },
    /// A tool call suspended itself (`ctx.suspend`): a running turn looks again at
    /// whether only external calls are left, and parks if so.
    CallSuspended,
    Deadline,
    Abort,
}

/// Where events for one run go (its cell), held weakly by replies and timers.
pub trait Inbox: Send + Sync {
    fn deliver(self: Arc<Self>, event: Event);
    /// Host call `bridge_id` suspends itself with `payload` (JSON text) to wait for
    /// `resolveCall`.
    fn suspend(self: Arc<Self>, bridge_id: u32, payload: String) -> Suspension;
    /// The run's interrupt side, for `ctx.pauseBudget()`.
    fn control(&self) -> Arc<Control>;
}

/// What became of a tool's `ctx.suspend(payload)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Suspension {
    /// The call waits in its run for `resolveCall`.
    Parked,
    /// The run no longer has the call (it ended and cancelled it): nothing waits.
    RunEnded,
    /// The payload is over `maxOutputBytes`: refused with this message, the call unchanged.
    Refused(String),
}

/// One nested call as the host sees it: ids for `ToolCallContext` and the JSON input.
#[derive(Clone, Debug)]
pub struct HostCall {
    /// Unique and stable across suspension: `ToolCallContext.callId`.
    pub call_id: String,
    /// The outer exec/wait tool-call id the gateway passed in.
    pub parent_call_id: Option<String>,
    pub run_id: String,
    pub session_id: String,
    /// Index of the tool in the session's host-side tool table, or of the surface in
    /// its surface table when `surface` is set.
    pub tool_index: usize,
    /// Namespace, MCP, nodes, skills or Swarm rather than a catalog tool.
    pub surface: bool,
    pub tool_name: String,
    /// The guest-visible name (for `beforeToolCall`).
    pub callable_name: String,
    pub input_json: String,
}

/// A failed host call, as it reaches the guest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostFailure {
    pub message: String,
    /// `tool_error`, `invalid_input`, `input_contract`, `output_contract`.
    pub code: &'static str,
}

pub trait Host: Send + Sync {
    /// Starts a host call. The host answers once through `reply` (or never, if the call
    /// is cancelled first); it must not block the calling worker.
    fn call_tool(&self, call: HostCall, reply: Reply);
    /// Aborts the `ctx.signal` of a call still running on the host.
    fn cancel(&self, call_id: &str);
    /// Streams one trajectory event (`onEvent`) as JSON; hosts without a listener ignore it.
    fn event(&self, _event_json: String) {}
    /// An external call (`ctx.suspend`) of a run this host dispatched was resolved with
    /// `outcome` by `resolveCall`: the host reports the call's end (`tool_call_end`).
    fn external_resolved(
        &self,
        _run_id: &str,
        _call_id: &str,
        _outcome: &Result<String, HostFailure>,
    ) {
    }
    /// Whether `event` has a listener: lets the engine skip building events nobody reads.
    fn wants_events(&self) -> bool {
        false
    }
}

/// The way back into a cell for one host call. Dropping it without answering is allowed
/// (the cell's own deadline and cancellation cover that); answering twice is impossible.
pub struct Reply {
    cell: Weak<dyn Inbox>,
    bridge_id: u32,
}

impl Reply {
    pub(crate) fn new(cell: Weak<dyn Inbox>, bridge_id: u32) -> Self {
        Reply { cell, bridge_id }
    }

    pub fn ok(self, json: String) {
        self.send(Ok(json));
    }

    pub fn fail(self, failure: HostFailure) {
        self.send(Err(failure));
    }

    pub fn send(self, outcome: Result<String, HostFailure>) {
        if let Some(cell) = self.cell.upgrade() {
            cell.deliver(Event::HostReply {
                bridge_id: self.bridge_id,
                outcome,
            });
        }
    }

    /// The tool suspends the call (`ctx.suspend(payload)`): once `Parked`, the run keeps
    /// it in flight until `resolveCall` answers it, and this reply is spent.
    pub fn suspend(&self, payload: String) -> Suspension {
        match self.cell.upgrade() {
            Some(cell) => cell.suspend(self.bridge_id, payload),
            None => Suspension::RunEnded,
        }
    }

    /// The run that made this call has ended or is being aborted (or is gone): a tool not
    /// started yet must not start.
    pub fn run_ended(&self) -> bool {
        self.cell
            .upgrade()
            .is_none_or(|cell| cell.control().is_aborted())
    }

    /// A handle for `ctx.pauseBudget()`: pausing stops the cell's wall clock.
    pub fn budget(&self) -> BudgetHandle {
        BudgetHandle {
            control: self.cell.upgrade().map(|cell| cell.control()),
        }
    }
}

/// Pauses and resumes a cell's wall-clock budget on behalf of a host call.
#[derive(Clone)]
pub struct BudgetHandle {
    control: Option<Arc<Control>>,
}

impl BudgetHandle {
    pub fn pause(&self) {
        if let Some(control) = &self.control {
            control.pause();
        }
    }

    pub fn resume(&self) {
        if let Some(control) = &self.control {
            control.resume();
        }
    }
}
