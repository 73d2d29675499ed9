//! The messages between the addon and a sandbox process, and their framing: a u32
//! little-endian length, then that many bytes of JSON. Every message names its VM.

use crate::guest::vm::{Determinism, StartError};
use crate::source::typescript::PositionMap;
use crate::source::Language;
use serde::{Deserialize, Serialize};
use std::io::{self, Read, Write};

mod exact;

/// The sandbox's exit status after a cell's parse ran over its memory budget.
pub const EXIT_PARSE_OVERRUN: i32 = 75;

/// The largest frame the sandbox accepts from the addon: larger means a corrupt stream.
/// The addon's cap on the other direction comes from the session's limits.
pub const MAX_FRAME: usize = 1 << 30;

/// Host-call ids the sandbox assigns have this bit set, so they never meet the ids the
/// addon assigns (yields, timers).
pub const OWN_CALL_ID: u32 = 1 << 31;

/// The sandbox's id for the `n`th host call its guest sent the addon since its bind (from
/// 0, counting refused calls too): how a replay addresses a recorded reply before the
/// call is made again.
pub fn own_call_id(n: u32) -> u32 {
    OWN_CALL_ID | (n & !OWN_CALL_ID)
}

/// Addon → sandbox.
#[derive(Debug, Serialize, Deserialize)]
pub enum ToChild {
    /// Run `steps` on VM `vm` (`Bind` creates it), then answer with `Done`. A command
    /// that ends with `DrainJobs` may stay open up to `linger_ns` while its guest awaits
    /// host calls and nothing else can run, applying the [`ToChild::Apply`] frames that
    /// come meanwhile; 0 ends it as soon as its steps are through.
    Run {
        vm: u64,
        clock: Clock,
        #[serde(default)]
        linger_ns: u64,
        /// The guest's host calls need not go before the command's `Done` (a replay's
        /// batch, whose calls the addon only matches against its record): they travel in
        /// as few writes as the buffer allows instead of one each.
        #[serde(default)]
        hold_calls: bool,
        steps: Vec<Step>,
    },
    /// A host call's answer (`Settle` or `Refuse`) sent while VM `vm`'s command is open:
    /// applied by that command if it still runs, else first thing in the next. `Done`
    /// counts them, so the addon knows which it must not send again.
    Apply { vm: u64, step: Step },
    /// The answer to VM `vm`'s pending bridge request.
    Reply { vm: u64, reply: BridgeReply },
    /// The run was aborted: stop its guest at the next interrupt check.
    Abort { vm: u64 },
    /// The VM is no longer needed.
    Release { vm: u64 },
    /// Test builds only: attempt a system call the jail forbids.
    Forbidden { call: String },
}

/// The parent's deadline and abort state, sent with every command.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Clock {
    /// Nanoseconds left; `None` while a pause window is open or without a deadline.
    pub remaining_ns: Option<u64>,
    pub aborted: bool,
}

/// One step of a command. A command runs its steps in order and stops early where the
/// in-process engine would: at a failed bind or start, or once the guest is interrupted.
#[derive(Debug, Serialize, Deserialize)]
pub enum Step {
    Bind {
        memory_bytes: usize,
        max_stack_bytes: usize,
        config_json: String,
        /// The largest frame the addon accepts from this process.
        max_frame_bytes: usize,
        /// Binds a deterministic VM (docs/durable-runs.md).
        #[serde(default, with = "exact::determinism")]
        determinism: Option<Determinism>,
    },
    /// Runs the source front-end on the cell's code and starts the JavaScript it gives:
    /// the parse of hostile source happens here, where the watchdog can end it.
    Start {
        code: String,
        language: Language,
    },
    Settle {
        id: u32,
        ok: bool,
        payload: String,
    },
    FireTimer {
        id: u32,
    },
    /// Rejects call `id` with a plain `Error(message)`: the addon refused the call, which
    /// in-process throws at the call site and reaches the guest as the same rejection.
    Refuse {
        id: u32,
        message: String,
    },
    DrainJobs,
    FirstUnhandled,
    /// Moves a deterministic VM's logical clock (epoch ms) for the steps after it. Queued
    /// with them, never a frame of its own; not finite leaves the clock as it is.
    SetClock {
        #[serde(with = "exact::ms")]
        ms: f64,
    },
}

/// Sandbox → addon.
#[derive(Debug, Serialize, Deserialize)]
pub enum FromChild {
    /// The guest called a native: the addon runs it and, for a [`BridgeRequest::wants_reply`]
    /// request, answers with [`ToChild::Reply`].
    Bridge { vm: u64, request: BridgeRequest },
    /// A command ended.
    Done { vm: u64, done: Done },
    /// The process cannot start (it exits next): the gateway puts `message` in the death
    /// message. Accepted at any time; the sandbox's stderr goes nowhere.
    Fatal { message: String },
    /// The process has started (jailed, its threads waiting for commands): sent once,
    /// before anything else. A cell's clock stands still until it comes.
    Ready,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Done {
    /// The result of the command's `Bind`/`Start` steps, if it had any.
    pub started: Option<Result<(), StartFailure>>,
    /// A TypeScript cell's map from the started JavaScript back to its source.
    pub map: Option<PositionMap>,
    /// The text of its `FirstUnhandled` step, if it had one.
    pub first_unhandled: Option<String>,
    pub figures: Figures,
    /// [`ToChild::Apply`] frames this VM has applied so far, in every command.
    #[serde(default)]
    pub applied: u64,
    /// How many `Settle` and `FireTimer` steps of this command found their call or timer
    /// waiting before the first that did not (not made yet, or answered already); `None`
    /// when all did. A replay's deliveries must all land.
    #[serde(default)]
    pub landed_before_miss: Option<u32>,
}

/// The VM's state after a command.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Figures {
    /// Whether a rejection is unhandled now (so `FirstUnhandled` is worth asking).
    pub has_unhandled: bool,
    pub heap_bytes: u64,
    pub peak_heap_bytes: u64,
    pub memory_exhausted: bool,
    /// The sandbox's interrupt reason (0 none, 1 deadline, 2 abort, 3 memory).
    pub interrupt: u8,
}

