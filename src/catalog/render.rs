//! JSON Schema → TypeScript-style type text. Bounded in characters, rendered properties
//! and container depth; recursion is capped, so any JSON value renders without panicking.
//! Reports whether the text describes the schema exactly (`complete`).

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::ts_text::{is_identifier, literal, number_comment, ordered_props, quote};

/// Members allowed in a `type: [...]`, `anyOf`, `oneOf` or `allOf` union.
const MAX_UNION: usize = 4;
/// Literals allowed in an `enum` before it degrades to its base type.
const MAX_ENUM: usize = 24;
/// Hard cap on recursion (containers and nested unions alike), far below stack limits.
const MAX_NEST: usize = 32;

/// Keywords whose meaning a compact hint cannot express; their presence anywhere in a
/// rendered schema makes the hint partial (so no output hint).
const UNSUPPORTED: &str = "\
    $ref $dynamicRef $recursiveRef allOf patternProperties if then \
    else not dependentSchemas dependentRequired dependencies unevaluatedProperties \
    unevaluatedItems propertyNames prefixItems additionalItems";

#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    pub max_chars: usize,
    pub max_props: usize,
    pub max_depth: usize,
}

/// How objects that allow unlisted properties end: `; ... }` in hints, an index
/// signature in `.d.ts` files (which must stay valid TypeScript).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OpenObjects {
    Ellipsis,
    IndexSignature,
}

#[derive(Debug)]
pub(super) struct Rendered {
    pub text: String,
    /// Every object closed, nothing unsupported, nothing cut by a bound.
    pub complete: bool,
    /// The text exceeded `max_chars`; it is cut and must not be shown.
    pub overflow: bool,
}

pub(super) fn render(schema: &Value, limits: Limits, open: OpenObjects) -> Rendered {
    let mut w = Writer {
        out: String::new(),
        chars: 0,
        props: 0,
        limits,
        open,
        complete: true,
        overflow: false,
    };
    w.schema(schema, 0, 0);
    Rendered {
        text: w.out,
        complete: w.complete && !w.overflow,
        overflow: w.overflow,
    }
}

/// What the caller needs to know about the text just written.
#[derive(Clone, Copy, Default)]
struct Top {
    /// Written as a top-level union (`A | B`): needs parentheses inside `&`.
    union: bool,
    /// Already includes `null`, so `nullable` must not add it again.
    null: bool,
}

struct Writer {
    out: String,
    chars: usize,
    props: usize,
    limits: Limits,
    open: OpenObjects,
    complete: bool,
    overflow: bool,
}

impl Writer {
    fn push(&mut self, s: &str) {
        if self.overflow {
            return;
        }
        self.out.push_str(s);
        self.chars += s.chars().count();
        self.overflow = self.chars > self.limits.max_chars;
    }

    fn unknown(&mut self) -> Top {
        self.complete = false;
        self.push("unknown");
        Top::default()
    }

    fn schema(&mut self, schema: &Value, depth: usize, nest: usize) -> Top {
        if self.overflow {
            return Top::default();
        }
        if nest > MAX_NEST {
            return self.unknown();
        }
        match schema {
            Value::Bool(true) => {
                self.push("unknown");
                Top::default()
            }
            Value::Bool(false) => {
                self.push("never");
                Top::default()
            }
            Value::Object(m) => self.object_schema(m, depth, nest),
            _ => self.unknown(),
        }
    }

    fn object_schema(&mut self, m: &Map<String, Value>, depth: usize, nest: usize) -> Top {
        if UNSUPPORTED.split_whitespace().any(|k| m.contains_key(k)) {
            self.complete = false;
        }
        if ["$ref", "$dynamicRef", "$recursiveRef"]
            .iter()
            .any(|k| m.contains_key(*k))
        {
            // References are not resolved: the hint stays honest rather than guessing.
            return self.unknown();
        }
        let mut top = if let Some(c) = m.get("const") {
            self.literals(std::slice::from_ref(c), m, depth, nest)
        } else if let Some(e) = m.get("enum") {
            match e {
                Value::Array(items) => self.literals(items, m, depth, nest),
                _ => self.unknown(),
            }
        } else {
            self.shape(m, depth, nest)
        };
        if m.get("nullable") == Some(&Value::Bool(true)) && !top.null {
            self.push(" | null");
            top = Top {
                union: true,
                null: true,
            };
        }
        top
    }

    /// `enum`/`const` as a literal union; too many or non-scalar literals fall back to
    /// the schema's type.
    fn literals(
        &mut self,
        items: &[Value],
        m: &Map<String, Value>,
        depth: usize,
        nest: usize,
    ) -> Top {
        if items.is_empty() {
            self.push("never");
            return Top::default();
        }
        let texts: Option<Vec<String>> = if items.len() > MAX_ENUM {
            None
        } else {
            items.iter().map(literal).collect()
        };
        let Some(texts) = texts else {
            self.complete = false;
            return self.shape(m, depth, nest);
        };
        for (i, text) in texts.iter().enumerate() {
            if i > 0 {
                self.push(" | ");
            }
            self.push(text);
        }
        Top {
            union: texts.len() > 1,
            null: items.iter().any(Value::is_null),
        }
    }

