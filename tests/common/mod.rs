//! Builders shared by the Rust integration tests: a plain tool spec, a session over any
//! fake host, and a blocking exec.

use codemode_native::catalog::{Source, ToolSpec};
use codemode_native::limits::Limits;
use codemode_native::run::protocol::Host;
use codemode_native::session::core::{SessionConfig, SessionCore};
use codemode_native::session::store::Scope;
use codemode_native::source::{Field, RawExecInput};
use serde_json::Value;
use std::sync::{mpsc, Arc};
use std::time::Duration;

pub fn tool(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: format!("{name} tool"),
        label: None,
        parameters: None,
        output_schema: None,
        source: Source::Openclaw,
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
        },
        host,
    )
    .expect("a session without namespaces always builds")
}

/// Runs one cell and waits for its result; `None` if none arrives within `timeout`.
pub fn exec_within(session: &Arc<SessionCore>, code: &str, timeout: Duration) -> Option<Value> {
    let (tx, rx) = mpsc::channel();
    let input = RawExecInput {
        code: Field::Value(code.into()),
        ..RawExecInput::default()
    };
    session.exec(
        input,
        None,
        Box::new(move |outcome| {
            let _ = tx.send(outcome.into_value());
        }),
    );
    rx.recv_timeout(timeout).ok()
}
