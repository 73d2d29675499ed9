//! The guest runtime: one QuickJS VM per cell, its natives, prelude and web globals.

pub mod allocator;
pub mod control;
mod determinism;
mod modules;
pub mod natives;
pub mod text;
pub mod url;
pub mod vm;
