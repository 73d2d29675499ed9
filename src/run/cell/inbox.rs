//! What a turn applies to the VM before it runs jobs: host replies (checked against the
//! tool's output contract and bounded by `maxOutputBytes`) and timer fires.

use super::Cell;
use crate::guest::control::Interrupt;
use crate::run::protocol::{Event, HostFailure};
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
                    let outcome = self.admit_outcome(bridge_id, outcome);
                    if let Some((ok, payload)) = self.record_reply(bridge_id, &outcome) {
                        vm.settle(bridge_id, ok, &payload);
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

    /// A host reply checked against its tool's output contract and bounded (the same
    /// reply admitted twice comes out the same).
    pub(super) fn admit_outcome(
        &self,
        bridge_id: u32,
        outcome: Result<String, HostFailure>,
    ) -> Result<String, HostFailure> {
        let (contracts, callable) = {
            let book = self.book.lock();
            let call = book.calls.get(&bridge_id);
            (
                call.and_then(|c| c.contracts.clone()),
                call.map(|c| c.callable_name.clone()).unwrap_or_default(),
            )
        };
        self.admit_result(contracts.as_deref(), outcome, &callable)
    }

    /// Records an admitted reply in the run's state: how to settle the guest's promise,
    /// or `None` for a call the run no longer waits on.
    pub(super) fn record_reply(
        &self,
        bridge_id: u32,
        outcome: &Result<String, HostFailure>,
    ) -> Option<(bool, String)> {
        if !self.book.lock().settle_call(bridge_id, outcome) {
            return None;
        }
        Some(match outcome {
            Ok(json) => (true, json.clone()),
            Err(failure) => (
                false,
                serde_json::json!({ "message": failure.message, "code": failure.code }).to_string(),
            ),
        })
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
