//! Keeps oxc, whose parser and passes recurse once per nesting level without a limit, from
//! overflowing a stack: front-end work runs on a stack sized for its source (`stacker`), and
//! an AST deeper than [`MAX_DEPTH`] is refused before any pass after the parse; its memory
//! is bounded by a per-source budget.

use oxc::ast::ast::Program;
use oxc::ast::AstKind;
use oxc::ast_visit::Visit;
use oxc::span::GetSpan;

/// The largest cell source the front-end accepts, in bytes.
pub const MAX_SOURCE_BYTES: usize = 256 * 1024;
/// The deepest AST accepted (a nesting level of brackets, operators or statements is one or
/// two levels); deeper sources are refused before any pass after the parse.
pub const MAX_DEPTH: usize = 3_000;
/// Stack one source byte can cost the parser (one unclosed `(` is one level of its deepest
/// recursion), and one AST level a later pass, with room to spare over the measured worst
/// (`bench/README.md`, front-end stack).
const STACK_PER_UNIT: usize = if cfg!(debug_assertions) { 4096 } else { 2048 };
const STACK_BASE: usize = 1 << 20;

/// Memory the front-end may hold for one source beyond what its thread held before
/// (`runtime::alloc_budget`): far above any real source's parse, transform and print,
/// far below what oxc's speculation on a hostile one would take.
pub fn memory_budget(source_bytes: usize) -> usize {
    (32 << 20) + source_bytes.min(MAX_SOURCE_BYTES).saturating_mul(256)
}

/// Runs `work` for a source of `source_bytes` on a stack that fits the deepest parse of any
/// source that long plus passes over an AST of [`MAX_DEPTH`]: in place when the current
/// stack has that room left, else on a stack allocated for the call (and freed after it).
/// Callers bound `source_bytes` by [`MAX_SOURCE_BYTES`] first.
pub fn on_sized_stack<R>(source_bytes: usize, work: impl FnOnce() -> R) -> R {
    let units = source_bytes.min(MAX_SOURCE_BYTES).saturating_add(MAX_DEPTH);
    let needed = units
        .saturating_mul(STACK_PER_UNIT)
        .saturating_add(STACK_BASE);
    stacker::maybe_grow(needed, needed, work)
}

/// The source offset of the first node nested deeper than [`MAX_DEPTH`], if any. Walking
/// the tree recurses as deep as it is, so this runs inside [`on_sized_stack`] like the parse.
pub fn too_deep_at(program: &Program<'_>) -> Option<u32> {
    let mut meter = DepthMeter::default();
    meter.visit_program(program);
    meter.too_deep_at
}

#[derive(Default)]
struct DepthMeter {
    depth: usize,
    too_deep_at: Option<u32>,
}

impl<'a> Visit<'a> for DepthMeter {
    fn enter_node(&mut self, kind: AstKind<'a>) {
        self.depth += 1;
        if self.depth > MAX_DEPTH && self.too_deep_at.is_none() {
            self.too_deep_at = Some(kind.span().start);
        }
    }

    fn leave_node(&mut self, _kind: AstKind<'a>) {
        self.depth -= 1;
    }
}
