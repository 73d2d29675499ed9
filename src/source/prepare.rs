//! The front-end's entry: a cell's source checked for its language and turned into the
//! JavaScript a VM runs (TypeScript through the transform, with its position map).

use super::program::{
    may_name_require, reject_module_syntax, reject_recoverable, reject_require_calls, with_parsed,
    Language, SourceError,
};
use super::typescript;
use oxc::semantic::SemanticBuilder;

/// A cell that passed the front-end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// JavaScript to wrap and run: the user's text unchanged for JavaScript cells, the oxc
    /// transform output for TypeScript cells.
    pub js: String,
    /// TypeScript cells: printed positions back to the user's source.
    pub map: Option<typescript::PositionMap>,
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
