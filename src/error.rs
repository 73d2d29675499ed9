//! The one error type of the crate. Every failure a caller can see maps to exactly one
//! documented error code (docs/contract.md, Errors and codes); messages are exact text.

use std::fmt;

/// The documented error codes, as they appear in `CodeModeResult.code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidInput,
    RuntimeUnavailable,
    Aborted,
    Timeout,
    OutputLimitExceeded,
    SnapshotLimitExceeded,
    /// A fault of the addon itself (a contained crash, a broken environment).
    InternalError,
    /// An uncaught exception from guest code, including a call of an unknown global.
    GuestError,
    /// A nested tool call failed and the guest did not catch it.
    ToolError,
    /// The guest's heap reached `memoryLimitBytes`.
    MemoryLimitExceeded,
    /// Headless scripts only: the script made more tool calls than its budget.
    ToolBudgetExceeded,
    /// A run store failed: its file or server is unreachable, unwritable, closed, or
    /// did not answer within its timeout (src/store/).
    StoreUnavailable,
    /// A sealed run record that does not open: tampered, truncated, rolled back, moved
    /// to another run or scope, or sealed under no configured key (src/store/seal.rs).
    RecordRefused,
    /// A durable run's replay did not do what its record says it did (another call, other
    /// arguments, an end before the record was used up): it fails, dispatching nothing.
    ReplayDivergence,
}

impl ErrorCode {
    const ALL: [ErrorCode; 14] = [
        ErrorCode::InvalidInput,
        ErrorCode::RuntimeUnavailable,
        ErrorCode::Aborted,
        ErrorCode::Timeout,
        ErrorCode::OutputLimitExceeded,
        ErrorCode::SnapshotLimitExceeded,
        ErrorCode::InternalError,
        ErrorCode::GuestError,
        ErrorCode::ToolError,
        ErrorCode::MemoryLimitExceeded,
        ErrorCode::ToolBudgetExceeded,
        ErrorCode::StoreUnavailable,
        ErrorCode::RecordRefused,
        ErrorCode::ReplayDivergence,
    ];

    /// The code whose documented text is `text`.
    pub fn parse(text: &str) -> Option<ErrorCode> {
        Self::ALL.into_iter().find(|code| code.as_str() == text)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::RuntimeUnavailable => "runtime_unavailable",
            ErrorCode::Aborted => "aborted",
            ErrorCode::Timeout => "timeout",
            ErrorCode::OutputLimitExceeded => "output_limit_exceeded",
            ErrorCode::SnapshotLimitExceeded => "snapshot_limit_exceeded",
            ErrorCode::InternalError => "internal_error",
            ErrorCode::GuestError => "guest_error",
            ErrorCode::ToolError => "tool_error",
            ErrorCode::MemoryLimitExceeded => "memory_limit_exceeded",
            ErrorCode::ToolBudgetExceeded => "tool_budget_exceeded",
            ErrorCode::StoreUnavailable => "store_unavailable",
            ErrorCode::RecordRefused => "record_refused",
            ErrorCode::ReplayDivergence => "replay_divergence",
        }
    }
}

/// A failure with its code and the model-facing message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeModeError {
    pub code: ErrorCode,
    pub message: String,
}

impl CodeModeError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        CodeModeError {
            code,
            message: message.into(),
        }
    }

    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidInput, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InternalError, message)
    }

    /// The wall clock ran out; `limit_ms` is the `timeoutMs` the run had.
    pub fn timeout(limit_ms: u64) -> Self {
        Self::new(ErrorCode::Timeout, messages::timeout(limit_ms))
    }

    pub fn aborted() -> Self {
        Self::new(ErrorCode::Aborted, messages::ABORTED)
    }
}

impl fmt::Display for CodeModeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for CodeModeError {}

/// Exact messages (docs/contract.md); tests match them byte for byte.
pub mod messages {
    /// A durable run recorded more host interactions than its record may hold.
    pub fn ledger_too_large(max: u64) -> String {
        format!("code mode durable run recorded more than maxSnapshotBytes ({max}) of tool calls, results and timers; make fewer or smaller calls, and pass large values by reference (an id or a path) rather than by value.")
    }

    /// A durable run's replay left its record: `why` names where.
    pub fn replay_divergence(why: &str) -> String {
        format!("code mode run cannot be resumed from its record: {why}. Its program, its tools or its limits changed since it was recorded; nothing was dispatched for it. Start a new run.")
    }

    pub const TIMEOUT: &str = "code mode timeout exceeded";

