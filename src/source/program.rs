//! Source front-end checks of a cell (docs/contract.md, Source front-end): it parses as the
//! body of an async function; module access and `export` are refused; positions are 1-based
//! UTF-16. Decisions (require resolution, error precedence): docs/design.md, Source front-end.

use std::cell::RefCell;

use oxc::allocator::Allocator;
use oxc::ast::ast::{Expression, ModuleDeclaration, Statement, TSModuleReference};
use oxc::ast::AstKind;
use oxc::diagnostics::{OxcDiagnostic, Severity};
use oxc::parser::{ParseOptions, Parser, ParserReturn};
use oxc::semantic::Semantic;
use oxc::span::{GetSpan, SourceType};
use oxc::syntax::symbol::SymbolFlags;

use super::depth;

const MODULE_ACCESS: &str = "code mode module access is disabled.";
const TOO_DEEP: &str = "nesting is too deep (simplify the expression or split it into statements)";
const EXPORT_MESSAGE: &str =
    "export declarations are not allowed in a code mode cell; return the value instead";
/// Diagnostic text kept in a message: the fixed words around it stay well under 200 bytes,
/// so every full sentence is below 500 characters.
const MAX_DIAGNOSTIC_BYTES: usize = 300;
/// Arena capacity kept per thread between cells; a larger arena (after a huge input) is freed.
const ARENA_RETAIN_BYTES: usize = 4 << 20;

/// The cell's declared language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Language {
    JavaScript,
    TypeScript,
}

/// Why a cell was refused before it ran (all map to `invalid_input`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceError {
    /// `import`, `import(...)`, `import.meta` or a call of the global `require`.
    ModuleAccess,
    /// A parse error at a user-relative 1-based line and column (UTF-16 units).
    Syntax {
        line: u32,
        column: u32,
        message: String,
    },
    /// TypeScript transform diagnostics, already bounded.
    Transform(String),
    /// The source is longer than the front-end accepts.
    TooLarge { bytes: usize, limit: usize },
}

impl SourceError {
    /// The model-facing sentence for this error.
    pub fn message(&self, language: Language) -> String {
        match self {
            Self::ModuleAccess => MODULE_ACCESS.to_owned(),
            Self::Syntax {
                line,
                column,
                message,
            } => {
                let file = match language {
                    Language::JavaScript => "user.js",
                    Language::TypeScript => "user.ts",
                };
                format!(
                    "SyntaxError at {file}:{line}:{column}: {message}. No tools were dispatched; correct the source and submit it again."
                )
            }
            Self::Transform(diagnostics) => format!("typescript transform failed: {diagnostics}"),
            Self::TooLarge { bytes, limit } => format!(
                "code is too large: {bytes} bytes, the limit is {limit}. No tools were dispatched; split the work into smaller cells."
            ),
        }
    }

    /// `(line, column)` of a syntax error, for `transformTypeScript()`'s result.
    pub fn position(&self) -> Option<(u32, u32)> {
        match self {
            Self::Syntax { line, column, .. } => Some((*line, *column)),
            _ => None,
        }
    }
}

/// Cheap grammar check as a cell body: no policy (module syntax parses), no semantics.
pub fn parses(source: &str, language: Language) -> bool {
    with_parsed(source, language, |_, parsed| {
        Ok(!parsed.diagnostics.has_errors())
    })
    .unwrap_or(false)
}

/// Parses `source` as a cell body and hands the result to `work`, all on a stack sized for
/// the source. Refuses a source over the size limit, an unrecoverable parse and an AST over
/// the depth limit before `work` runs, so `work` may recurse over the AST freely.
pub(crate) fn with_parsed<R>(
    source: &str,
    language: Language,
    work: impl for<'a> FnOnce(&'a Allocator, ParserReturn<'a>) -> Result<R, SourceError>,
) -> Result<R, SourceError> {
    if source.len() > depth::MAX_SOURCE_BYTES {
        return Err(SourceError::TooLarge {
            bytes: source.len(),
            limit: depth::MAX_SOURCE_BYTES,
        });
    }
    let budget = depth::memory_budget(source.len());
    crate::runtime::alloc_budget::with_budget(budget, || {
        depth::on_sized_stack(source.len(), || {
            shielded(|| {
                with_arena(|allocator| {
                    let parsed = parse_cell(allocator, source, language);
                    reject_unrecoverable(source, &parsed)?;
                    if let Some(offset) = depth::too_deep_at(&parsed.program) {
                        return Err(syntax_at(source, offset, TOO_DEEP));
                    }
                    work(allocator, parsed)
                })
            })
        })
    })
}

