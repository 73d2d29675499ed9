//! One guest output entry (`output[i]` of a result), as a JSON value, as serde output
//! and as hand-written compact JSON for the budget's byte counts, all `type` first.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};
use std::io::{self, Write};

pub(super) const TEXT_HEAD: &str = r#"{"type":"text","text":"#;
pub(super) const JSON_HEAD: &str = r#"{"type":"json","value":"#;

/// One guest output entry, in call order.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputEntry {
    /// `{"type":"text","text":...}`
    Text(String),
    /// `{"type":"json","value":...}`
    Json(Value),
}

impl OutputEntry {
    /// The entry as the result's `output[i]` object.
    pub fn into_value(self) -> Value {
        let mut m = Map::new();
        match self {
            OutputEntry::Text(text) => {
                m.insert("type".into(), "text".into());
                m.insert("text".into(), text.into());
            }
            OutputEntry::Json(value) => {
                m.insert("type".into(), "json".into());
                m.insert("value".into(), value);
            }
        }
        Value::Object(m)
    }

    /// Entries as the result's `output` array of JSON values.
    pub fn into_values(entries: Vec<OutputEntry>) -> Vec<Value> {
        entries.into_iter().map(OutputEntry::into_value).collect()
    }

    pub(super) fn write_json<W: Write>(&self, w: &mut W) -> io::Result<()> {
        match self {
            OutputEntry::Text(text) => {
                w.write_all(TEXT_HEAD.as_bytes())?;
                serde_json::to_writer(&mut *w, text)?;
            }
            OutputEntry::Json(value) => {
                w.write_all(JSON_HEAD.as_bytes())?;
                serde_json::to_writer(&mut *w, value)?;
            }
        }
        w.write_all(b"}")
    }
}

impl Serialize for OutputEntry {
    /// `type` first, as [`OutputEntry::into_value`] orders it.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        match self {
            OutputEntry::Text(text) => {
                m.serialize_entry("type", "text")?;
                m.serialize_entry("text", text)?;
            }
            OutputEntry::Json(value) => {
                m.serialize_entry("type", "json")?;
                m.serialize_entry("value", value)?;
            }
        }
        m.end()
    }
}
