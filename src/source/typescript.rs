//! TypeScript cells (docs/contract.md, Source front-end): oxc strips types into JavaScript
//! for the same async-function wrapper, with no type checking and no module resolution.
//! Pipeline and decorator helpers: docs/design.md, Source front-end.

use std::path::Path;
use std::sync::OnceLock;

use oxc::allocator::Allocator;
use oxc::ast::ast::{ImportDeclarationSpecifier, Program, Statement};
use oxc::codegen::{Codegen, CodegenOptions, CommentOptions};
use oxc::parser::ParserReturn;
use oxc::semantic::SemanticBuilder;
use oxc::transformer::{HelperLoaderMode, TransformOptions, Transformer};

use super::program::{self, Language, SourceError};

const HELPER_PREFIX: &str = "@oxc-project/runtime/helpers/";
const MAX_TRANSFORM_MESSAGE_BYTES: usize = 400;

/// Transforms a TypeScript cell body into JavaScript, after the same checks as a JavaScript
/// cell (module access, syntax, `export`).
pub fn transform_typescript(source: &str) -> Result<String, SourceError> {
    transform_typescript_mapped(source).map(|(code, _)| code)
}

/// Like [`transform_typescript`], plus the map from printed positions back to the
/// user's TypeScript (the printer reflows code, so lines move).
pub fn transform_typescript_mapped(source: &str) -> Result<(String, PositionMap), SourceError> {
    program::with_parsed(source, Language::TypeScript, |allocator, parsed| {
        transform_in(allocator, source, parsed)
    })
}

/// Printed (line, column) → original (line, column), from the printer's source map.
/// Positions are 1-based; columns count bytes of the printed line.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PositionMap {
    /// `(printed line, printed column, source line, source column)`, 0-based, sorted.
    tokens: Vec<(u32, u32, u32, u32)>,
}

impl PositionMap {
    pub fn original(&self, line: u32, column: u32) -> Option<(u32, u32)> {
        let (line, column) = (line.checked_sub(1)?, column.saturating_sub(1));
        let end = self
            .tokens
            .partition_point(|t| (t.0, t.1) <= (line, column));
        let token = self.tokens[..end]
            .last()
            .filter(|t| t.0 == line)
            .or_else(|| self.tokens[end..].first().filter(|t| t.0 == line))?;
        let shift = column.saturating_sub(token.1);
        Some((token.2 + 1, token.3 + shift + 1))
    }
}

