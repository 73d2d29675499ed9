//! The fake hosts and the null bridge the probes run against, and a blocking exec/wait.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use codemode_native::catalog::ToolSpec;
use codemode_native::guest::control::Control;
use codemode_native::guest::natives::Bridge;
use codemode_native::guest::vm::{Vm, VmLimits};
use codemode_native::run::protocol::{Host, HostCall, HostFailure, Reply};
use codemode_native::session::core::SessionCore;
use serde_json::{json, Value};

use crate::common;

/// Answers every call with `{ "echo": input }`, or fails for the tool named `broken`,
/// or never answers for `never`, on its own thread after `delay`.
struct FakeHost {
    delay: Duration,
}

impl Host for FakeHost {
    fn call_tool(&self, call: HostCall, reply: Reply) {
        let delay = self.delay;
        std::thread::spawn(move || {
            std::thread::sleep(delay);
            match call.tool_name.as_str() {
                "never" => std::mem::forget(reply),
                "broken" => reply.fail(HostFailure { message: "disk on fire".into(), code: "tool_error" }),
                _ => reply.ok(json!({ "echo": serde_json::from_str::<Value>(&call.input_json).unwrap_or(Value::Null) }).to_string()),
            }
        });
    }
    fn cancel(&self, _call_id: &str) {}
}

pub fn session(limits: Value, tools: Vec<ToolSpec>) -> Arc<SessionCore> {
    let host = Arc::new(FakeHost {
        delay: Duration::from_millis(1),
    });
    common::session("s1", limits, tools, host)
}

pub fn exec(session: &Arc<SessionCore>, code: &str) -> Value {
    common::exec_within(session, code, Duration::from_secs(30)).expect("a result")
}

pub fn wait(session: &Arc<SessionCore>, run_id: &str) -> Value {
    let (tx, rx) = mpsc::channel();
    session.wait(
        Some(run_id.into()),
        Box::new(move |outcome| {
            let _ = tx.send(outcome);
        }),
    );
    rx.recv_timeout(Duration::from_secs(30)).expect("a result")
}

/// Answers every call at once, on the calling worker: what remains is the engine's own
/// per-call cost (guest bridge, dispatch, records, settle).
pub struct InstantHost;

impl Host for InstantHost {
    fn call_tool(&self, _call: HostCall, reply: Reply) {
        reply.ok(r#"{"sum":3}"#.to_string());
    }
    fn cancel(&self, _call_id: &str) {}
}

struct NullBridge;

/// Binds a blank VM to a bridge that answers nothing (the probes measure the VM alone).
pub fn bind_null(vm: &Vm, limits: VmLimits) {
    let _ = vm.bind(
        limits,
        Arc::new(Control::new()),
        Arc::new(NullBridge),
        r#"{"tools":[]}"#,
    );
}

impl Bridge for NullBridge {
    fn call(&self, _: &str, _: &str, _: String) -> Result<u32, String> {
        Ok(1)
    }
    fn output(&self, _: u8, _: String) {}
    fn console(&self, _: String) {}
    fn timer(&self, _: u64) -> Result<u32, String> {
        Ok(1)
    }
    fn clear_timer(&self, _: u32) {}
    fn yield_control(&self, _: Option<String>) -> u32 {
        1
    }
    fn finish(&self, _: bool, _: String) {}
    fn fail(&self, _: String) {}
    fn search(&self, _: &str, _: u32) -> Result<String, String> {
        Ok("[]".into())
    }
    fn describe(&self, _: &str) -> Result<String, String> {
        Ok("{}".into())
    }
    fn tool_meta(&self, _: &str) -> Result<String, String> {
        Ok("{}".into())
    }
    fn api_list(&self, _: &str) -> String {
        "{}".into()
    }
    fn api_read(&self, _: &str) -> Result<String, String> {
        Ok("{}".into())
    }
    fn mcp_api(&self, _: &str, _: Option<&str>, _: bool) -> Result<String, String> {
        Ok("{}".into())
    }
}
