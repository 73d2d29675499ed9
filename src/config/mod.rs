//! Gateway config helpers (SPEC §12): resolving whether code mode is on for one
//! agent/model run and with which limits, validating a config with readable messages,
//! and the fail-closed check of the tool payload sent to a model. Pure functions over
//! untrusted config JSON; nothing here panics or throws on odd shapes.

mod path;
pub mod payload;
pub mod resolve;
pub mod validate;

pub use payload::assert_code_mode_payload;
pub use resolve::{resolve_code_mode_config, Activation, ResolveContext, Resolved};
pub use validate::validate_code_mode_config;
