//! The hosts and the bridge the probes run against, and a blocking exec/wait. The fake
//! host and bridge are the tests' own (tests/common).

use std::sync::Arc;
use std::time::Duration;

use codemode_native::catalog::ToolSpec;
use codemode_native::guest::control::Control;
use codemode_native::guest::vm::{Determinism, Vm, VmLimits};
use codemode_native::run::protocol::{Host, HostCall, Reply};
use codemode_native::session::core::SessionCore;
use serde_json::Value;

use crate::common;
use crate::common::bridge::FakeBridge;
use crate::common::hosts::FakeHost;

/// A session whose host echoes from its own thread (`broken` fails, `never` never answers).
pub fn session(limits: Value, tools: Vec<ToolSpec>) -> Arc<SessionCore> {
    common::session("s1", limits, tools, FakeHost::echoing().shared())
}

pub fn exec(session: &Arc<SessionCore>, code: &str) -> Value {
    common::exec_within(session, code, Duration::from_secs(30)).expect("a result")
}

pub fn wait(session: &Arc<SessionCore>, run_id: &str) -> Value {
    common::wait_within(session, run_id, Duration::from_secs(30)).expect("a result")
}

/// Answers every call at once, on the calling worker, and records nothing: what remains
/// is the engine's own per-call cost (guest bridge, dispatch, records, settle).
pub struct InstantHost;

impl Host for InstantHost {
    fn call_tool(&self, _call: HostCall, reply: Reply) {
        reply.ok(r#"{"sum":3}"#.to_string());
    }
    fn cancel(&self, _call_id: &str) {}
}

/// Binds a blank VM to a bridge with an empty catalog that settles nothing (the probes
/// measure the VM alone).
pub fn bind_null(vm: &Vm, limits: VmLimits) {
    bind_null_with(vm, limits, None);
}

/// `bind_null`, deterministic if `determinism` says so.
pub fn bind_null_with(vm: &Vm, limits: VmLimits, determinism: Option<Determinism>) {
    let bridge = FakeBridge::with_catalog(&[]);
    let prelude = bridge.prelude_config();
    let _ = vm.bind(
        limits,
        Arc::new(Control::new()),
        Arc::new(bridge),
        &prelude,
        determinism,
    );
}
