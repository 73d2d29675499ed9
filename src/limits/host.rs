//! Limits outside a session's `CodeModeLimits`: the process-wide runtime
//! (`configureCodeModeRuntime`), headless scripts (`runCodeModeScript`) and the numbers
//! the JS glue checks host input against (handed to it as JSON when it is compiled).

use serde_json::{json, Value};
use std::ops::RangeInclusive;

/// `workerThreads`: accepted range. Its default is [`default_worker_threads`].
pub const WORKER_THREADS: RangeInclusive<u64> = 1..=256;
/// `maxStuckWorkers`: accepted range. Its default is `pool::MAX_REPLACED_WORKERS`.
pub const MAX_STUCK_WORKERS: RangeInclusive<u64> = 0..=1024;
/// `maxSuspendedRuns`: accepted range and default.
pub const MAX_SUSPENDED_RUNS: RangeInclusive<u64> = 1..=10_000;
pub const DEFAULT_MAX_SUSPENDED_RUNS: usize = 64;

/// Worker threads when `workerThreads` was not set: one per core, at least two.
pub fn default_worker_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .max(2)
}

/// A headless script's `wallClockMs`: default and ceiling.
pub const SCRIPT_WALL_CLOCK_MS: Ceiling = Ceiling {
    default: 30_000,
    max: 900_000,
};
/// A headless script's `maxToolCalls`: default and ceiling.
pub const SCRIPT_TOOL_CALLS: Ceiling = Ceiling {
    default: 5,
    max: 200,
};

/// An option that is a positive integer (the glue drops anything else) capped at `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ceiling {
    pub default: u64,
    pub max: u64,
}

impl Ceiling {
    /// `given`, or the default when absent, capped at the ceiling.
    pub fn resolve(self, given: Option<u64>) -> u64 {
        given.unwrap_or(self.default).min(self.max)
    }
}

/// Most nesting levels of a `namespaces[i].scope` object.
pub const MAX_NAMESPACE_DEPTH: u32 = 8;
/// Most functions in one `namespaces[i].scope`.
pub const MAX_NAMESPACE_LEAVES: u32 = 2000;
/// How long one MCP server's tool listing may take.
pub const MCP_LIST_TIMEOUT_MS: u64 = 15_000;
/// Most `tools/list` pages read from one MCP server (ends cursor loops).
pub const MCP_MAX_PAGES: u32 = 100;
/// UTF-16 code units of a value preview in an `onEvent` event.
pub const EVENT_PREVIEW_CHARS: u32 = 512;

/// The numbers the JS glue needs, as the object its entry (`glue/host.js`) receives.
pub fn glue_limits() -> Value {
    json!({
        "maxNamespaceDepth": MAX_NAMESPACE_DEPTH,
        "maxNamespaceLeaves": MAX_NAMESPACE_LEAVES,
        "mcpListTimeoutMs": MCP_LIST_TIMEOUT_MS,
        "mcpMaxPages": MCP_MAX_PAGES,
        "eventPreviewChars": EVENT_PREVIEW_CHARS,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_options_take_the_default_and_are_capped() {
        assert_eq!(SCRIPT_WALL_CLOCK_MS.resolve(None), 30_000);
        assert_eq!(SCRIPT_WALL_CLOCK_MS.resolve(Some(50)), 50);
        assert_eq!(SCRIPT_WALL_CLOCK_MS.resolve(Some(10_000_000)), 900_000);
        assert_eq!(SCRIPT_TOOL_CALLS.resolve(None), 5);
        assert_eq!(SCRIPT_TOOL_CALLS.resolve(Some(1000)), 200);
    }

    #[test]
    fn the_glue_gets_every_number_by_its_name() {
        let limits = glue_limits();
        assert_eq!(limits["maxNamespaceDepth"], 8);
        assert_eq!(limits["maxNamespaceLeaves"], 2000);
        assert_eq!(limits["mcpListTimeoutMs"], 15_000);
        assert_eq!(limits["mcpMaxPages"], 100);
        assert_eq!(limits["eventPreviewChars"], 512);
    }

    #[test]
    fn runtime_ranges_hold_their_defaults() {
        assert!(MAX_SUSPENDED_RUNS.contains(&(DEFAULT_MAX_SUSPENDED_RUNS as u64)));
        assert!(WORKER_THREADS.contains(&(default_worker_threads().min(256) as u64)));
    }
}
