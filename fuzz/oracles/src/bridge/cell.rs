//! One cell in a fresh VM bound to a bridge that records what the guest hands over
//! (tool inputs, `json()` and `text()` output, the result) and echoes tool calls back.

use std::sync::Arc;
use std::time::Duration;

use codemode_native::guest::control::Control;
use codemode_native::guest::natives::Bridge;
use codemode_native::guest::vm::{Vm, VmLimits, USER_FILE_JS};
use parking_lot::Mutex;

/// What `describe` and `tool_meta` answer for `echo`, and so what the function `echo` becomes.
pub(super) const META: &str = r#"{"callableName":"echo","toolName":"echo","source":"core"}"#;

/// What one cell handed to its bridge.
#[derive(Default)]
pub(super) struct Run {
    /// Tool inputs in call order.
    pub calls: Vec<String>,
    pub json_outputs: Vec<String>,
    pub texts: Vec<String>,
    pub finished: Option<(bool, String)>,
}

#[derive(Default)]
struct Recorder {
    run: Mutex<Run>,
    /// Calls not answered yet.
    unanswered: Mutex<Vec<u32>>,
    next_id: Mutex<u32>,
}

impl Bridge for Recorder {
    fn call(&self, _method: &str, _target: &str, input_json: String) -> Result<u32, String> {
        let mut next = self.next_id.lock();
        *next += 1;
        self.run.lock().calls.push(input_json);
        self.unanswered.lock().push(*next);
        Ok(*next)
    }
    fn output(&self, kind: u8, text: String) {
        let mut run = self.run.lock();
        match kind {
            1 => run.json_outputs.push(text),
            _ => run.texts.push(text),
        }
    }
    fn console(&self, _line: String) {}
    fn timer(&self, _delay_ms: u64) -> Result<u32, String> {
        Err("no timers in this check".into())
    }
    fn clear_timer(&self, _id: u32) {}
    fn yield_control(&self, _reason: Option<String>) -> u32 {
        0
    }
    fn finish(&self, ok: bool, payload: String) {
        self.run.lock().finished = Some((ok, payload));
    }
    fn fail(&self, payload: String) {
        self.run.lock().finished = Some((false, payload));
    }
    fn search(&self, _query: &str, _limit: u32) -> Result<String, String> {
        Ok("[]".into())
    }
    fn describe(&self, _callable: &str) -> Result<String, String> {
        Ok(META.into())
    }
    fn tool_meta(&self, _callable: &str) -> Result<String, String> {
        Ok(META.into())
    }
    fn api_list(&self, _prefix: &str) -> String {
        r#"{"files":[]}"#.into()
    }
    fn api_read(&self, _path: &str) -> Result<String, String> {
        Err("no files".into())
    }
    fn mcp_api(&self, _: &str, _: Option<&str>, _: bool) -> Result<String, String> {
        Err("no MCP servers".into())
    }
}

/// Runs `cell` in a fresh VM whose only tool `echo` answers its first call with
/// `first_reply` and every later call with its own input.
pub(super) fn run_cell(cell: &str, first_reply: &str) -> Run {
    let vm = Vm::blank().unwrap_or_else(|_| panic!("a blank VM could not be built"));
    let recorder = Arc::new(Recorder::default());
    let control = Arc::new(Control::new());
    control.set_deadline_after(Duration::from_secs(5));
    let limits = VmLimits {
        memory_bytes: 64 << 20,
        max_stack_bytes: 512 << 10,
    };
    let bound = vm.bind(
        limits,
        control.clone(),
        recorder.clone(),
        r#"{"tools":["echo"]}"#,
        None,
    );
    assert!(bound.is_ok(), "bind failed");
    let started = vm.start(cell, USER_FILE_JS);
    if let Err(error) = started {
        panic!("the cell did not start ({error:?}): {cell}");
    }
    let mut answered = 0;
    for _ in 0..16 {
        vm.drain_jobs(&control);
        if recorder.run.lock().finished.is_some() {
            break;
        }
        let ids: Vec<u32> = std::mem::take(&mut *recorder.unanswered.lock());
        if ids.is_empty() {
            break;
        }
        for id in ids {
            let reply = if answered == 0 {
                first_reply.to_owned()
            } else {
                let run = recorder.run.lock();
                run.calls
                    .get(id as usize - 1)
                    .cloned()
                    .unwrap_or_else(|| "null".into())
            };
            answered += 1;
            vm.settle(id, true, &reply);
        }
    }
    let run = std::mem::take(&mut *recorder.run.lock());
    run
}