fn transform_in<'a>(
    allocator: &'a Allocator,
    source: &str,
    parsed: ParserReturn<'a>,
) -> Result<(String, PositionMap), SourceError> {
    program::reject_module_syntax(&parsed)?;
    let needs_nodes = program::may_name_require(source);
    let built = SemanticBuilder::new()
        .with_enum_eval(true)
        .with_build_nodes(needs_nodes)
        .build(&parsed.program);
    if needs_nodes {
        program::reject_require_calls(&built.semantic)?;
    }
    program::reject_recoverable(source, &parsed)?;
    if built.diagnostics.has_errors() {
        return Err(program::first_diagnostic(source, built.diagnostics.iter()));
    }
    let scoping = built.semantic.into_scoping();
    let mut program = parsed.program;
    let returned = Transformer::new(allocator, Path::new("user.ts"), options())
        .build_with_scoping(scoping, &mut program);
    // oxc reports unsupported constructs (e.g. a namespace exporting `let`) as warnings while
    // emitting wrong code for them, so any transform diagnostic fails the cell.
    if !returned.diagnostics.is_empty() {
        let joined = returned
            .diagnostics
            .iter()
            .map(|d| {
                let message = d.message.trim_end_matches('.');
                match d.labels.first().map(|l| l.offset()) {
                    Some(offset) => {
                        let (line, column) = program::line_column(source, offset);
                        format!("{message} (user.ts:{line}:{column})")
                    }
                    None => message.to_owned(),
                }
            })
            .collect::<Vec<_>>()
            .join("; ");
        return Err(SourceError::Transform(program::bound(
            &joined,
            MAX_TRANSFORM_MESSAGE_BYTES,
        )));
    }
    let helpers = take_helper_imports(&mut program)?;
    let built = Codegen::new()
        .with_options(codegen_options())
        .build(&program);
    let mut tokens: Vec<(u32, u32, u32, u32)> = built
        .map
        .map(|map| {
            map.get_tokens()
                .map(|t| {
                    (
                        t.get_dst_line(),
                        t.get_dst_col(),
                        t.get_src_line(),
                        t.get_src_col(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    tokens.sort_unstable();
    let printed = built.code;
    // Appended so directives stay first; function declarations hoist to the top anyway.
    let code = if helpers.is_empty() {
        printed
    } else {
        printed + &helpers
    };
    Ok((code, PositionMap { tokens }))
}

/// Transform options, built once: TypeScript only (ES-next, no downlevelling), legacy
/// decorators without metadata.
fn options() -> &'static TransformOptions {
    static OPTIONS: OnceLock<TransformOptions> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut options = TransformOptions::default();
        options.decorator.legacy = true;
        options.decorator.emit_decorator_metadata = false;
        // Imports we can recognise and replace (the default `Runtime` mode today).
        options.helper_loader.mode = HelperLoaderMode::Runtime;
        options
    })
}

fn codegen_options() -> CodegenOptions {
    CodegenOptions {
        comments: CommentOptions::disabled(),
        source_map_path: Some(std::path::PathBuf::from("user.ts")),
        ..CodegenOptions::default()
    }
}

/// Removes the module statements the transformer may add (helper imports and the `export {}`
/// marker; the user's own were refused earlier) and returns the helper definitions to
/// append.
fn take_helper_imports(program: &mut Program<'_>) -> Result<String, SourceError> {
    let mut helpers = String::new();
    let mut unknown = None;
    program.body.retain(|statement| match statement {
        Statement::ImportDeclaration(import) => {
            let name = import
                .source
                .value
                .strip_prefix(HELPER_PREFIX)
                .unwrap_or("");
            let local = import
                .specifiers
                .as_ref()
                .and_then(|s| s.first())
                .and_then(|s| match s {
                    ImportDeclarationSpecifier::ImportDefaultSpecifier(d) => Some(d.local.name),
                    _ => None,
                });
            match (helper_body(name), local) {
                (Some(body), Some(local)) => {
                    helpers.push_str("\nfunction ");
                    helpers.push_str(local.as_str());
                    helpers.push_str(body);
                }
                _ => unknown = Some(import.source.value.to_string()),
            }
            false
        }
        Statement::ExportNamedDeclaration(export) => !export.specifiers.is_empty(),
        _ => true,
    });
    match unknown {
        Some(module) => Err(SourceError::Transform(program::bound(
            &format!("the transform needs the runtime helper `{module}`, which code mode does not provide"),
            MAX_TRANSFORM_MESSAGE_BYTES,
        ))),
        None => Ok(helpers),
    }
}

/// Parameter list and body of the helpers oxc's legacy decorator transform calls.
fn helper_body(name: &str) -> Option<&'static str> {
    match name {
        // (decorators, target, key?, descriptor?): class decorators get `(target)` and return
        // a replacement; member decorators get `(target, key, descriptor)` (with the current
        // descriptor when `null` was passed) and may return a new one, which is defined last.
        "decorate" => Some(
            "(decorators, target, key, descriptor) { \
             const member = arguments.length > 2; const described = arguments.length > 3; \
             let value = !member ? target : descriptor === null ? \
             (descriptor = Object.getOwnPropertyDescriptor(target, key)) : descriptor; \
             for (let i = decorators.length - 1; i >= 0; i--) { \
             const decorator = decorators[i]; if (!decorator) continue; \
             const next = !member ? decorator(value) : described ? \
             decorator(target, key, value) : decorator(target, key); \
             if (next) value = next; } \
             if (described && value) Object.defineProperty(target, key, value); \
             return value; }",
        ),
        // Parameter decorators: a member decorator that also receives the parameter index.
        "decorateParam" => Some(
            "(index, decorator) { return function (target, key) { decorator(target, key, index); }; }",
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
