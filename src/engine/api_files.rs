//! The guest's virtual `API` files (SPEC §4): `tools/<callable>.d.ts` declarations,
//! rendered from the catalog on read. Paths are validated before anything is looked up.

use crate::catalog::{tool_dts, tool_dts_path, Catalog, CatalogEntry};
use serde_json::{json, Value};

/// Normalises a guest path: trimmed, one leading `/` dropped, no empty/`.`/`..` segment.
pub fn normalize(path: &str) -> Result<String, String> {
    let trimmed = path.trim();
    let trimmed = trimmed.strip_prefix('/').unwrap_or(trimmed);
    if trimmed.is_empty()
        || trimmed
            .split('/')
            .any(|seg| seg.is_empty() || seg == "." || seg == "..")
    {
        return Err("invalid API file path".to_string());
    }
    Ok(trimmed.to_string())
}

fn description(entry: &CatalogEntry) -> String {
    let first_line = entry.description().lines().next().unwrap_or("");
    let text: String = first_line.chars().take(160).collect();
    if text.is_empty() {
        format!("Declaration of {}", entry.callable_name())
    } else {
        format!("Declaration of {}: {text}", entry.callable_name())
    }
}

fn file_json(path: String, entry: &CatalogEntry, with_content: bool) -> Value {
    let content = tool_dts(entry);
    let mut file =
        json!({ "path": path, "description": description(entry), "bytes": content.len() });
    if with_content {
        if let Some(map) = file.as_object_mut() {
            map.insert("content".into(), json!(content));
        }
    }
    file
}

/// Every file whose path starts with `prefix` (after normalising a leading `/`).
pub fn list(catalog: &Catalog, prefix: &str) -> Vec<Value> {
    let prefix = prefix.trim();
    let prefix = prefix.strip_prefix('/').unwrap_or(prefix);
    catalog
        .entries()
        .iter()
        .map(|entry| (tool_dts_path(entry), entry))
        .filter(|(path, _)| path.starts_with(prefix))
        .map(|(path, entry)| file_json(path, entry, false))
        .collect()
}

pub fn read(catalog: &Catalog, path: &str) -> Result<Value, String> {
    let path = normalize(path)?;
    let callable = path
        .strip_prefix("tools/")
        .and_then(|rest| rest.strip_suffix(".d.ts"))
        .ok_or_else(|| format!("Unknown API file: {path}"))?;
    let entry = catalog
        .by_callable_name(callable)
        .ok_or_else(|| format!("Unknown API file: {path}"))?;
    Ok(file_json(path.clone(), entry, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_segments_and_empty_paths_are_invalid() {
        for bad in [
            "",
            "  ",
            "/",
            "tools//x.d.ts",
            "tools/../x",
            "./tools/x.d.ts",
        ] {
            assert_eq!(
                normalize(bad),
                Err("invalid API file path".to_string()),
                "{bad:?}"
            );
        }
        assert_eq!(normalize(" /tools/a.d.ts "), Ok("tools/a.d.ts".to_string()));
    }
}