    /// [`TIMEOUT`] with the limit, e.g. `code mode timeout exceeded (timeoutMs 30000)`.
    pub fn timeout(limit_ms: u64) -> String {
        timeout_of("timeoutMs", limit_ms)
    }

    /// [`TIMEOUT`] naming the option that set the limit (`wallClockMs` for a script).
    pub fn timeout_of(option: &str, limit_ms: u64) -> String {
        format!("{TIMEOUT} ({option} {limit_ms})")
    }
    pub const ABORTED: &str = "code mode execution aborted";
    pub const MODULE_ACCESS: &str = "code mode module access is disabled.";
    pub const PENDING_WITHOUT_HOST_WORK: &str = "code mode promise is pending without host work";
    pub const CODE_MISMATCH: &str = "code and command must match when both are provided.";
    pub const CODE_MISSING: &str = "code or command must be a non-empty string.";
    pub const LANGUAGE_INVALID: &str = "language must be javascript or typescript.";
    pub const RESTART_SAFE_INVALID: &str = "restartSafe must be a boolean.";
    pub const RUN_ID_INVALID: &str = "runId must be a non-empty string.";
    pub const RUN_UNAVAILABLE: &str = "code mode run is unavailable or expired.";
    /// A durable run another gateway process is running a turn of.
    pub const RUN_RESUMED_ELSEWHERE: &str =
        "code mode run is already being resumed by another gateway process.";
    /// A durable run another gateway process took on since this one last wrote it.
    pub const RUN_MOVED: &str = "code mode run was moved on by another gateway process since this one last held it; wait for it again to resume it from its record.";
    pub const RUNTIME_BUSY: &str =
        "code mode runtime is busy: the worker queue is full; retry shortly.";
    pub const SESSION_CLOSED: &str = "code mode session is closed.";
    pub const RUN_ENDED_BEFORE_CALL: &str =
        "code mode run ended before this tool call started; the tool was not called.";

    /// `resolveCall` named a call id its run never made.
    pub fn call_unknown(call_id: &str) -> String {
        format!("code mode run has no call {}.", quoted(call_id))
    }

    /// `resolveCall` named a call whose tool did not call `ctx.suspend()`.
    pub fn call_not_external(call_id: &str) -> String {
        format!(
            "call {} is not waiting for resolveCall: its tool did not call ctx.suspend(), so the tool itself answers it.",
            quoted(call_id)
        )
    }

    /// A `ctx.suspend(payload)` whose payload is over `maxOutputBytes`.
    pub fn suspend_payload_too_large(bytes: u64, max: u64) -> String {
        format!(
            "ctx.suspend payload is {bytes} bytes of JSON; this session allows {max} (maxOutputBytes). Pass a reference (an id the host can look up) instead."
        )
    }

    /// A caller's id in a message: JSON-quoted and cut, so no input makes it unreadable.
    fn quoted(id: &str) -> String {
        let cut: String = id.chars().take(120).collect();
        serde_json::Value::from(cut).to_string()
    }

    /// A tool call whose input is larger than `maxToolInputBytes`.
    pub fn tool_input_too_large(callable: &str, size: u64, max: u64) -> String {
        format!(
            "Tool \"{callable}\" input is {size} bytes of JSON; this session allows {max} (maxToolInputBytes). Send less per call."
        )
    }

    /// Every worker thread is stuck in a guest built-in and none may be added.
    pub fn no_free_worker(stuck: usize, cap: usize) -> String {
        format!(
            "code mode runtime has no free worker: {stuck} worker threads are stuck in guest built-ins that never return, and maxStuckWorkers ({cap}) allows no more replacements; restart the gateway, or run guests with isolation \"process\", where a stuck guest's process is killed."
        )
    }

    pub fn out_of_memory(limit_bytes: u64) -> String {
        format!("code mode cell ran out of memory: its limit is {limit_bytes} bytes")
    }

    /// `transformTypeScript()` gave up on a parse that ran over its budget.
    pub fn parse_overran(budget: std::time::Duration) -> String {
        format!(
            "typescript transform did not finish within {} ms; the source is refused (simplify it: long chains of `<` make the parse slow)",
            budget.as_millis()
        )
    }

    /// The front-end's parse of a cell ran over its memory budget.
    pub const SOURCE_TOO_COMPLEX: &str = "code is too complex to parse: its parse ran over the front-end's memory budget. No tools were dispatched; simplify the source (long chains of `<` make a TypeScript parse explode).";

    pub const PARSE_UNAVAILABLE: &str = "typescript transform is unavailable: earlier parses that ran over their budget are still out; retry later.";

    pub fn language_disabled(language: &str) -> String {
        format!("code mode {language} input is disabled.")
    }
}
