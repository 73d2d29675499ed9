//! `catalog.search`: BM25 (k1 1.2, b 0.75) over each tool's name, label, description and,
//! for trusted tools, schema property names and descriptions. Built once per catalog
//! (interned terms, posting lists); a query touches only the postings of its terms.

use std::collections::HashMap;

use serde_json::Value;

use super::tokenize::for_each_token;
use super::{CatalogEntry, Source};

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Field weights as term-frequency multipliers: a word in the name says more about a
/// tool than the same word in its prose.
const NAME_WEIGHT: f32 = 3.0;
const LABEL_WEIGHT: f32 = 2.0;
const TEXT_WEIGHT: f32 = 1.0;
/// Indexing bounds so a hostile description or schema cannot make building slow.
const MAX_FIELD_BYTES: usize = 4096;
const MAX_PROP_DOC_BYTES: usize = 512;
const MAX_SCHEMA_PROPS: usize = 64;
const MAX_SCHEMA_DEPTH: usize = 4;

#[derive(Clone, Debug, Default)]
pub struct SearchIndex {
    terms: HashMap<String, u32>,
    /// Per term: (document, weighted term frequency).
    postings: Vec<Vec<(u32, f32)>>,
    doc_len: Vec<f32>,
    avg_len: f64,
    /// Lower-cased tool and callable names → documents, for the exact-name shortcut.
    exact: HashMap<String, Vec<u32>>,
    tool_names: Vec<String>,
    callable_names: Vec<String>,
    /// Position of each document in callable-name order: the tie-breaker.
    name_rank: Vec<u32>,
}

impl SearchIndex {
    pub fn build(entries: &[CatalogEntry]) -> SearchIndex {
        let mut index = SearchIndex::default();
        let mut freqs: Vec<(u32, f32)> = Vec::new();
        for (doc, entry) in entries.iter().enumerate() {
            freqs.clear();
            index.add_text(entry.tool_name(), NAME_WEIGHT, &mut freqs);
            if let Some(label) = entry.label() {
                index.add_text(label, LABEL_WEIGHT, &mut freqs);
            }
            index.add_text(entry.description(), TEXT_WEIGHT, &mut freqs);
            // Client schemas are untrusted prose: they must not pull a tool up the ranking.
            if entry.source() == Source::Core {
                let mut budget = MAX_SCHEMA_PROPS;
                for schema in [entry.parameters(), entry.output_schema()]
                    .into_iter()
                    .flatten()
                {
                    schema_words(schema, 0, &mut budget, &mut |text| {
                        index.add_text(text, TEXT_WEIGHT, &mut freqs)
                    });
                }
            }
            index.add_document(doc as u32, &mut freqs);
            for name in [entry.tool_name(), entry.callable_name()] {
                let docs = index.exact.entry(name.to_lowercase()).or_default();
                if docs.last() != Some(&(doc as u32)) {
                    docs.push(doc as u32);
                }
            }
            index.tool_names.push(entry.tool_name().to_owned());
            index.callable_names.push(entry.callable_name().to_owned());
        }
        let total: f64 = index.doc_len.iter().map(|&l| f64::from(l)).sum();
        index.avg_len = total / (entries.len().max(1) as f64);
        let mut by_name: Vec<u32> = (0..entries.len() as u32).collect();
        by_name.sort_by(|&a, &b| {
            index.callable_names[a as usize].cmp(&index.callable_names[b as usize])
        });
        index.name_rank = vec![0; entries.len()];
        for (rank, doc) in by_name.into_iter().enumerate() {
            index.name_rank[doc as usize] = rank as u32;
        }
        index
    }

    fn add_text(&mut self, text: &str, weight: f32, freqs: &mut Vec<(u32, f32)>) {
        for_each_token(prefix(text, MAX_FIELD_BYTES), |token| {
            let id = match self.terms.get(token) {
                Some(&id) => id,
                None => {
                    let id = self.postings.len() as u32;
                    self.terms.insert(token.to_owned(), id);
                    self.postings.push(Vec::new());
                    id
                }
            };
            freqs.push((id, weight));
        });
    }

