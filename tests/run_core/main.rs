//! The run core against fake hosts: tool calls answered at once, later, with an error or
//! never; aborts, yields, timers, guest throws and out-of-memory, through the real `Cell`,
//! with a real `SessionCore` or a fake `RunOwner`. Every test checks the result JSON and
//! that live cells, parked runs and timers are back at their baseline. The tests share
//! those process-wide counts, so they run one at a time (`settle::serial`).

#[path = "../common/mod.rs"]
mod common;

mod calls;
mod durable;
mod durable_batch;
mod durable_property;
mod durable_reads;
mod external;
mod fake_owner;
mod lifecycle;
mod owner;
mod parking;

use codemode_native::session::core::SessionCore;
use common::hosts::FakeHost;
use common::settle::PATIENCE;
use common::tool;
use serde_json::{json, Value};
use std::sync::Arc;

/// A session over `host` with the tools `echo`, `slow`, `broken` and `lost`.
pub fn session(id: &str, limits: Value, host: &Arc<FakeHost>) -> Arc<SessionCore> {
    let tools = ["echo", "slow", "broken", "lost"].map(tool).to_vec();
    common::session(id, limits, tools, host.clone())
}

/// A session with default limits.
pub fn plain_session(id: &str, host: &Arc<FakeHost>) -> Arc<SessionCore> {
    session(id, json!({}), host)
}

pub fn exec(session: &Arc<SessionCore>, code: &str) -> Value {
    common::exec_within(session, code, PATIENCE).expect("exec answers")
}

pub fn wait(session: &Arc<SessionCore>, run_id: &str) -> Value {
    common::wait_within(session, run_id, PATIENCE).expect("wait answers")
}

/// The `status` of every nested-call record, in order.
pub fn nested_statuses(result: &Value) -> Vec<String> {
    result["nestedCalls"]
        .as_array()
        .map(|records| {
            records
                .iter()
                .map(|r| r["status"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}