/// Runs `work` with this thread's reusable arena (reset first), falling back to a fresh one
/// if the arena is somehow in use.
pub(super) fn with_arena<R>(work: impl FnOnce(&Allocator) -> R) -> R {
    thread_local! {
        static ARENA: RefCell<Allocator> = RefCell::new(Allocator::default());
    }
    ARENA.with(|cell| match cell.try_borrow_mut() {
        Ok(mut allocator) => {
            allocator.reset();
            let result = work(&allocator);
            if allocator.capacity() > ARENA_RETAIN_BYTES {
                *allocator = Allocator::default();
            }
            result
        }
        Err(_) => work(&Allocator::default()),
    })
}

/// Turns a panic inside oxc (a bug, never expected) into a refusal instead of unwinding into
/// the caller.
pub(super) fn shielded<R>(work: impl FnOnce() -> Result<R, SourceError>) -> Result<R, SourceError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|_| {
        Err(SourceError::Syntax {
            line: 1,
            column: 1,
            message: "the parser failed on this source (an internal error); simplify it".into(),
        })
    })
}

/// Parses `source` as a cell body.
pub(super) fn parse_cell<'a>(
    allocator: &'a Allocator,
    source: &'a str,
    language: Language,
) -> ParserReturn<'a> {
    let source_type = match language {
        Language::JavaScript => SourceType::mjs(),
        Language::TypeScript => SourceType::ts().with_module(true),
    };
    let options = ParseOptions {
        allow_return_outside_function: true,
        ..ParseOptions::default()
    };
    Parser::new(allocator, source, source_type)
        .with_options(options)
        .parse()
}

/// An unrecoverable parse leaves an empty AST: nothing else can be judged.
pub(super) fn reject_unrecoverable(
    source: &str,
    parsed: &ParserReturn<'_>,
) -> Result<(), SourceError> {
    if parsed.panicked {
        return Err(first_diagnostic(source, parsed.diagnostics.iter()));
    }
    Ok(())
}

/// `import` declarations (also TypeScript `import x = require(..)`), `import(...)` and
/// `import.meta`, wherever they occur.
pub(super) fn reject_module_syntax(parsed: &ParserReturn<'_>) -> Result<(), SourceError> {
    let record = &parsed.module_record;
    if !record.dynamic_imports.is_empty() || !record.import_metas.is_empty() {
        return Err(SourceError::ModuleAccess);
    }
    let imports = parsed.program.body.iter().any(|statement| match statement {
        Statement::ImportDeclaration(_) => true,
        Statement::TSImportEqualsDeclaration(decl) => {
            matches!(
                decl.module_reference,
                TSModuleReference::ExternalModuleReference(_)
            )
        }
        _ => false,
    });
    if imports {
        return Err(SourceError::ModuleAccess);
    }
    Ok(())
}

/// Could the source name `require` at all? Identifiers can only be spelled with escapes
/// through `\u`, so sources without either skip the semantic pass.
#[doc(hidden)]
pub fn may_name_require(source: &str) -> bool {
    source.contains("require") || source.contains("\\u")
}

/// Calls (`f()`, `f?.()`, `new f()`, ``f`x` ``) whose callee is the unbound identifier
/// `require`. Needs a semantic model built with nodes.
pub(super) fn reject_require_calls(semantic: &Semantic<'_>) -> Result<(), SourceError> {
    let scoping = semantic.scoping();
    for node in semantic.nodes().iter() {
        let callee = match node.kind() {
            AstKind::CallExpression(call) => &call.callee,
            AstKind::NewExpression(call) => &call.callee,
            AstKind::TaggedTemplateExpression(tagged) => &tagged.tag,
            _ => continue,
        };
        let Expression::Identifier(ident) = unwrap_callee(callee) else {
            continue;
        };
        if ident.name != "require" {
            continue;
        }
        // Bound to a real (non-ambient) user declaration: a local function, not a loader.
        let local = ident
            .reference_id
            .get()
            .and_then(|id| scoping.get_reference(id).symbol_id())
            .is_some_and(|symbol| !scoping.symbol_flags(symbol).contains(SymbolFlags::Ambient));
        if !local {
            return Err(SourceError::ModuleAccess);
        }
    }
    Ok(())
}