    fn add_document(&mut self, doc: u32, freqs: &mut [(u32, f32)]) {
        freqs.sort_unstable_by_key(|&(id, _)| id);
        let mut len = 0.0;
        let mut i = 0;
        while i < freqs.len() {
            let id = freqs[i].0;
            let mut tf = 0.0;
            while i < freqs.len() && freqs[i].0 == id {
                tf += freqs[i].1;
                i += 1;
            }
            len += tf;
            self.postings[id as usize].push((doc, tf));
        }
        self.doc_len.push(len);
    }

    /// Entry indexes, best first, at most `limit`. A query equal (ignoring case and
    /// surrounding space) to a tool or callable name returns just that tool; a query
    /// with no indexed words (only stop words, unknown words) returns nothing.
    pub fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        if limit == 0 {
            return Vec::new();
        }
        // The untrimmed query first: a host tool name may itself start or end in spaces.
        let exact = self
            .exact_match(query)
            .or_else(|| self.exact_match(query.trim()));
        if let Some(doc) = exact {
            return vec![doc];
        }
        let query = query.trim();
        let mut ids: Vec<u32> = Vec::new();
        for_each_token(prefix(query, MAX_FIELD_BYTES), |token| {
            if let Some(&id) = self.terms.get(token) {
                ids.push(id);
            }
        });
        ids.sort_unstable();
        ids.dedup();
        let n = self.doc_len.len() as f64;
        let mut scores = vec![0.0f64; self.doc_len.len()];
        let mut hits: Vec<u32> = Vec::new();
        for id in ids {
            let postings = &self.postings[id as usize];
            let df = postings.len() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &(doc, tf) in postings {
                let tf = f64::from(tf);
                let norm = 1.0 - B + B * f64::from(self.doc_len[doc as usize]) / self.avg_len;
                let slot = &mut scores[doc as usize];
                if *slot == 0.0 {
                    hits.push(doc);
                }
                *slot += idf * tf * (K1 + 1.0) / (tf + K1 * norm);
            }
        }
        hits.sort_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            scores[b]
                .total_cmp(&scores[a])
                .then(self.name_rank[a].cmp(&self.name_rank[b]))
        });
        hits.into_iter().take(limit).map(|d| d as usize).collect()
    }

    /// Prefers a case-sensitive hit (callable name, then tool name), then the first
    /// case-insensitive one in callable-name order.
    fn exact_match(&self, query: &str) -> Option<usize> {
        let docs: Vec<usize> = self
            .exact
            .get(&query.to_lowercase())?
            .iter()
            .map(|&d| d as usize)
            .collect();
        let find = |names: &[String]| docs.iter().copied().find(|&d| names[d] == query);
        find(&self.callable_names)
            .or_else(|| find(&self.tool_names))
            .or_else(|| docs.iter().copied().min_by_key(|&d| self.name_rank[d]))
    }
}

/// Property names and their descriptions, depth-first, bounded in depth and count.
fn schema_words(schema: &Value, depth: usize, budget: &mut usize, add: &mut dyn FnMut(&str)) {
    let Value::Object(m) = schema else {
        return;
    };
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    if let Some(Value::Object(props)) = m.get("properties") {
        for (name, prop) in props {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            add(name);
            if let Some(doc) = prop.get("description").and_then(Value::as_str) {
                add(prefix(doc, MAX_PROP_DOC_BYTES));
            }
            schema_words(prop, depth + 1, budget, add);
        }
    }
    if let Some(items) = m.get("items") {
        schema_words(items, depth + 1, budget, add);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(members)) = m.get(key) {
            for member in members {
                schema_words(member, depth + 1, budget, add);
            }
        }
    }
}

