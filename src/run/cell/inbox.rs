//! What a turn applies to the VM before it runs jobs: host replies (checked against the
//! tool's output contract and bounded by `maxOutputBytes`) and timer fires.

use super::Cell;
use crate::guest::control::Interrupt;
use crate::run::protocol::Event;
use crate::runtime::pool;
use crate::sandbox::handle::VmHandle;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

impl Cell {
    pub(super) fn apply_events(&self, vm: &VmHandle) {
        self.arrivals.store(0, Ordering::SeqCst);
        let events: Vec<Event> = self.inbox.lock().drain(..).collect();
        let bridge_admit = !events.is_empty();
        for event in events {
            match event {
                Event::Abort | Event::Deadline | Event::CallSuspended => {}
                Event::HostReply { bridge_id, outcome } => {
                    let (contracts, callable) = {
                        let book = self.book.lock();
                        let call = book.calls.get(&bridge_id);
                        (
                            call.and_then(|c| c.contracts.clone()),
                            call.map(|c| c.callable_name.clone()).unwrap_or_default(),
                        )
                    };
                    let outcome = self.admit_result(contracts.as_deref(), outcome, &callable);
                    let known = self.book.lock().settle_call(bridge_id, &outcome);
                    if known {
                        match &outcome {
                            Ok(json) => vm.settle(bridge_id, true, json),
                            Err(failure) => vm.settle(
                                bridge_id,
                                false,
                                &serde_json::json!({ "message": failure.message, "code": failure.code })
                                    .to_string(),
                            ),
                        }
                    }
                }
                Event::Timer { id } => {
                    if self.book.lock().timers.remove(&id).is_some() {
                        vm.fire_timer(id);
                    }
                }
            }
            if self.control.interrupt() != Interrupt::None {
                return;
            }
        }
        if bridge_admit {
            if let Some(bridge) = self.bridge.get() {
                bridge.admit();
            }
        }
    }

    /// A host result on its way into the guest: checked against the declared output of
    /// the tool the guest called as `callable`, and bounded by `maxOutputBytes` (an
    /// oversized MCP result is cut inside and keeps its shape; any other becomes the
    /// marker). A failure's text is the tool's own and passes unchanged.
    fn admit_result(
        &self,
        contracts: Option<&crate::run::contracts::ToolContracts>,
        outcome: Result<String, crate::run::protocol::HostFailure>,
        callable: &str,
    ) -> Result<String, crate::run::protocol::HostFailure> {
        let json = outcome?;
        crate::runtime::panic_probe::maybe_panic(&json, crate::runtime::panic_probe::RESULT_MARKER);
        // V8 escapes a lone surrogate as `\udXXX`, which serde cannot parse (JSON only:
        // docs/contract.md, Bridge).
        let json = crate::guest::text::into_well_formed_json(json);
        if let Some(contracts) = contracts {
            contracts.check_output(callable, &json)?;
        }
        let max = self.owner.limits().max_output_bytes as usize;
        if json.len() <= max {
            return Ok(json);
        }
        // Only the `MCP` global holds MCP surfaces (it is reserved).
        let mcp = callable.starts_with("MCP.");
        if let Some(fitted) = mcp.then(|| crate::mcp::fit_result(&json, max)).flatten() {
            return Ok(fitted);
        }
        Ok(crate::run::output::truncation_marker(&json, max)
            .map(|marker| marker.to_json_string())
            .unwrap_or_else(|| "null".to_string()))
    }

    /// After a bounded spin, true if new events arrived and the turn should go on: host
    /// replies often come back within microseconds, and a spin is cheaper than a wake-up.
    pub(super) fn spin_for_events(&self) -> bool {
        if !pool::global().is_idle() {
            return false;
        }
        let until = Instant::now() + Duration::from_micros(40);
        while Instant::now() < until {
            if self.arrivals.load(Ordering::SeqCst) > 0 {
                return true;
            }
            std::hint::spin_loop();
        }
        false
    }
}
