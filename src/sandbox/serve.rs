//! The addon's side of a guest's bridge call from a sandbox: the call runs on the real
//! `Bridge`, and calls that return something produce the reply to send back. Host calls
//! (`Call`) carry the sandbox's id and are served by `RemoteVm`, which maps the ids.

use super::wire::{BridgeReply, BridgeRequest};
use crate::guest::natives::Bridge;

pub fn serve(bridge: &dyn Bridge, request: BridgeRequest) -> Option<BridgeReply> {
    let reply = match request {
        BridgeRequest::Call { .. } => return None,
        BridgeRequest::Output { kind, text } => return quiet(|| bridge.output(kind, text)),
        BridgeRequest::Console { line } => return quiet(|| bridge.console(line)),
        BridgeRequest::Timer { delay_ms } => BridgeReply::Id32(bridge.timer(delay_ms)),
        BridgeRequest::ClearTimer { id } => return quiet(|| bridge.clear_timer(id)),
        BridgeRequest::Yield { reason } => BridgeReply::Id(bridge.yield_control(reason)),
        BridgeRequest::Finish { ok, payload } => return quiet(|| bridge.finish(ok, payload)),
        BridgeRequest::Fail { payload } => return quiet(|| bridge.fail(payload)),
        BridgeRequest::Search { query, limit } => BridgeReply::TextOr(bridge.search(&query, limit)),
        BridgeRequest::Describe { callable } => BridgeReply::TextOr(bridge.describe(&callable)),
        BridgeRequest::ToolMeta { callable } => BridgeReply::TextOr(bridge.tool_meta(&callable)),
        BridgeRequest::ApiList { prefix } => BridgeReply::Text(bridge.api_list(&prefix)),
        BridgeRequest::ApiRead { path } => BridgeReply::TextOr(bridge.api_read(&path)),
        BridgeRequest::McpApi {
            server,
            tool,
            schema,
        } => BridgeReply::TextOr(bridge.mcp_api(&server, tool.as_deref(), schema)),
    };
    Some(reply)
}

/// A call that returns nothing: no reply.
fn quiet(call: impl FnOnce()) -> Option<BridgeReply> {
    call();
    None
}
