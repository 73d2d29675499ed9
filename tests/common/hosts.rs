//! One configurable fake `Host`: per tool, it answers at once, later from its own thread,
//! holds the reply until the test answers it, drops it unanswered, or suspends the call
//! (`ctx.suspend`). It records every call it saw and every cancellation.

use codemode_native::run::protocol::{Host, HostCall, HostFailure, Reply, Suspension};
use parking_lot::Mutex;
use serde_json::{json, Value};
use std::sync::Arc;

/// What a call's reply carries.
#[derive(Clone, Debug)]
pub enum Answer {
    /// `{ "echo": <input> }`.
    Echo,
    /// This JSON text, as the tool's result.
    Json(String),
    Fail(HostFailure),
}

impl Answer {
    /// A `tool_error` failure with this message.
    pub fn tool_error(message: &str) -> Answer {
        Answer::Fail(HostFailure {
            message: message.into(),
            code: "tool_error",
        })
    }

    fn outcome(&self, call: &HostCall) -> Result<String, HostFailure> {
        match self {
            Answer::Echo => {
                let input = serde_json::from_str::<Value>(&call.input_json).unwrap_or(Value::Null);
                Ok(json!({ "echo": input }).to_string())
            }
            Answer::Json(text) => Ok(text.clone()),
            Answer::Fail(failure) => Err(failure.clone()),
        }
    }
}

/// When (and whether) a call is answered.
#[derive(Clone, Debug)]
pub enum Behaviour {
    /// On the calling worker, before `call_tool` returns.
    Now(Answer),
    /// From a thread of its own, whenever that thread gets to it.
    Later(Answer),
    /// Kept until the test answers it (`answer_held`, `take_held`).
    Hold,
    /// Dropped unanswered: only the run's deadline or cancellation ends the wait.
    Never,
    /// Suspended at once with this payload (JSON text), as a tool's `ctx.suspend` does:
    /// only `resolve_call` answers it.
    Suspend(String),
}

/// A call the host holds, with the way back into its cell.
pub struct Held {
    pub call: HostCall,
    pub reply: Reply,
}

pub struct FakeHost {
    rules: Vec<(String, Behaviour)>,
    fallback: Behaviour,
    calls: Mutex<Vec<HostCall>>,
    held: Mutex<Vec<Held>>,
    cancelled: Mutex<Vec<String>>,
}

impl FakeHost {
    /// A host that treats every tool as `fallback` says, until `on` says otherwise.
    pub fn new(fallback: Behaviour) -> FakeHost {
        FakeHost {
            rules: Vec::new(),
            fallback,
            calls: Mutex::new(Vec::new()),
            held: Mutex::new(Vec::new()),
            cancelled: Mutex::new(Vec::new()),
        }
    }

    /// Answers `{ "echo": input }` from its own thread; `broken` fails with "disk on fire"
    /// and `never` is never answered.
    pub fn echoing() -> FakeHost {
        FakeHost::new(Behaviour::Later(Answer::Echo))
            .on(
                "broken",
                Behaviour::Later(Answer::tool_error("disk on fire")),
            )
            .on("never", Behaviour::Never)
    }

    /// Calls of the tool named `tool` (its host name) behave as `behaviour`.
    pub fn on(mut self, tool: &str, behaviour: Behaviour) -> FakeHost {
        self.rules.push((tool.into(), behaviour));
        self
    }

    pub fn shared(self) -> Arc<FakeHost> {
        Arc::new(self)
    }

    /// Every call the host was asked to run, in order.
    pub fn calls(&self) -> Vec<HostCall> {
        self.calls.lock().clone()
    }

    /// The call ids the engine cancelled, in order.
    pub fn cancelled(&self) -> Vec<String> {
        self.cancelled.lock().clone()
    }

    pub fn held_count(&self) -> usize {
        self.held.lock().len()
    }

    /// Hands the held calls to the test (to answer from a thread of its own, say).
    pub fn take_held(&self) -> Vec<Held> {
        self.held.lock().drain(..).collect()
    }

    /// Answers every held call with this JSON; returns how many there were.
    pub fn answer_held(&self, json: &str) -> usize {
        let held = self.take_held();
        let count = held.len();
        for Held { reply, .. } in held {
            reply.ok(json.into());
        }
        count
    }

    fn behaviour(&self, tool: &str) -> &Behaviour {
        self.rules
            .iter()
            .find(|(name, _)| name == tool)
            .map_or(&self.fallback, |(_, behaviour)| behaviour)
    }
}

impl Host for FakeHost {
    fn call_tool(&self, call: HostCall, reply: Reply) {
        self.calls.lock().push(call.clone());
        match self.behaviour(&call.tool_name).clone() {
            Behaviour::Now(answer) => reply.send(answer.outcome(&call)),
            Behaviour::Later(answer) => {
                std::thread::spawn(move || reply.send(answer.outcome(&call)));
            }
            Behaviour::Hold => self.held.lock().push(Held { call, reply }),
            Behaviour::Never => drop(reply),
            Behaviour::Suspend(payload) => {
                let suspension = reply.suspend(payload);
                assert_eq!(suspension, Suspension::Parked, "the call is in flight");
            }
        }
    }

    fn cancel(&self, call_id: &str) {
        self.cancelled.lock().push(call_id.into());
    }
}
