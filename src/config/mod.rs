//! Gateway config helpers (docs/contract.md, Config and activation): activation and limits
//! for one agent/model run, readable validation, and the fail-closed payload check. Pure
//! functions over untrusted JSON; nothing here panics or throws on odd shapes.

mod path;
pub mod payload;
pub mod resolve;
pub mod validate;

pub use payload::assert_code_mode_payload;
pub use resolve::{resolve_code_mode_config, Activation, ResolveContext, Resolved};
pub use validate::validate_code_mode_config;
