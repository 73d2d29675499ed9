//! Builders shared by the Rust integration tests: a plain tool spec, a session over any
//! fake host, exec and wait; the fake host and bridge, and condition waits.
// Each test binary uses its own share of these helpers.
#![allow(dead_code)]

pub mod bridge;
pub mod durable;
pub mod hosts;
pub mod recorded;
pub mod settle;

use codemode_native::catalog::{Source, ToolSpec};
use codemode_native::limits::Limits;
use codemode_native::run::cell::Cell;
use codemode_native::run::protocol::Host;
use codemode_native::sandbox::isolation::Isolation;
use codemode_native::session::core::{SessionConfig, SessionCore};
use codemode_native::session::store::Scope;
use codemode_native::source::{Field, RawExecInput};
use serde_json::Value;
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::Duration;

pub fn tool(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: format!("{name} tool"),
        label: None,
        parameters: None,
        output_schema: None,
        source: Source::Core,
        direct_only: false,
        replay_safe: false,
        control: false,
    }
}

pub fn session(
    id: &str,
    limits: Value,
    tools: Vec<ToolSpec>,
    host: Arc<dyn Host>,
) -> Arc<SessionCore> {
    session_in(Isolation::Thread, id, limits, tools, host)
}

/// A session whose guests run as `isolation` says.
pub fn session_in(
    isolation: Isolation,
    id: &str,
    limits: Value,
    tools: Vec<ToolSpec>,
    host: Arc<dyn Host>,
) -> Arc<SessionCore> {
    session_with(isolation, id, limits, tools, host, false)
}

/// A session whose runs are durable (`durableRuns`) if `durable` says so.
pub fn session_with(
    isolation: Isolation,
    id: &str,
    limits: Value,
    tools: Vec<ToolSpec>,
    host: Arc<dyn Host>,
    durable: bool,
) -> Arc<SessionCore> {
    SessionCore::new(
        SessionConfig {
            scope: Scope {
                session_id: id.into(),
                session_key: None,
                agent_id: None,
                agent_run_id: None,
            },
            limits: Limits::from_json(Some(&limits)),
            tools,
            max_tool_calls: None,
            surfaces: Default::default(),
            sandbox_group: None,
            durable,
            isolation,
        },
        host,
    )
    .expect("a session without namespaces always builds")
}

/// Runs one cell and waits for its result; `None` if none arrives within `timeout`.
pub fn exec_within(session: &Arc<SessionCore>, code: &str, timeout: Duration) -> Option<Value> {
    start_exec(session, code).1.recv_timeout(timeout).ok()
}

/// Starts one cell: the cell (to push events into) and where its result will arrive.
pub fn start_exec(session: &Arc<SessionCore>, code: &str) -> (Option<Arc<Cell>>, Receiver<Value>) {
    let (tx, rx) = mpsc::channel();
    let input = RawExecInput {
        code: Field::Value(code.into()),
        ..RawExecInput::default()
    };
    let cell = session.exec(
        input,
        None,
        Box::new(move |outcome| {
            let _ = tx.send(outcome.into_value());
        }),
    );
    (cell, rx)
}

/// Resumes a parked run and waits for its result; `None` if none arrives within `timeout`.
pub fn wait_within(session: &Arc<SessionCore>, run_id: &str, timeout: Duration) -> Option<Value> {
    let (tx, rx) = mpsc::channel();
    session.wait(
        Some(run_id.into()),
        Box::new(move |outcome| {
            let _ = tx.send(outcome.into_value());
        }),
    );
    rx.recv_timeout(timeout).ok()
}

/// The `runId` of a waiting result (empty if it has none).
pub fn run_id(result: &Value) -> String {
    result["runId"].as_str().unwrap_or_default().to_string()
}
