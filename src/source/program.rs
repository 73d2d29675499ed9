//! Source front-end checks of a cell (docs/contract.md, Source front-end): it parses as the
//! body of an async function; module access and `export` are refused; positions are 1-based
//! UTF-16. Decisions (require resolution, error precedence): docs/design.md, Source front-end.

use std::cell::RefCell;

use oxc::allocator::Allocator;
use oxc::ast::ast::{Expression, ModuleDeclaration, Statement, TSModuleReference};
use oxc::ast::AstKind;
use oxc::diagnostics::{OxcDiagnostic, Severity};
use oxc::parser::{ParseOptions, Parser, ParserReturn};
use oxc::semantic::{Semantic, SemanticBuilder};
use oxc::span::{GetSpan, SourceType};
use oxc::syntax::symbol::SymbolFlags;

use super::{depth, typescript};

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

/// Validates a cell and returns the JavaScript to run.
pub fn prepare(source: &str, language: Language) -> Result<Prepared, SourceError> {
    match language {
        Language::TypeScript => typescript::transform_typescript_mapped(source)
            .map(|(js, map)| Prepared { js, map: Some(map) }),
        Language::JavaScript => {
            with_parsed(source, Language::JavaScript, |_, parsed| {
                reject_module_syntax(&parsed)?;
                if may_name_require(source) {
                    let built = SemanticBuilder::new()
                        .with_build_nodes(true)
                        .build(&parsed.program);
                    reject_require_calls(&built.semantic)?;
                }
                reject_recoverable(source, &parsed)
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

    /// Runs `work` on a thread with a small stack: the front-end must grow its own.
    fn on_small_stack<R: Send + 'static>(work: impl FnOnce() -> R + Send + 'static) -> R {
        let thread = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(work);
        thread.expect("spawn").join().expect("no panic")
    }

    const TOO_DEEP: &str =
        "nesting is too deep (simplify the expression or split it into statements)";

    #[test]
    fn deep_nesting_is_a_syntax_error_without_crashing() {
        let n = 120_000;
        let message =
            on_small_stack(move || js_error(&format!("{}1{}", "(".repeat(n), ")".repeat(n))));
        assert_eq!(message, syntax(1, depth::MAX_DEPTH as u32 - 1, TOO_DEEP));
        assert!(!on_small_stack(move || parses(
            &format!("{}1{}", "[".repeat(n), "]".repeat(n)),
            JS
        )));
    }

    #[test]
    fn sources_over_the_size_limit_are_refused_before_parsing() {
        let source = "x;".repeat(depth::MAX_SOURCE_BYTES / 2 + 1);
        let error = prepare(&source, JS).expect_err("too large");
        assert_eq!(
            error,
            SourceError::TooLarge {
                bytes: source.len(),
                limit: depth::MAX_SOURCE_BYTES
            }
        );
        assert!(error.message(JS).starts_with("code is too large: "));
        assert!(!parses(&source, Language::TypeScript));
    }

    #[test]
    fn the_costliest_shapes_at_the_size_limit_never_overflow_a_small_stack() {
        let fill = |unit: &str, tail: &str| {
            let room = depth::MAX_SOURCE_BYTES - 64;
            format!("{}{tail}", unit.repeat(room / unit.len()))
        };
        let cases = [
            fill("(", "1"),
            fill("[", "1"),
            fill("{a:", "1"),
            fill("f(", "1"),
            fill("`${", ""),
            fill("a=", "1"),
            fill("()=>", "1"),
            fill("{", ""),
            fill("function f(a=", ""),
            format!(
                "let a = 0;\nreturn a++ / {} / 1;",
                "(".repeat(100_000) + "1" + &")".repeat(100_000)
            ),
            format!("x.if(0) / {}1{}", "(".repeat(100_000), ")".repeat(100_000)),
        ];
        // Type arguments in a type: in an expression, a long `A<A<…` chain makes oxc's
        // TypeScript parser try type arguments at every `<`, which is slow, not deep.
        let ts_cases = [
            format!("type T = {}", fill("A<", "1")),
            fill("(", "1"),
            format!("type T = {{}}{}", " extends {} ? 1 : {}".repeat(12_000)),
        ];
        for source in cases {
            let refused = on_small_stack(move || {
                (
                    prepare(&source, JS).is_err(),
                    prepare(&source, Language::TypeScript).is_err(),
                )
            });
            assert_eq!(refused, (true, true));
        }
        for source in ts_cases {
            assert!(on_small_stack(move || prepare(
                &source,
                Language::TypeScript
            )
            .is_err()));
        }
    }

    #[test]
    fn nesting_just_under_the_limit_is_accepted_on_a_small_stack() {
        let n = depth::MAX_DEPTH / 2 - 10;
        let cases = [
            format!("{}X", "new ".repeat(n)),
            format!("a{}", ".b".repeat(n)),
            format!("x{}", "+x".repeat(n)),
            format!("{}1", "a=".repeat(n)),
            format!("{}1{}", "(".repeat(n), ")".repeat(n)),
            format!("{}{}", "(function(){".repeat(n / 4), "})".repeat(n / 4)),
            format!("{}1{}", "`${".repeat(n / 2), "}`".repeat(n / 2)),
        ];
        for source in cases {
            let (js, ts) = on_small_stack(move || {
                (
                    prepare(&source, JS).map(|_| ()),
                    prepare(&format!("{source} // require"), Language::TypeScript).map(|_| ()),
                )
            });
            assert_eq!(js, Ok(()));
            assert_eq!(ts, Ok(()));
        }
    }

    #[test]
    fn ordinary_long_code_is_not_refused_as_deep() {
        let array = format!("return [{}];", "1, ".repeat(50_000));
        let lines = "x = x + f(a.b[1]) * 2\nif (x) y = `${x}`\n".repeat(4_000);
        let loops =
            "for (let i = 0; i < n; i++) { if (a < b && c > d) total += i; }\n".repeat(3_000);
        for source in [array, lines, loops] {
            assert!(source.len() <= depth::MAX_SOURCE_BYTES);
            assert!(parses(&source, JS), "{}", &source[..40]);
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