/// At most `max` bytes of `text`, cut on a char boundary.
fn prefix(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {

    use serde_json::json;

    use super::super::test_support::{client, generated, tool};
    use super::super::{Catalog, ToolSpec};

    fn catalog(tools: Vec<ToolSpec>) -> Catalog {
        Catalog::build(tools, &[])
    }

    fn names(c: &Catalog, hits: Vec<usize>) -> Vec<String> {
        hits.into_iter()
            .filter_map(|i| c.get(i).map(|e| e.callable_name().to_owned()))
            .collect()
    }

    #[test]
    fn a_tool_name_with_surrounding_spaces_is_an_exact_match() {
        // Found by the search fuzzer: the query was trimmed before the exact-name lookup.
        let c = catalog(vec![tool("- "), tool("other")]);
        assert_eq!(c.search("- ", 5), vec![0]);
        assert_eq!(c.search(" other ", 5), vec![1]);
    }

    #[test]
    fn send_email_ranks_the_email_sender_first() {
        let c = catalog(generated(200));
        let top = names(&c, c.search("send email", 5));
        assert_eq!(top[0], "send_email");
        assert!(top[1..]
            .iter()
            .all(|n| n.contains("send") || n.contains("email")));
    }

    #[test]
    fn inflected_and_camel_case_queries_find_the_same_tool() {
        let c = catalog(generated(200));
        assert_eq!(names(&c, c.search("sending emails", 1)), ["send_email"]);
        assert_eq!(names(&c, c.search("sendEmail", 1)), ["send_email"]);
    }

    #[test]
    fn description_words_rank_tools() {
        let c = catalog(generated(200));
        let top = names(&c, c.search("permanently remove invoices", 3));
        assert_eq!(top[0], "delete_invoice");
    }

    #[test]
    fn an_exact_tool_or_callable_name_returns_just_that_tool() {
        let c = catalog(vec![
            tool("llm-task"),
            tool("llm_task_runner"),
            tool("task"),
        ]);
        assert_eq!(names(&c, c.search("LLM-TASK", 10)), ["llm_task"]);
        assert_eq!(names(&c, c.search("  llm_task ", 10)), ["llm_task"]);
        assert_eq!(names(&c, c.search("task", 10)), ["task"]);
    }

    #[test]
    fn an_exact_case_sensitive_name_beats_a_case_insensitive_one() {
        let c = catalog(vec![tool("Notes"), tool("notes")]);
        assert_eq!(names(&c, c.search("notes", 10)), ["notes"]);
        assert_eq!(names(&c, c.search("Notes", 10)), ["Notes"]);
    }

    #[test]
    fn a_stop_word_only_or_unmatched_query_returns_nothing() {
        let c = catalog(generated(200));
        assert!(c.search("the and of to", 10).is_empty());
        assert!(c.search("zyzzyva", 10).is_empty());
        assert!(c.search("", 10).is_empty());
        assert!(c.search("email", 0).is_empty());
    }

    #[test]
    fn ties_are_broken_by_callable_name() {
        let mut tools: Vec<ToolSpec> = ["zeta_tool", "alpha_tool", "mid_tool"]
            .iter()
            .map(|n| tool(n))
            .collect();
        for t in &mut tools {
            t.description = "Fetch weather.".into();
        }
        let c = catalog(tools);
        assert_eq!(
            names(&c, c.search("weather", 10)),
            ["alpha_tool", "mid_tool", "zeta_tool"]
        );
    }

    #[test]
    fn the_limit_caps_the_result_count() {
        let c = catalog(generated(200));
        assert_eq!(c.search("email", 3).len(), 3);
    }

    #[test]
    fn schema_words_count_for_core_tools_only() {
        let params = json!({"type":"object","properties":{"frobnicate":{"type":"string",
            "description":"Quux level."}}});
        let mut trusted = tool("a");
        trusted.parameters = Some(params.clone());
        let mut untrusted = client("b");
        untrusted.parameters = Some(params);
        let c = catalog(vec![trusted, untrusted]);
        assert_eq!(names(&c, c.search("frobnicate", 10)), ["a"]);
        assert_eq!(names(&c, c.search("quux", 10)), ["a"]);
    }

    #[test]
    fn label_words_are_searchable() {
        let mut t = tool("x1");
        t.label = Some("Weather Forecast".into());
        let c = catalog(vec![t, tool("x2")]);
        assert_eq!(names(&c, c.search("forecast", 10)), ["x1"]);
    }
}