/// Looks through wrappers that keep the callee's value: `(x)`, `(a, x)`, `x!`, `x as T`.
fn unwrap_callee<'b, 'a>(mut expr: &'b Expression<'a>) -> &'b Expression<'a> {
    loop {
        expr = match expr {
            Expression::ParenthesizedExpression(e) => &e.expression,
            Expression::SequenceExpression(e) => match e.expressions.last() {
                Some(last) => last,
                None => return expr,
            },
            Expression::TSAsExpression(e) => &e.expression,
            Expression::TSSatisfiesExpression(e) => &e.expression,
            Expression::TSNonNullExpression(e) => &e.expression,
            Expression::TSTypeAssertion(e) => &e.expression,
            Expression::TSInstantiationExpression(e) => &e.expression,
            _ => return expr,
        };
    }
}

/// The earliest recoverable diagnostic or top-level `export` statement.
pub(super) fn reject_recoverable(
    source: &str,
    parsed: &ParserReturn<'_>,
) -> Result<(), SourceError> {
    let export = parsed.program.body.iter().find_map(|statement| {
        let declaration = statement.as_module_declaration()?;
        (!matches!(declaration, ModuleDeclaration::ImportDeclaration(_)))
            .then(|| GetSpan::span(declaration).start)
    });
    let diagnostic = earliest(parsed.diagnostics.iter());
    let (offset, message) = match (diagnostic, export) {
        (Some((at, _)), Some(export_at)) if export_at < at => (export_at, EXPORT_MESSAGE.into()),
        (Some(found), _) => found,
        (None, Some(export_at)) => (export_at, EXPORT_MESSAGE.into()),
        (None, None) => return Ok(()),
    };
    Err(syntax_at(source, offset, &message))
}

/// The syntax error for the earliest of `diagnostics` (oxc lists lexer errors first).
pub(super) fn first_diagnostic<'d>(
    source: &str,
    diagnostics: impl Iterator<Item = &'d OxcDiagnostic>,
) -> SourceError {
    let (offset, message) = earliest(diagnostics).unwrap_or((0, "invalid source".into()));
    syntax_at(source, offset, &message)
}

fn earliest<'d>(diagnostics: impl Iterator<Item = &'d OxcDiagnostic>) -> Option<(u32, String)> {
    // oxc puts the error's own span first; later labels point elsewhere ("Opened here").
    let offset = |d: &OxcDiagnostic| d.labels.first().map_or(0, |label| label.offset());
    let diagnostic = diagnostics
        .filter(|d| d.severity == Severity::Error)
        .min_by_key(|d| offset(d))?;
    let mut message = diagnostic.message.trim_end_matches('.').to_owned();
    if let Some(help) = &diagnostic.help {
        message.push_str(" (");
        message.push_str(help.trim_end_matches('.'));
        message.push(')');
    }
    Some((offset(diagnostic), message))
}

/// A syntax error at byte `offset` of `source`, with a bounded single-line message.
pub(super) fn syntax_at(source: &str, offset: u32, message: &str) -> SourceError {
    let (line, column) = line_column(source, offset);
    SourceError::Syntax {
        line,
        column,
        message: bound(message, MAX_DIAGNOSTIC_BYTES),
    }
}

/// 1-based line and UTF-16 column of byte `offset` (clamped to the text).
pub(super) fn line_column(source: &str, offset: u32) -> (u32, u32) {
    let mut end = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(source.len());
    while !source.is_char_boundary(end) {
        end -= 1;
    }
    let (mut line, mut column, mut after_cr) = (1u32, 1u32, false);
    for ch in source[..end].chars() {
        match ch {
            // `\r\n` is one break: the `\r` already counted it.
            '\n' if after_cr => column = 1,
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => {
                line = line.saturating_add(1);
                column = 1;
            }
            _ => column = column.saturating_add(ch.len_utf16() as u32),
        }
        after_cr = ch == '\r';
    }
    (line, column)
}

/// One line of at most `max` bytes (control characters become spaces, cut on a char boundary).
pub(super) fn bound(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if flat.len() <= max {
        return flat;
    }
    let mut cut = max.saturating_sub('…'.len_utf8());
    while !flat.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &flat[..cut])
}

#[cfg(test)]
mod tests;
