//! Source front-end for code mode cells (SPEC §3.1, §3.3, §3.4).
//!
//! A cell is the *body* of an async function, so it is parsed with oxc in the module goal
//! (top-level `await` is then an await expression, exactly as inside the async wrapper) and
//! with `allow_return_outside_function` (top-level `return`). Module syntax is refused:
//! `import` declarations, `import(...)`, `import.meta` and calls of the global `require`
//! give [`SourceError::ModuleAccess`]; `export` declarations give a syntax error, since they
//! would be one inside the wrapper.
//!
//! Decisions:
//! - `require` is refused only when it resolves to no user binding (or to an ambient
//!   `declare`d one): `const require = (x) => x; require("a")` is ordinary code that cannot
//!   reach a module loader. Callees are looked through parentheses, sequences ending in
//!   `require`, optional calls, TypeScript `as`/`!`/`satisfies`/`<T>` wrappers; `new
//!   require(..)` and tagged templates count as calls. Member calls never do.
//! - Error precedence: an unrecoverable parse (empty AST) is a syntax error; otherwise module
//!   access found in the recovered AST wins, then the earliest remaining diagnostic or
//!   `export` statement is reported.
//! - Positions are 1-based; columns count UTF-16 code units (as JavaScript strings and the
//!   TypeScript language service do), lines break at `\n`, `\r\n`, `\r`, U+2028 and U+2029.
//! - JavaScript cells never touch semantic analysis or the transformer, except that a source
//!   which could spell `require` (it contains `require` or a `\u` escape) gets a semantic
//!   pass to resolve that name; its diagnostics are left to the engine's own compile.
//! - Deep nesting is refused before parsing (see `nesting::guard_nesting`): oxc's parser,
//!   semantic pass, transformer and printer all recurse once per nesting level.

use std::cell::RefCell;

use oxc::allocator::Allocator;
use oxc::ast::ast::{Expression, ModuleDeclaration, Statement, TSModuleReference};
use oxc::ast::AstKind;
use oxc::diagnostics::{OxcDiagnostic, Severity};
use oxc::parser::{ParseOptions, Parser, ParserReturn};
use oxc::semantic::{Semantic, SemanticBuilder};
use oxc::span::{GetSpan, SourceType};
use oxc::syntax::symbol::SymbolFlags;

use super::typescript;
pub(crate) use nesting::guard_nesting;

const MODULE_ACCESS: &str = "code mode module access is disabled.";
const EXPORT_MESSAGE: &str =
    "export declarations are not allowed in a code mode cell; return the value instead";
/// Diagnostic text kept in a message: the fixed words around it stay well under 200 bytes,
/// so every full sentence is below 500 characters.
const MAX_DIAGNOSTIC_BYTES: usize = 300;
/// Arena capacity kept per thread between cells; a larger arena (after a huge input) is freed.
const ARENA_RETAIN_BYTES: usize = 4 << 20;

/// The cell's declared language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    JavaScript,
    TypeScript,
}

/// A cell that passed the front-end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// JavaScript to wrap and run: the user's text unchanged for JavaScript cells, the oxc
    /// transform output for TypeScript cells.
    pub js: String,
    /// TypeScript cells: printed positions back to the user's source.
    pub map: Option<typescript::PositionMap>,
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

/// Validates a cell and returns the JavaScript to run.
pub fn prepare(source: &str, language: Language) -> Result<Prepared, SourceError> {
    match language {
        Language::TypeScript => typescript::transform_typescript_mapped(source)
            .map(|(js, map)| Prepared { js, map: Some(map) }),
        Language::JavaScript => {
            guard_nesting(source)?;
            shielded(|| {
                with_arena(|allocator| {
                    let parsed = parse_cell(allocator, source, Language::JavaScript);
                    reject_unrecoverable(source, &parsed)?;
                    reject_module_syntax(&parsed)?;
                    if may_name_require(source) {
                        let built = SemanticBuilder::new()
                            .with_build_nodes(true)
                            .build(&parsed.program);
                        reject_require_calls(&built.semantic)?;
                    }
                    reject_recoverable(source, &parsed)
                })
            })?;
            Ok(Prepared {
                js: source.to_owned(),
                map: None,
            })
        }
    }
}

