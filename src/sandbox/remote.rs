//! A VM that lives in a sandbox process: the same calls as `guest::vm::Vm`, each sent as
//! a command; while one runs, the guest's bridge calls are served here, on the worker
//! that waits for it. A process that dies leaves the VM lost, with the reason.

use super::process::SandboxProcess;
use super::wire::{
    BridgeReply, BridgeRequest, Clock, Command, FromChild, Outcome, StartFailure, ToChild,
};
use crate::guest::control::Control;
use crate::guest::natives::Bridge;
use crate::guest::vm::{StartError, VmLimits};
use crossbeam_channel::Receiver;
use parking_lot::Mutex;
use std::sync::{Arc, OnceLock};

#[derive(Default, Clone, Copy)]
struct Stats {
    heap_bytes: u64,
    peak_heap_bytes: u64,
    memory_exhausted: bool,
}

pub struct RemoteVm {
    process: Arc<SandboxProcess>,
    id: u64,
    messages: Receiver<FromChild>,
    bridge: OnceLock<Arc<dyn Bridge>>,
    control: OnceLock<Arc<Control>>,
    stats: Mutex<Stats>,
    lost: OnceLock<String>,
}

impl RemoteVm {
    pub fn new(process: Arc<SandboxProcess>) -> RemoteVm {
        let (id, messages) = process.open_vm();
        RemoteVm {
            process,
            id,
            messages,
            bridge: OnceLock::new(),
            control: OnceLock::new(),
            stats: Mutex::new(Stats::default()),
            lost: OnceLock::new(),
        }
    }

    pub fn process(&self) -> &Arc<SandboxProcess> {
        &self.process
    }

    /// Why the VM is gone (its process ended), once it is.
    pub fn lost(&self) -> Option<&str> {
        self.lost.get().map(String::as_str)
    }

    pub fn bind(
        &self,
        limits: VmLimits,
        control: Arc<Control>,
        bridge: Arc<dyn Bridge>,
        config_json: &str,
    ) -> Result<(), StartError> {
        let _ = self.bridge.set(bridge);
        let process = Arc::downgrade(&self.process);
        let id = self.id;
        control.on_abort(Box::new(move || {
            if let Some(process) = process.upgrade() {
                process.send(&ToChild::Abort { vm: id });
            }
        }));
        let _ = self.control.set(control);
        self.started(Command::Bind {
            memory_bytes: limits.memory_bytes,
            max_stack_bytes: limits.max_stack_bytes,
            config_json: config_json.to_owned(),
        })
    }

    pub fn start(&self, js: &str, file: &str) -> Result<(), StartError> {
        self.started(Command::Start {
            js: js.to_owned(),
            file: file.to_owned(),
        })
    }

    pub fn settle(&self, id: u32, ok: bool, payload: &str) {
        self.run(Command::Settle {
            id,
            ok,
            payload: payload.to_owned(),
        });
    }

    pub fn fire_timer(&self, id: u32) {
        self.run(Command::FireTimer { id });
    }

    pub fn drain_jobs(&self) {
        self.run(Command::DrainJobs);
    }

    pub fn first_unhandled_rejection(&self) -> Option<String> {
        match self.run(Command::FirstUnhandled) {
            Some(Outcome::Unhandled(text)) => text,
            _ => None,
        }
    }

    pub fn heap_bytes(&self) -> u64 {
        self.stats.lock().heap_bytes
    }

    pub fn memory_exhausted(&self) -> bool {
        self.stats.lock().memory_exhausted
    }

    pub fn peak_heap_bytes(&self) -> u64 {
        self.stats.lock().peak_heap_bytes
    }

    fn started(&self, command: Command) -> Result<(), StartError> {
        match self.run(command) {
            Some(Outcome::Started(Ok(()))) => Ok(()),
            Some(Outcome::Started(Err(StartFailure::Syntax {
                message,
                line,
                column,
            }))) => Err(StartError::Syntax {
                message,
                line,
                column,
            }),
            Some(Outcome::Started(Err(StartFailure::Runtime(detail)))) => {
                Err(StartError::Runtime(detail))
            }
            _ => Err(StartError::Runtime(
                self.lost()
                    .unwrap_or("code mode sandbox did not answer")
                    .to_owned(),
            )),
        }
    }

