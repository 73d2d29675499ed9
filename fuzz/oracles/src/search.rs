//! `catalog.search` over a fuzzed catalog (docs/contract.md, Catalog and search): no panic,
//! distinct entries, at most `limit`, deterministic, a shorter limit gives a prefix of a
//! longer one, and a query that is exactly a tool or callable name returns just that tool.

use serde_json::json;

use crate::bytes::Bytes;
use codemode_native::catalog::{Catalog, Source, ToolSpec};

const WORDS: [&str; 24] = [
    "send",
    "email",
    "Email",
    "read",
    "file",
    "files",
    "the",
    "a",
    "_",
    "-",
    " ",
    "  ",
    "sendEmail",
    "send_email",
    "READ",
    "é",
    "İ",
    "ß",
    "1",
    "delete",
    "class",
    "$",
    "\t",
    "?",
];

pub fn check_search(data: &[u8]) {
    let mut b = Bytes::new(data);
    let mut tools: Vec<ToolSpec> = (0..b.below(10)).map(|_| spec(&mut b)).collect();
    let appended: Vec<ToolSpec> = (0..b.below(3)).map(|_| spec(&mut b)).collect();
    let mut catalog = Catalog::build(std::mem::take(&mut tools), &[]);
    if !appended.is_empty() {
        catalog.append(appended);
    }
    let queries = b.below(4) + 1;
    for _ in 0..queries {
        let query = if b.bool() && !catalog.is_empty() {
            // An exact name, maybe in another case.
            let entry = &catalog.entries()[b.below(catalog.len())];
            let name = if b.bool() {
                entry.tool_name()
            } else {
                entry.callable_name()
            };
            match b.u8() % 3 {
                0 => name.to_uppercase(),
                1 => name.to_lowercase(),
                _ => name.to_owned(),
            }
        } else {
            b.string(8, &WORDS)
        };
        let limit = b.below(12);
        check_query(&catalog, &query, limit);
    }
}

fn check_query(catalog: &Catalog, query: &str, limit: usize) {
    let found = catalog.search(query, limit);
    assert!(
        found.len() <= limit,
        "{} results over limit {limit}",
        found.len()
    );
    let mut seen = std::collections::HashSet::new();
    for &i in &found {
        assert!(i < catalog.len(), "result {i} is not in the catalog");
        assert!(seen.insert(i), "result {i} repeated");
    }
    assert_eq!(
        found,
        catalog.search(query, limit),
        "search is not deterministic"
    );
    if limit == 0 {
        return;
    }
    let wanted = query.to_lowercase();
    let exact: Vec<usize> = (0..catalog.len())
        .filter(|&i| {
            let e = &catalog.entries()[i];
            e.tool_name().to_lowercase() == wanted || e.callable_name().to_lowercase() == wanted
        })
        .collect();
    if !exact.is_empty() {
        assert!(
            found.len() == 1 && exact.contains(&found[0]),
            "exact name {query:?} gave {found:?}, not one of {exact:?}"
        );
        return;
    }
    let longer = catalog.search(query, limit + 5);
    assert!(
        longer.starts_with(&found),
        "limit {limit} is not a prefix of a longer search"
    );
}

fn spec(b: &mut Bytes<'_>) -> ToolSpec {
    let mut spec = ToolSpec {
        name: b.string(4, &WORDS),
        description: b.string(12, &WORDS),
        label: b.bool().then(|| b.string(3, &WORDS)),
        source: if b.bool() {
            Source::Client
        } else {
            Source::Core
        },
        direct_only: b.u8().is_multiple_of(8),
        ..ToolSpec::default()
    };
    if b.bool() {
        let prop = b.string(3, &WORDS);
        let doc = b.string(6, &WORDS);
        spec.parameters = Some(json!({
            "type": "object",
            "properties": { prop: { "type": "string", "description": doc } },
        }));
    }
    spec
}
