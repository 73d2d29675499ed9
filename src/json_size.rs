//! Sizes of compact JSON as serde_json writes it, in UTF-8 bytes (`maxOutputBytes`) or
//! UTF-16 code units (`resultBudgetChars`): strings, numbers, longest fitting prefixes and
//! truncation markers. A leaf: both budgets size through here, so they cannot drift apart.

/// The marker's fixed guidance text.
pub const GUIDANCE: &str = "Output truncated; rerun with narrower args.";
/// A marker's JSON up to its `omittedBytes` number.
pub const MARKER_HEAD: &str = r#"{"truncated":true,"omittedBytes":"#;
/// A marker's JSON between that number and its `prefix` string (holds [`GUIDANCE`]).
pub const MARKER_MID: &str =
    r#","guidance":"Output truncated; rerun with narrower args.","prefix":"#;

/// What a size counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// UTF-8 bytes.
    Bytes,
    /// UTF-16 code units (JavaScript string length).
    Utf16,
}

impl Unit {
    /// Units of `c` written raw.
    pub fn char_len(self, c: char) -> usize {
        match self {
            Unit::Bytes => c.len_utf8(),
            Unit::Utf16 => c.len_utf16(),
        }
    }

    /// Units of `s` as it stands (for text that already is JSON).
    pub fn str_len(self, s: &str) -> usize {
        match self {
            Unit::Bytes => s.len(),
            Unit::Utf16 => s.encode_utf16().count(),
        }
    }

    /// Units `c` takes inside a serde_json string: quote, backslash and the short control
    /// escapes take two, other control chars `\u00XX` six, everything else is raw.
    pub fn escaped_len(self, c: char) -> usize {
        match c {
            '"' | '\\' | '\u{8}' | '\t' | '\n' | '\u{c}' | '\r' => 2,
            c if u32::from(c) < 0x20 => 6,
            c => self.char_len(c),
        }
    }

    /// Units of `s` as a JSON string, quotes included.
    pub fn json_string_len(self, s: &str) -> usize {
        2 + s.chars().map(|c| self.escaped_len(c)).sum::<usize>()
    }

    /// End (a byte index on a char boundary) of the longest prefix of `s` for which
    /// `fits(raw_bytes, escaped_units)` holds, scanning while it holds (callers pass
    /// predicates that stay false once false). `escaped_units` excludes the quotes.
    pub fn longest_prefix(self, s: &str, fits: impl Fn(usize, usize) -> bool) -> usize {
        let mut escaped = 0;
        let mut end = 0;
        for (i, c) in s.char_indices() {
            escaped += self.escaped_len(c);
            let next = i + c.len_utf8();
            if !fits(next, escaped) {
                break;
            }
            end = next;
        }
        end
    }

    /// The leading part of `text` plus `suffix` whose JSON string fits `budget` units;
    /// `None` if not even the bare suffix fits.
    pub fn cut_with_suffix(self, text: &str, suffix: &str, budget: usize) -> Option<String> {
        let room = budget.checked_sub(self.json_string_len(suffix))?;
        let end = self.longest_prefix(text, |_, escaped| escaped <= room);
        Some(format!("{}{suffix}", &text[..end]))
    }

    /// End of the longest prefix of `available` (the leading part of an original of
    /// `total_bytes` bytes) whose truncation marker fits `budget` units; `None` if not
    /// even the marker with an empty prefix fits.
    pub fn marker_prefix_end(
        self,
        available: &str,
        total_bytes: usize,
        budget: usize,
    ) -> Option<usize> {
        if marker_len(total_bytes, 2) > budget {
            return None;
        }
        // Growing the prefix by one char adds at least one escaped unit and removes at most
        // one digit from omittedBytes, so the size never shrinks: the first miss ends it.
        Some(self.longest_prefix(available, |raw, escaped| {
            marker_len(total_bytes.saturating_sub(raw), escaped + 2) <= budget
        }))
    }
}

/// Digits of `n` in JSON (no sign, no exponent).
pub fn decimal_digits(n: usize) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// Compact JSON size of a marker whose prefix serialises to `prefix_json_len` units
/// (quotes included). The fixed text is ASCII, so this holds in either unit.
pub fn marker_len(omitted_bytes: usize, prefix_json_len: usize) -> usize {
    MARKER_HEAD.len() + decimal_digits(omitted_bytes) + MARKER_MID.len() + prefix_json_len + 1
}

#[cfg(test)]
mod tests;