    /// Everything but literals: combinators, `type` (single or list) or an inferred type.
    fn shape(&mut self, m: &Map<String, Value>, depth: usize, nest: usize) -> Top {
        let own_shape = ["type", "properties", "items"]
            .iter()
            .any(|k| m.contains_key(*k));
        for (key, sep) in [("anyOf", " | "), ("oneOf", " | "), ("allOf", " & ")] {
            if let Some(members) = m.get(key) {
                if !own_shape {
                    return self.members(members, sep, depth, nest);
                }
                // Combined with an own type the members only narrow it: render the type.
                self.complete = false;
            }
        }
        match m.get("type") {
            Some(Value::String(kind)) => self.kind(kind, m, depth, nest),
            Some(Value::Array(kinds)) if !kinds.is_empty() && kinds.len() <= MAX_UNION => {
                let mut top = Top {
                    union: kinds.len() > 1,
                    null: false,
                };
                for (i, kind) in kinds.iter().enumerate() {
                    if i > 0 {
                        self.push(" | ");
                    }
                    match kind.as_str() {
                        Some(kind) => {
                            top.null |= kind == "null";
                            self.kind(kind, m, depth, nest);
                        }
                        None => {
                            self.unknown();
                        }
                    }
                }
                top
            }
            Some(_) => self.unknown(),
            None if ["properties", "additionalProperties", "required"]
                .iter()
                .any(|k| m.contains_key(*k)) =>
            {
                self.kind("object", m, depth, nest)
            }
            None if m.contains_key("items") => self.kind("array", m, depth, nest),
            // Annotation-only schemas (`{}`, `{ description }`) accept anything: exact.
            None => {
                self.push("unknown");
                Top::default()
            }
        }
    }

    fn members(&mut self, members: &Value, sep: &str, depth: usize, nest: usize) -> Top {
        let items = match members {
            Value::Array(items) if !items.is_empty() && items.len() <= MAX_UNION => items,
            _ => return self.unknown(),
        };
        if let [only] = items.as_slice() {
            return self.schema(only, depth, nest + 1);
        }
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.push(sep);
            }
            let start = self.out.len();
            let inner = self.schema(item, depth, nest + 1);
            if sep == " & " && inner.union && !self.overflow {
                self.out.insert(start, '(');
                self.chars += 1;
                self.push(")");
            }
        }
        Top {
            union: sep == " | ",
            null: false,
        }
    }

    fn kind(&mut self, kind: &str, m: &Map<String, Value>, depth: usize, nest: usize) -> Top {
        match kind {
            "string" | "boolean" => self.push(kind),
            "null" => {
                self.push("null");
                return Top {
                    union: false,
                    null: true,
                };
            }
            "number" | "integer" => {
                self.push("number");
                self.push(&number_comment(m, kind == "integer"));
            }
            "array" => self.array(m, depth, nest),
            "object" => self.object(m, depth, nest),
            _ => return self.unknown(),
        }
        Top::default()
    }

    fn array(&mut self, m: &Map<String, Value>, depth: usize, nest: usize) {
        match m.get("items") {
            _ if depth >= self.limits.max_depth => {
                self.complete = false;
                self.push("Array<unknown>");
            }
            None => self.push("Array<unknown>"),
            Some(Value::Array(_)) => {
                // Tuple form (draft 4–2019): not expressible as Array<T>.
                self.complete = false;
                self.push("Array<unknown>");
            }
            Some(items) => {
                self.push("Array<");
                self.schema(items, depth + 1, nest + 1);
                self.push(">");
            }
        }
    }

    fn object(&mut self, m: &Map<String, Value>, depth: usize, nest: usize) {
        let open_tail = match self.open {
            OpenObjects::Ellipsis => "...",
            OpenObjects::IndexSignature => "[key: string]: unknown",
        };
        if depth >= self.limits.max_depth {
            self.complete = false;
            self.push("{ ");
            self.push(open_tail);
            self.push(" }");
            return;
        }
        let empty = Map::new();
        let props = match m.get("properties") {
            Some(Value::Object(p)) => p,
            None => &empty,
            Some(_) => {
                self.complete = false;
                &empty
            }
        };
        let required: HashSet<&str> = match m.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => HashSet::new(),
        };
        if required.iter().any(|name| !props.contains_key(*name)) {
            self.complete = false;
        }
        let closed = m.get("additionalProperties") == Some(&Value::Bool(false));
        let room = self.limits.max_props.saturating_sub(self.props);
        let (listed, truncated) = ordered_props(props, &required, room);
        self.push("{");
        for (i, (name, schema, req)) in listed.iter().enumerate() {
            if self.overflow {
                return;
            }
            self.props += 1;
            self.push(if i == 0 { " " } else { "; " });
            if is_identifier(name) {
                self.push(name);
            } else {
                self.push(&quote(name));
            }
            self.push(if *req { ": " } else { "?: " });
            self.schema(schema, depth + 1, nest + 1);
        }
        let open = !closed || truncated;
        if !open {
            self.push(if listed.is_empty() { "}" } else { " }" });
            return;
        }
        self.complete = false;
        self.push(if listed.is_empty() { " " } else { "; " });
        self.push(open_tail);
        self.push(" }");
    }
}
