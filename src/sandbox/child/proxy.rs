//! The guest's natives inside the sandbox: each `Bridge` call becomes a request to the
//! addon, and calls that return something wait for its reply.

use super::super::wire::{own_call_id, write_body, BridgeReply, BridgeRequest, FromChild};
use super::linger::Outstanding;
use super::Out;
use crate::guest::natives::Bridge;
use crossbeam_channel::Receiver;
use std::sync::Arc;

/// What a call returns when the addon cannot answer (it is going away).
const GONE: &str = "code mode sandbox lost its connection to the gateway";

pub(super) struct ProxyBridge {
    vm: u64,
    out: Out,
    replies: Receiver<BridgeReply>,
    next_call: std::sync::atomic::AtomicU32,
    /// The largest frame the addon accepts from this process: a larger one would get the
    /// process killed, so the guest's value is refused here instead.
    max_frame: usize,
    outstanding: Arc<Outstanding>,
}

impl ProxyBridge {
    pub(super) fn new(
        vm: u64,
        out: Out,
        replies: Receiver<BridgeReply>,
        max_frame: usize,
        outstanding: Arc<Outstanding>,
    ) -> Self {
        ProxyBridge {
            vm,
            out,
            replies,
            next_call: std::sync::atomic::AtomicU32::new(0),
            max_frame,
            outstanding,
        }
    }

    fn tell(&self, request: BridgeRequest) {
        let _ = self.send(request, true);
    }

    /// Tells the addon how the run ends: the command's `Done` follows at once, so the two
    /// travel in one write. A value too large for the pipe ends the run with a `RangeError`.
    fn tell_with_done(&self, request: BridgeRequest) {
        let Err(bytes) = self.send(request, false) else {
            return;
        };
        let message = format!(
            "RangeError: code mode cannot return a value of {bytes} bytes from the sandbox process (the most is {} bytes, from maxSnapshotBytes, maxOutputBytes and maxToolInputBytes); return a smaller value",
            self.max_frame
        );
        let payload = serde_json::json!({ "message": message, "stack": "", "code": null });
        let request = BridgeRequest::Finish {
            ok: false,
            payload: payload.to_string(),
        };
        let _ = self.send(request, false);
    }

    /// Writes the request (sent now, or with the next frame), or says how large it was if
    /// it is over the addon's cap.
    fn send(&self, request: BridgeRequest, now: bool) -> Result<(), usize> {
        let message = FromChild::Bridge {
            vm: self.vm,
            request,
        };
        let Ok(body) = serde_json::to_vec(&message) else {
            return Ok(());
        };
        if body.len() > self.max_frame {
            return Err(body.len());
        }
        let mut out = self.out.lock();
        let _ = write_body(&mut *out, &body);
        if now {
            let _ = std::io::Write::flush(&mut *out);
        }
        Ok(())
    }

    fn too_large(&self, bytes: usize) -> String {
        format!(
            "RangeError: code mode cannot pass a value of {bytes} bytes to the gateway (the most is {} bytes)",
            self.max_frame
        )
    }

    /// Text the guest printed, cut to fit a frame: the addon keeps at most maxOutputBytes
    /// of it, which is well under the cap.
    fn tell_text(&self, text: String, request: impl Fn(String) -> BridgeRequest) {
        let text = if text.len() > self.max_frame / 8 {
            let mut end = self.max_frame / 8;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text[..end].to_owned()
        } else {
            text
        };
        self.tell(request(text));
    }

    fn ask(&self, request: BridgeRequest) -> Option<BridgeReply> {
        if let Err(bytes) = self.send(request, true) {
            return Some(BridgeReply::TextOr(Err(self.too_large(bytes))));
        }
        self.replies.recv().ok()
    }

    fn ask_text(&self, request: BridgeRequest) -> Result<String, String> {
        match self.ask(request) {
            Some(BridgeReply::TextOr(answer)) => answer,
            Some(BridgeReply::Text(text)) => Ok(text),
            _ => Err(GONE.into()),
        }
    }

    fn ask_id(&self, request: BridgeRequest) -> Result<u32, String> {
        match self.ask(request) {
            Some(BridgeReply::Id32(answer)) => answer,
            Some(BridgeReply::Id(id)) => Ok(id),
            _ => Err(GONE.into()),
        }
    }
}

impl Bridge for ProxyBridge {
    fn call(&self, method: &str, target: &str, input_json: String) -> Result<u32, String> {
        // Only calls the addon sees are counted: a replay addresses recorded replies by
        // this count (`wire::own_call_id`), and the guest's thread is the only caller.
        let n = self.next_call.load(std::sync::atomic::Ordering::Relaxed);
        let id = own_call_id(n);
        let call = BridgeRequest::Call {
            id,
            method: method.into(),
            target: target.into(),
            input_json,
        };
        self.send(call, !self.outstanding.holds_calls())
            .map_err(|bytes| self.too_large(bytes))?;
        self.next_call
            .store(n.wrapping_add(1), std::sync::atomic::Ordering::Relaxed);
        self.outstanding.called();
        Ok(id)
    }

    fn output(&self, kind: u8, text: String) {
        self.tell_text(text, |text| BridgeRequest::Output { kind, text });
    }

    fn console(&self, line: String) {
        self.tell_text(line, |line| BridgeRequest::Console { line });
    }

    fn timer(&self, delay_ms: u64) -> Result<u32, String> {
        self.outstanding.stop();
        self.ask_id(BridgeRequest::Timer { delay_ms })
    }

    fn clear_timer(&self, id: u32) {
        self.tell(BridgeRequest::ClearTimer { id });
    }

    fn yield_control(&self, reason: Option<String>) -> u32 {
        self.outstanding.stop();
        self.ask_id(BridgeRequest::Yield { reason }).unwrap_or(0)
    }

    fn finish(&self, ok: bool, payload: String) {
        self.outstanding.stop();
        self.tell_with_done(BridgeRequest::Finish { ok, payload });
    }

    fn fail(&self, payload: String) {
        self.outstanding.stop();
        self.tell_with_done(BridgeRequest::Fail { payload });
    }

    fn search(&self, query: &str, limit: u32) -> Result<String, String> {
        self.ask_text(BridgeRequest::Search {
            query: query.into(),
            limit,
        })
    }

    fn describe(&self, callable: &str) -> Result<String, String> {
        self.ask_text(BridgeRequest::Describe {
            callable: callable.into(),
        })
    }

    fn tool_meta(&self, callable: &str) -> Result<String, String> {
        self.ask_text(BridgeRequest::ToolMeta {
            callable: callable.into(),
        })
    }

    fn api_list(&self, prefix: &str) -> String {
        self.ask_text(BridgeRequest::ApiList {
            prefix: prefix.into(),
        })
        .unwrap_or_else(|_| r#"{"files":[]}"#.into())
    }

    fn api_read(&self, path: &str) -> Result<String, String> {
        self.ask_text(BridgeRequest::ApiRead { path: path.into() })
    }

    fn mcp_api(&self, server: &str, tool: Option<&str>, schema: bool) -> Result<String, String> {
        self.ask_text(BridgeRequest::McpApi {
            server: server.into(),
            tool: tool.map(str::to_owned),
            schema,
        })
    }
}