    /// Sends `command` and serves the guest's bridge calls until it is done; `None` if
    /// the process died first (the VM is then lost).
    fn run(&self, command: Command) -> Option<Outcome> {
        if self.lost().is_some() {
            return None;
        }
        let clock = self.control.get().map_or(
            Clock {
                remaining_ns: None,
                aborted: false,
            },
            |control| Clock {
                remaining_ns: control.remaining_ns(),
                aborted: control.is_aborted(),
            },
        );
        let sent = self.process.send(&ToChild::Run {
            vm: self.id,
            clock,
            command,
        });
        if !sent {
            return self.lose();
        }
        loop {
            match self.messages.recv() {
                Ok(FromChild::Bridge { request, .. }) => self.serve(request),
                Ok(FromChild::Done { done, .. }) => {
                    *self.stats.lock() = Stats {
                        heap_bytes: done.heap_bytes,
                        peak_heap_bytes: done.peak_heap_bytes,
                        memory_exhausted: done.memory_exhausted,
                    };
                    if let Some(control) = self.control.get() {
                        control.adopt_interrupt(done.interrupt);
                    }
                    return Some(done.outcome);
                }
                Err(_) => return self.lose(),
            }
        }
    }

    /// Marks the VM lost with its process's end; `None` for `run` to return.
    fn lose(&self) -> Option<Outcome> {
        let why = self
            .process
            .death()
            .unwrap_or("code mode sandbox process ended");
        let _ = self.lost.set(why.to_owned());
        None
    }

    /// Runs one bridge call of the guest and answers it if it returns something.
    fn serve(&self, request: BridgeRequest) {
        let Some(bridge) = self.bridge.get() else {
            return;
        };
        let reply = match request {
            BridgeRequest::Call {
                method,
                target,
                input_json,
            } => Some(BridgeReply::Id32(bridge.call(&method, &target, input_json))),
            BridgeRequest::Output { kind, text } => {
                bridge.output(kind, text);
                None
            }
            BridgeRequest::Console { line } => {
                bridge.console(line);
                None
            }
            BridgeRequest::Timer { delay_ms } => Some(BridgeReply::Id32(bridge.timer(delay_ms))),
            BridgeRequest::ClearTimer { id } => {
                bridge.clear_timer(id);
                None
            }
            BridgeRequest::Yield { reason } => Some(BridgeReply::Id(bridge.yield_control(reason))),
            BridgeRequest::Finish { ok, payload } => {
                bridge.finish(ok, payload);
                None
            }
            BridgeRequest::Fail { payload } => {
                bridge.fail(payload);
                None
            }
            BridgeRequest::Search { query, limit } => {
                Some(BridgeReply::TextOr(bridge.search(&query, limit)))
            }
            BridgeRequest::Describe { callable } => {
                Some(BridgeReply::TextOr(bridge.describe(&callable)))
            }
            BridgeRequest::ToolMeta { callable } => {
                Some(BridgeReply::TextOr(bridge.tool_meta(&callable)))
            }
            BridgeRequest::ApiList { prefix } => Some(BridgeReply::Text(bridge.api_list(&prefix))),
            BridgeRequest::ApiRead { path } => Some(BridgeReply::TextOr(bridge.api_read(&path))),
            BridgeRequest::McpApi {
                server,
                tool,
                schema,
            } => Some(BridgeReply::TextOr(bridge.mcp_api(
                &server,
                tool.as_deref(),
                schema,
            ))),
        };
        if let Some(reply) = reply {
            self.process.send(&ToChild::Reply { vm: self.id, reply });
        }
    }
}

impl Drop for RemoteVm {
    fn drop(&mut self) {
        self.process.release_vm(self.id);
    }
}