/// `guest::vm::StartError` on the wire.
#[derive(Debug, Serialize, Deserialize)]
pub enum StartFailure {
    Syntax {
        message: String,
        line: u32,
        column: u32,
    },
    Runtime(String),
    /// The front-end refused the source: the model-facing message.
    Refused(String),
    /// The front-end's parse ran over its memory budget; the process exits after this.
    TooComplex,
}

impl From<StartError> for StartFailure {
    fn from(error: StartError) -> Self {
        match error {
            StartError::Syntax {
                message,
                line,
                column,
            } => StartFailure::Syntax {
                message,
                line,
                column,
            },
            StartError::Runtime(detail) => StartFailure::Runtime(detail),
            StartError::Refused(message) => StartFailure::Refused(message),
        }
    }
}

impl From<StartFailure> for StartError {
    fn from(failure: StartFailure) -> Self {
        match failure {
            StartFailure::Syntax {
                message,
                line,
                column,
            } => StartError::Syntax {
                message,
                line,
                column,
            },
            StartFailure::Runtime(detail) => StartError::Runtime(detail),
            StartFailure::Refused(message) => StartError::Refused(message),
            StartFailure::TooComplex => {
                StartError::Refused(crate::error::messages::SOURCE_TOO_COMPLEX.to_owned())
            }
        }
    }
}

/// One call of the `Bridge` trait, made by the guest inside the sandbox.
#[derive(Debug, Serialize, Deserialize)]
pub enum BridgeRequest {
    /// A host call under the sandbox's own id: it is never answered, so the guest goes on
    /// at once; a refusal comes back as [`Step::Refuse`] before the command is reported.
    Call {
        id: u32,
        method: String,
        target: String,
        input_json: String,
    },
    Output {
        kind: u8,
        text: String,
    },
    Console {
        line: String,
    },
    Timer {
        delay_ms: u64,
    },
    ClearTimer {
        id: u32,
    },
    Yield {
        reason: Option<String>,
    },
    Finish {
        ok: bool,
        payload: String,
    },
    Fail {
        payload: String,
    },
    Search {
        query: String,
        limit: u32,
    },
    Describe {
        callable: String,
    },
    ToolMeta {
        callable: String,
    },
    ApiList {
        prefix: String,
    },
    ApiRead {
        path: String,
    },
    McpApi {
        server: String,
        tool: Option<String>,
        schema: bool,
    },
}

impl BridgeRequest {
    /// Requests whose `Bridge` method returns nothing are not answered.
    pub fn wants_reply(&self) -> bool {
        !matches!(
            self,
            BridgeRequest::Call { .. }
                | BridgeRequest::Output { .. }
                | BridgeRequest::Console { .. }
                | BridgeRequest::ClearTimer { .. }
                | BridgeRequest::Finish { .. }
                | BridgeRequest::Fail { .. }
        )
    }
}

#[derive(Debug, Serialize, Deserialize)]
pub enum BridgeReply {
    Id(u32),
    Text(String),
    Id32(Result<u32, String>),
    TextOr(Result<String, String>),
}

/// Writes one frame and sends it.
pub fn write_frame<T: Serialize>(out: &mut impl Write, message: &T) -> io::Result<()> {
    queue_frame(out, message)?;
    out.flush()
}

/// Writes one frame into `out`'s buffer: it goes with the next frame that is sent.
pub fn queue_frame<T: Serialize>(out: &mut impl Write, message: &T) -> io::Result<()> {
    let body = serde_json::to_vec(message).map_err(io::Error::other)?;
    write_body(out, &body)
}

/// Writes one frame whose JSON body is already made.
pub fn write_body(out: &mut impl Write, body: &[u8]) -> io::Result<()> {
    let len = u32::try_from(body.len()).map_err(|_| io::Error::other("frame too large"))?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(body)
}

/// Reads one frame; `Ok(None)` at a clean end of stream.
pub fn read_frame<T: for<'de> Deserialize<'de>>(input: &mut impl Read) -> io::Result<Option<T>> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::other("frame too large"));
    }
    let mut body = vec![0u8; len];
    input.read_exact(&mut body)?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_end_cleanly() {
        let mut buffer = Vec::new();
        let message = ToChild::Reply {
            vm: 7,
            reply: BridgeReply::TextOr(Err("no \"such\" tool".into())),
        };
        write_frame(&mut buffer, &message).unwrap();
        let mut input = buffer.as_slice();
        let back: ToChild = read_frame(&mut input).unwrap().unwrap();
        assert!(matches!(
            back,
            ToChild::Reply { vm: 7, reply: BridgeReply::TextOr(Err(ref e)) } if e == "no \"such\" tool"
        ));
        assert!(read_frame::<ToChild>(&mut input).unwrap().is_none());
    }

    #[test]
    fn a_truncated_or_oversized_frame_is_an_error() {
        let mut buffer = Vec::new();
        write_frame(&mut buffer, &ToChild::Release { vm: 1 }).unwrap();
        buffer.truncate(buffer.len() - 1);
        assert!(read_frame::<ToChild>(&mut buffer.as_slice()).is_err());
        let huge = (MAX_FRAME as u32 + 1).to_le_bytes();
        assert!(read_frame::<ToChild>(&mut huge.as_slice()).is_err());
    }
}
