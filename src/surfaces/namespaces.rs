//! Namespace definitions as the glue read them, judged here once: shape, size, names and
//! path segments. Every message names the offending path (`namespaces[0].globalName`).

use crate::catalog::reserved_kind;
use crate::limits::{MAX_NAMESPACE_DEPTH, MAX_NAMESPACE_LEAVES};
use crate::mcp::check_segment;
use serde::Deserialize;

/// One namespace as the glue read it: a field that was not a string is null, and so is
/// a `scope` that was not an object (the glue walks a scope only to collect its functions).
#[derive(Deserialize, Default, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceRead {
    pub global_name: Option<String>,
    #[serde(default = "empty_text")]
    pub description: Option<String>,
    #[serde(default = "empty_text")]
    pub prompt: Option<String>,
    pub leaves: Option<Vec<LeafJson>>,
    /// Where the glue stopped walking: an object nested deeper than the limit.
    pub too_deep: Option<String>,
}

fn empty_text() -> Option<String> {
    Some(String::new())
}

/// A namespace that passed every check.
#[derive(Default, Clone, Debug)]
pub struct NamespaceJson {
    pub global_name: String,
    pub description: String,
    pub prompt: String,
    pub leaves: Vec<LeafJson>,
}

#[derive(Deserialize, Default, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct LeafJson {
    pub path: Vec<String>,
    pub host_index: usize,
}

fn identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Validates the `namespaces` option: `None` when it was not an array, `None` entries
/// where an entry was not an object.
pub fn validate(list: Option<Vec<Option<NamespaceRead>>>) -> Result<Vec<NamespaceJson>, String> {
    let Some(list) = list else {
        return Err("namespaces must be an array of namespace definitions.".into());
    };
    let mut valid: Vec<NamespaceJson> = Vec::with_capacity(list.len());
    for (i, read) in list.into_iter().enumerate() {
        let namespace = validate_one(i, read)?;
        if valid.iter().any(|n| n.global_name == namespace.global_name) {
            return Err(format!(
                "namespaces[{i}].globalName \"{}\" is used by more than one namespace.",
                namespace.global_name
            ));
        }
        for leaf in &namespace.leaves {
            for segment in &leaf.path {
                check_segment(segment)?;
            }
        }
        valid.push(namespace);
    }
    Ok(valid)
}

fn validate_one(i: usize, read: Option<NamespaceRead>) -> Result<NamespaceJson, String> {
    let at = format!("namespaces[{i}]");
    let read = read.ok_or_else(|| format!("{at} must be an object."))?;
    let name = read
        .global_name
        .ok_or_else(|| format!("{at}.globalName must be a string."))?;
    let leaves = read
        .leaves
        .ok_or_else(|| format!("{at}.scope must be an object whose leaves are functions."))?;
    if let Some(path) = read.too_deep {
        return Err(format!(
            "{path} is nested more than {MAX_NAMESPACE_DEPTH} levels deep."
        ));
    }
    if leaves.len() > MAX_NAMESPACE_LEAVES as usize {
        return Err(format!(
            "{at}.scope has more than {MAX_NAMESPACE_LEAVES} functions."
        ));
    }
    let text = |value: Option<String>, field: &str| {
        value.ok_or_else(|| format!("{at}.{field} must be a string."))
    };
    let description = text(read.description, "description")?;
    let prompt = text(read.prompt, "prompt")?;
    let named = format!("{at}.globalName \"{name}\"");
    if !identifier(&name) {
        return Err(format!("{named} must be a JavaScript identifier."));
    }
    if let Some(kind) = reserved_kind(&name) {
        return Err(format!("{named} is {kind} and cannot be a namespace."));
    }
    Ok(NamespaceJson {
        global_name: name,
        description,
        prompt,
        leaves,
    })
}

#[cfg(test)]
mod tests;