/// Cheap grammar check as a cell body: no policy (module syntax parses), no semantics.
pub fn parses(source: &str, language: Language) -> bool {
    if guard_nesting(source).is_err() {
        return false;
    }
    shielded(|| {
        with_arena(|allocator| {
            let parsed = parse_cell(allocator, source, language);
            Ok(!parsed.panicked && !parsed.diagnostics.has_errors())
        })
    })
    .unwrap_or(false)
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
pub(crate) fn may_name_require(source: &str) -> bool {
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

mod nesting {
    //! The pre-parse depth guard: refuses sources nested deeper than oxc can handle on an
    //! 8 MB stack, in linear time. Self-contained, so it can move to its own file.

    use super::{syntax_at, SourceError};

    /// Weight of one bracket level in the nesting estimate, relative to one operator token
    /// (a parenthesis costs oxc several times the stack of an operator chain link).
    const LEVEL_WEIGHT: u32 = 4;
    /// Largest nesting estimate accepted (about 750 nested brackets). Measured worst costs per
    /// unit through parse, semantic, transform and print: ~1.4 KB of stack in a debug build
    /// (`new new …`, `a.b.c…`), ~0.6 KB in release (`a = b = …`), so a source at the limit
    /// needs at most ~4 MB, half of an 8 MB thread stack (see the tests).
    pub(super) const MAX_NESTING: u32 = 3_000;

    /// Refuses sources whose nesting could exhaust the stack before oxc sees them.
    ///
    /// oxc recurses once per AST level and has no depth limit, so a linear pre-scan estimates
    /// the deepest AST path: each open bracket (`(`, `[`, `{`, `${`, and `<`, which may open
    /// type arguments) adds [`LEVEL_WEIGHT`], and each operator byte or prefix/control keyword
    /// adds one to the current level's chain (left-deep chains like `a+b+c` or `f()()` and
    /// right-deep ones like `!!x`, `a=b=c`, `if (a) if (b)` all nest the AST). A chain
    /// restarts where the grammar starts a sibling: after `,`, after `;` (unless `else`
    /// follows), and after a line break or a `}` when an identifier follows that cannot
    /// continue the expression. Strings, comments, template text and regular expressions
    /// (told from division by the previous token) are skipped. The estimate over-counts
    /// (e.g. `===` is three links), which only matters for absurd code.
    pub fn guard_nesting(source: &str) -> Result<(), SourceError> {
        match nesting_overflow(source.as_bytes(), MAX_NESTING) {
            Some(at) => Err(syntax_at(
                source,
                u32::try_from(at).unwrap_or(u32::MAX),
                "nesting is too deep (simplify the expression or split it into statements)",
            )),
            None => Ok(()),
        }
    }

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Prev {
        Operator,
        Operand,
        ControlClose,
    }

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Pending {
        None,
        Semicolon,
        Soft,
    }

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Open {
        Bracket,
        Control,
        Template,
        /// `<`: type arguments or a comparison; closed by `>` or by whatever ends its context.
        Angle,
    }

    /// Words that nest what follows them (prefix operators, statement heads, TS type operators).
    #[rustfmt::skip]
    fn is_operator_word(word: &[u8]) -> bool {
        matches!(word, b"typeof" | b"void" | b"delete" | b"await" | b"new" | b"yield" | b"if"
            | b"for" | b"while" | b"with" | b"do" | b"else" | b"in" | b"instanceof" | b"of"
            | b"keyof" | b"readonly" | b"infer" | b"unique" | b"asserts" | b"is" | b"extends"
            | b"return" | b"throw" | b"case" | b"as" | b"satisfies" | b"class" | b"namespace"
            | b"module")
    }

    /// Words that continue the expression before them across a line break or `}`.
    fn is_continuation_word(word: &[u8]) -> bool {
        matches!(
            word,
            b"else" | b"in" | b"instanceof" | b"as" | b"satisfies" | b"of"
        )
    }

    /// The scan state: open levels with the chain each interrupted, the current chain, and
    /// `outer` = the sum over open levels of (their chain + [`LEVEL_WEIGHT`]).
    #[derive(Default)]
    struct Nesting {
        levels: Vec<(Open, u32)>,
        chain: u32,
        outer: u32,
    }

    impl Nesting {
        fn open(&mut self, kind: Open) {
            self.levels.push((kind, self.chain));
            self.outer += self.chain + LEVEL_WEIGHT;
            self.chain = 0;
        }

        /// Closes the innermost level (a finished group is one more link of the outer chain).
        fn close(&mut self) -> Option<Open> {
            let (kind, chain) = self.levels.pop()?;
            self.outer -= chain + LEVEL_WEIGHT;
            self.chain = chain + 1;
            Some(kind)
        }

        /// Closes `<` levels left open by comparisons when their context ends.
        fn close_angles(&mut self) {
            while matches!(self.levels.last(), Some((Open::Angle, _))) {
                self.close();
            }
        }

        fn depth(&self) -> u32 {
            self.outer.saturating_add(self.chain)
        }
    }

    /// Byte offset where the nesting estimate first exceeds `limit`, if it does.
    fn nesting_overflow(bytes: &[u8], limit: u32) -> Option<usize> {
        let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
        let is_word =
            |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'\\') || b >= 0x80;
        let mut nest = Nesting::default();
        let (mut prev, mut pending) = (Prev::Operator, Pending::None);
        // After `if`/`for`/`while`/`with` (the next `(` is a condition); inside a namespace name.
        let (mut control_next, mut namespace_name) = (false, false);
        let mut i = 0;
        while i < bytes.len() {
            let (start, b) = (i, at(i));
            match b {
                b'\n' | b'\r' => {
                    if prev == Prev::Operand && pending == Pending::None {
                        pending = Pending::Soft;
                    }
                    i += 1;
                    continue;
                }
                b' ' | b'\t' | 0x0b | 0x0c => {
                    i += 1;
                    continue;
                }
                b'/' if at(i + 1) == b'/' => {
                    while i < bytes.len() && !matches!(at(i), b'\n' | b'\r') {
                        i += 1;
                    }
                    continue;
                }
                b'/' if at(i + 1) == b'*' => {
                    let end = find(bytes, i + 2, b"*/").map_or(bytes.len(), |e| e + 2);
                    let breaks = bytes[i..end].iter().any(|c| matches!(c, b'\n' | b'\r'));
                    if prev == Prev::Operand && breaks && pending == Pending::None {
                        pending = Pending::Soft;
                    }
                    i = end;
                    continue;
                }
                _ => {}
            }
            // A token starts here.
            let mut word_end = i;
            while word_end < bytes.len() && is_word(at(word_end)) {
                word_end += 1;
            }
            let word = &bytes[i..word_end];
            let restart = match pending {
                Pending::None => false,
                Pending::Semicolon => word != b"else",
                Pending::Soft => {
                    (!word.is_empty() && !is_continuation_word(word)) || matches!(b, b'"' | b'\'')
                }
            };
            pending = Pending::None;
            if restart {
                nest.close_angles();
                nest.chain = 0;
            }
            let was_control = std::mem::take(&mut control_next);
            let prev_is_operand = prev == Prev::Operand;
            if !word.is_empty() {
                i = word_end;
                if is_operator_word(word) {
                    nest.chain += 1;
                    prev = Prev::Operator;
                    control_next = matches!(word, b"if" | b"for" | b"while" | b"with")
                        || (was_control && word == b"await");
                    namespace_name |= matches!(word, b"namespace" | b"module");
                } else {
                    prev = Prev::Operand;
                }
            } else {
                i += 1;
                prev = Prev::Operator;
                match b {
                    b'"' | b'\'' => {
                        while i < bytes.len() && at(i) != b && !matches!(at(i), b'\n' | b'\r') {
                            i += if at(i) == b'\\' { 2 } else { 1 };
                        }
                        i += 1;
                        prev = Prev::Operand;
                    }
                    b'`' => {
                        let (next, opened) = template_text(bytes, i);
                        i = next;
                        if opened {
                            nest.open(Open::Template);
                        } else {
                            prev = Prev::Operand;
                        }
                    }
                    b'/' if prev_is_operand => nest.chain += 1,
                    b'/' => {
                        let mut in_class = false;
                        while i < bytes.len() && !matches!(at(i), b'\n' | b'\r') {
                            match at(i) {
                                b'\\' => i += 1,
                                b'[' => in_class = true,
                                b']' => in_class = false,
                                b'/' if !in_class => break,
                                _ => {}
                            }
                            i += 1;
                        }
                        i += 1;
                        while i < bytes.len() && is_word(at(i)) {
                            i += 1;
                        }
                        prev = Prev::Operand;
                    }
                    b'(' if was_control => nest.open(Open::Control),
                    b'(' | b'[' | b'{' => {
                        namespace_name = false;
                        nest.open(Open::Bracket);
                    }
                    b'<' => nest.open(Open::Angle),
                    b'>' if matches!(nest.levels.last(), Some((Open::Angle, _))) => {
                        nest.close();
                    }
                    b')' | b']' | b'}' => {
                        nest.close_angles();
                        match nest.close() {
                            Some(Open::Template) => {
                                let (next, opened) = template_text(bytes, i);
                                i = next;
                                if opened {
                                    nest.open(Open::Template);
                                } else {
                                    prev = Prev::Operand;
                                }
                            }
                            Some(Open::Control) => prev = Prev::ControlClose,
                            _ => {
                                prev = Prev::Operand;
                                if b == b'}' {
                                    pending = Pending::Soft;
                                }
                            }
                        }
                    }
                    b';' => {
                        pending = Pending::Semicolon;
                        namespace_name = false;
                    }
                    b',' => nest.chain = 0,
                    // Each segment of `namespace A.B.C` nests a whole namespace in the transform.
                    b'.' if namespace_name => nest.chain += LEVEL_WEIGHT + 1,
                    _ => nest.chain += 1,
                }
            }
            if nest.depth() > limit {
                return Some(start);
            }
        }
        None
    }
    /// Skips template text from `i`; returns the position after the closing backtick, or after
    /// `${` with `true` when a substitution opens.
    fn template_text(bytes: &[u8], mut i: usize) -> (usize, bool) {
        while let Some(&b) = bytes.get(i) {
            match b {
                b'\\' => i += 2,
                b'`' => return (i + 1, false),
                b'$' if bytes.get(i + 1) == Some(&b'{') => return (i + 2, true),
                _ => i += 1,
            }
        }
        (bytes.len(), false)
    }

    fn find(haystack: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
        haystack
            .get(from..)?
            .windows(needle.len())
            .position(|w| w == needle)
            .map(|p| p + from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JS: Language = Language::JavaScript;

    fn js_error(source: &str) -> String {
        match prepare(source, JS) {
            Ok(_) => "ok".to_owned(),
            Err(error) => error.message(JS),
        }
    }

    fn syntax(line: u32, column: u32, message: &str) -> String {
        SourceError::Syntax {
            line,
            column,
            message: message.to_owned(),
        }
        .message(JS)
    }

    /// Runs `work` on a thread with an 8 MB stack, like the engine's workers.
    fn on_8mb_stack<R: Send + 'static>(work: impl FnOnce() -> R + Send + 'static) -> R {
        let thread = std::thread::Builder::new().stack_size(8 << 20).spawn(work);
        thread.expect("spawn").join().expect("no panic")
    }

    #[test]
    fn import_declarations_are_module_access() {
        for source in [
            "import fs from 'fs';",
            "import { a } from 'a'",
            "import * as a from 'a'",
            "import 'x'",
        ] {
            assert_eq!(js_error(source), MODULE_ACCESS, "{source}");
        }
    }

    #[test]
    fn dynamic_import_and_import_meta_are_module_access() {
        for source in [
            "await import('fs')",
            "function f() { return import(x); }",
            "return import.meta.url",
        ] {
            assert_eq!(js_error(source), MODULE_ACCESS, "{source}");
        }
    }

    #[test]
    fn every_require_callee_form_is_module_access() {
        let forms = [
            "require('fs')",
            "require?.('fs')",
            "(require)('fs')",
            "(0, require)('fs')",
            "r\\u0065quire('fs')",
            "\\u{72}equire('fs')",
            "new require('fs')",
            "require`fs`",
            "const f = () => { return require('child_process'); };",
        ];
        for source in forms {
            assert_eq!(js_error(source), MODULE_ACCESS, "{source}");
        }
    }

    #[test]
    fn module_words_outside_code_are_fine() {
        let fine = [
            "return 'require(\"fs\") and import(\"x\")';",
            "return `import ${'require'}(x)`;",
            "// require('fs')\n/* import('x') */ return 1;",
            "return /require\\(|import\\(/.test(x);",
        ];
        for source in fine {
            assert_eq!(js_error(source), "ok", "{source}");
        }
    }

    #[test]
    fn member_calls_named_import_or_require_are_fine() {
        for source in [
            "api.import(x)",
            "obj.require(x)",
            "api['require'](x)",
            "require.resolve",
        ] {
            assert_eq!(js_error(source), "ok", "{source}");
        }
    }

    #[test]
    fn a_locally_declared_require_is_fine() {
        let local = "const require = (name) => name; return require('a');";
        assert_eq!(js_error(local), "ok");
        assert_eq!(
            js_error("function f(require) { return require('x'); }"),
            "ok"
        );
    }

    #[test]
    fn module_access_wins_over_a_recoverable_syntax_error() {
        assert_eq!(js_error("const a;\nrequire('fs');"), MODULE_ACCESS);
    }

    #[test]
    fn an_unrecoverable_parse_is_reported_before_module_access() {
        assert_eq!(
            js_error("1 = 2; require('x')"),
            syntax(1, 1, "Cannot assign to this expression")
        );
    }

    #[test]
    fn top_level_return_and_await_are_accepted() {
        assert_eq!(js_error("return 1"), "ok");
        assert_eq!(
            js_error("const v = await x;\nfor await (const y of z) {}\nreturn v;"),
            "ok"
        );
    }

    #[test]
    fn javascript_cells_are_returned_byte_identical() {
        let source = "// keep\r\nconst a = 1 ;\t\treturn  a /* c */;\u{2028}";
        assert_eq!(prepare(source, JS).map(|p| p.js), Ok(source.to_owned()));
    }

    #[test]
    fn a_syntax_error_on_line_one_has_the_exact_sentence() {
        assert_eq!(
            js_error("foo(;"),
            "SyntaxError at user.js:1:5: Unexpected token. No tools were dispatched; correct the source and submit it again."
        );
    }

    #[test]
    fn a_syntax_error_on_line_three_is_user_relative() {
        assert_eq!(
            js_error("const x = 1;\nconst y = 2;\nconst = ;"),
            syntax(3, 7, "Unexpected token")
        );
    }

    #[test]
    fn columns_after_non_ascii_text_count_utf16_units() {
        assert_eq!(
            js_error("const s = 'héllo';\nconst t = '😀'; x +* 2"),
            syntax(2, 20, "Unexpected token")
        );
    }

    #[test]
    fn crlf_is_one_line_break() {
        assert_eq!(line_column("a\r\nb\rc\u{2028}d\ne", 11), (5, 1));
    }

    #[test]
    fn export_is_a_syntax_error_at_its_statement() {
        assert_eq!(
            js_error("export const answer = 7;"),
            syntax(1, 1, EXPORT_MESSAGE)
        );
        assert_eq!(
            js_error("const a = 1;\n  export { a };"),
            syntax(2, 3, EXPORT_MESSAGE)
        );
    }

    #[test]
    fn the_earliest_diagnostic_is_reported() {
        // oxc lists lexer errors (the bad escape) before parser errors (the const).
        assert_eq!(
            js_error("const a;\nx = '\\u{zz}';"),
            syntax(1, 7, "Missing initializer in const declaration (Add an initializer (e.g. ` = undefined`) here)")
        );
    }

    #[test]
    fn long_diagnostics_stay_below_500_characters() {
        let error = syntax_at("x", 0, &"very long diagnostic\n".repeat(200));
        let message = error.message(Language::TypeScript);
        assert!(message.chars().count() < 500, "{}", message.len());
        assert!(message.ends_with("submit it again.") && !message.contains('\n'));
    }

    #[test]
    fn parses_checks_grammar_only() {
        assert!(parses("export const answer = 7;", JS));
        assert!(parses("return await x", JS));
        assert!(!parses("for f in *; do echo \"$f\"; done", JS));
        assert!(parses("let x: number = 1", Language::TypeScript));
        assert!(!parses("let x: number = 1", JS));
    }

    #[test]
    fn deep_nesting_is_a_syntax_error_without_crashing() {
        let message = on_8mb_stack(|| js_error(&"(".repeat(100_000)));
        assert_eq!(
            message,
            syntax(
                1,
                751,
                "nesting is too deep (simplify the expression or split it into statements)"
            )
        );
        assert!(!on_8mb_stack(|| parses(&"[".repeat(100_000), JS)));
    }

    #[test]
    fn nesting_just_under_the_limit_runs_on_an_8mb_stack() {
        // The costliest constructs per unit of the estimate (measured), just under the limit.
        let n = nesting::MAX_NESTING as usize;
        let cases = [
            format!("{}X", "new ".repeat(n)),
            format!("a{}", ".b".repeat(n)),
            format!("x{}", "+x".repeat(n)),
            format!("{}1", "a=".repeat(n)),
            format!("{}1{}", "(".repeat(n / 4), ")".repeat(n / 4)),
            format!("{}{}", "(function(){".repeat(n / 9), "})".repeat(n / 9)),
            format!("{}1{}", "`${".repeat(n / 4), "}`".repeat(n / 4)),
        ];
        for source in cases {
            let (js, ts) = on_8mb_stack(move || {
                (
                    prepare(&source, JS).is_ok(),
                    prepare(&format!("{source} // require"), Language::TypeScript).is_ok(),
                )
            });
            assert!(js && ts);
        }
    }

    #[test]
    fn ordinary_long_code_is_not_refused_as_deep() {
        let array = format!("return [{}];", "1, ".repeat(50_000));
        let lines = "x = x + f(a.b[1]) * 2\nif (x) y = `${x}`\n".repeat(5_000);
        let loops =
            "for (let i = 0; i < n; i++) { if (a < b && c > d) total += i; }\n".repeat(5_000);
        for source in [array, lines, loops] {
            assert_eq!(guard_nesting(&source), Ok(()));
        }
    }

    #[test]
    fn garbage_input_never_panics() {
        let mut state = 0x2545_f491_u32;
        for round in 0..300 {
            let bytes: Vec<u8> = (0..round * 7)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    b"({[`'\"/\\*]})$<>=!?:;,.\n\r ax19\xc3\xa9\xff"[(state % 32) as usize]
                })
                .collect();
            let source = String::from_utf8_lossy(&bytes);
            for language in [JS, Language::TypeScript] {
                let _ = prepare(&source, language);
                let _ = parses(&source, language);
            }
        }
    }
}
