//! One configurable fake guest `Bridge`, for VMs bound without a cell: it hands out fresh
//! ids for calls, timers and yields and never settles them, ignores output, and answers
//! catalog queries from a small fixed catalog (or refuses them all).

use codemode_native::guest::natives::Bridge;
use serde_json::json;
use std::sync::atomic::{AtomicU32, Ordering};

pub struct FakeBridge {
    /// Callable names; `None` refuses every catalog query.
    catalog: Option<Vec<String>>,
    next: AtomicU32,
}

const REFUSED: &str = "catalog unavailable";

impl FakeBridge {
    /// Answers catalog queries about these callables.
    pub fn with_catalog(names: &[&str]) -> FakeBridge {
        FakeBridge {
            catalog: Some(names.iter().map(|name| name.to_string()).collect()),
            next: AtomicU32::new(0),
        }
    }

    /// Refuses every catalog query (the guest sees the error thrown).
    pub fn refusing() -> FakeBridge {
        FakeBridge {
            catalog: None,
            next: AtomicU32::new(0),
        }
    }

    /// The prelude configuration that matches the catalog (for `Vm::bind`).
    pub fn prelude_config(&self) -> String {
        json!({ "tools": self.catalog.clone().unwrap_or_default() }).to_string()
    }

    fn fresh_id(&self) -> u32 {
        self.next.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The callable, if the catalog answers and knows it.
    fn known(&self, callable: &str) -> Result<&str, String> {
        let catalog = self.catalog.as_ref().ok_or(REFUSED)?;
        catalog
            .iter()
            .find(|name| *name == callable)
            .map(String::as_str)
            .ok_or_else(|| format!("Unknown tool: {callable}"))
    }
}

impl Bridge for FakeBridge {
    fn call(&self, _: &str, _: &str, _: String) -> Result<u32, String> {
        Ok(self.fresh_id())
    }
    fn output(&self, _: u8, _: String) {}
    fn console(&self, _: String) {}
    fn timer(&self, _: u64) -> Result<u32, String> {
        Ok(self.fresh_id())
    }
    fn clear_timer(&self, _: u32) {}
    fn yield_control(&self, _: Option<String>) -> u32 {
        self.fresh_id()
    }
    fn finish(&self, _: bool, _: String) {}
    fn fail(&self, _: String) {}
    fn search(&self, query: &str, limit: u32) -> Result<String, String> {
        let catalog = self.catalog.as_ref().ok_or(REFUSED)?;
        let found: Vec<&String> = catalog
            .iter()
            .filter(|name| name.contains(query))
            .take(limit as usize)
            .collect();
        Ok(json!(found).to_string())
    }
    fn describe(&self, callable: &str) -> Result<String, String> {
        let name = self.known(callable)?;
        Ok(json!({ "name": name, "description": format!("{name} tool") }).to_string())
    }
    fn tool_meta(&self, callable: &str) -> Result<String, String> {
        let name = self.known(callable)?;
        Ok(json!({ "name": name, "callableName": name }).to_string())
    }
    fn api_list(&self, _: &str) -> String {
        json!({ "files": [] }).to_string()
    }
    fn api_read(&self, _: &str) -> Result<String, String> {
        Err("no such file".into())
    }
    fn mcp_api(&self, _: &str, _: Option<&str>, _: bool) -> Result<String, String> {
        Err("no MCP servers".into())
    }
}
