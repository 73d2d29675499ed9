//! Search tokens: words split on non-alphanumerics and camelCase, lower-cased, English
//! stop words dropped, light suffix stemming. Index and query use the same function, so
//! `sendEmail`, `send_email` and "sending emails" meet on `send` + `email`.

use std::collections::HashSet;
use std::sync::OnceLock;

/// Kept sorted so the list is easy to review (a test checks the order).
const STOP_WORDS: &str = "\
    a about above after again against all am an and any are as at be because been \
    before being below between both but by can could did do does doing down during \
    each either etc few for from further had has have having he her here hers \
    herself him himself his how i if in into is it its itself just may me might \
    more most must my myself no nor not now of off on once only or other our ours \
    ourselves out over own same she should so some such than that the their theirs \
    them themselves then there these they this those through to too under until up \
    very via was we were what when where which while who whom why will with would \
    you your yours yourself yourselves";

/// Calls `emit` with each token of `text`. The token buffer is reused, so indexing a
/// large catalog allocates per distinct term, not per occurrence.
pub(super) fn for_each_token(text: &str, mut emit: impl FnMut(&str)) {
    let mut buf = String::new();
    let mut word: Option<usize> = None;
    let mut prev = ' ';
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !c.is_alphanumeric() {
            if let Some(start) = word.take() {
                flush(&text[start..i], &mut buf, &mut emit);
            }
            continue;
        }
        match word {
            None => word = Some(i),
            Some(start) => {
                let next = chars.peek().map(|&(_, n)| n);
                if camel_boundary(prev, c, next) {
                    flush(&text[start..i], &mut buf, &mut emit);
                    word = Some(i);
                }
            }
        }
        prev = c;
    }
    if let Some(start) = word {
        flush(&text[start..], &mut buf, &mut emit);
    }
}

fn flush(word: &str, buf: &mut String, emit: &mut impl FnMut(&str)) {
    buf.clear();
    if word.is_ascii() {
        buf.push_str(word);
        buf.make_ascii_lowercase();
    } else {
        buf.extend(word.chars().flat_map(char::to_lowercase));
    }
    if !is_stop_word(buf) {
        stem(buf);
        emit(buf);
    }
}

fn is_stop_word(word: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STOP_WORDS.split_whitespace().collect())
        .contains(word)
}

/// A word break before `cur`: `sendEmail` (lower/digit → upper) and `HTTPServer` (the
/// last capital of a run that is followed by lower case).
fn camel_boundary(prev: char, cur: char, next: Option<char>) -> bool {
    if !cur.is_uppercase() {
        return false;
    }
    if prev.is_lowercase() || prev.is_numeric() {
        return true;
    }
    prev.is_uppercase() && next.is_some_and(char::is_lowercase)
}

/// Light English suffix stemming on ASCII words: plural `-s`/`-es`/`-ies`, then `-ing`
/// or `-ed` (undoubling `runn` → `run`), then a final `-e`, so `create`, `created` and
/// `creating` share `creat`. Short words and non-ASCII words are left alone.
fn stem(word: &mut String) {
    if !word.is_ascii() || word.len() <= 3 {
        return;
    }
    if word.ends_with("ies") && word.len() > 4 {
        word.truncate(word.len() - 3);
        word.push('y');
    } else if ["sses", "ches", "shes", "xes", "zes"]
        .iter()
        .any(|s| word.ends_with(s))
    {
        word.truncate(word.len() - 2);
    } else if word.ends_with('s') && !["ss", "us", "is"].iter().any(|s| word.ends_with(s)) {
        word.truncate(word.len() - 1);
    }
    if word.ends_with("ing") && word.len() >= 6 {
        word.truncate(word.len() - 3);
        undouble(word);
    } else if word.ends_with("ed") && word.len() >= 5 {
        word.truncate(word.len() - 2);
        undouble(word);
    }
    if word.ends_with('e') && word.len() >= 4 {
        word.pop();
    }
}

fn undouble(word: &mut String) {
    let bytes = word.as_bytes();
    let n = bytes.len();
    if n >= 4 && bytes[n - 1] == bytes[n - 2] && !b"aeioulsz".contains(&bytes[n - 1]) {
        word.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for_each_token(text, |t| out.push(t.to_owned()));
        out
    }

    #[test]
    fn stop_words_are_sorted_and_unique() {
        let words: Vec<&str> = STOP_WORDS.split_whitespace().collect();
        assert!(words.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn camel_snake_and_kebab_case_split_into_words() {
        assert_eq!(tokens("sendEmail"), ["send", "email"]);
        assert_eq!(tokens("send_email"), ["send", "email"]);
        assert_eq!(tokens("llm-task"), ["llm", "task"]);
        assert_eq!(tokens("HTTPServer v2Api"), ["http", "server", "v2", "api"]);
    }

    #[test]
    fn stop_words_are_dropped() {
        assert!(tokens("the and of to").is_empty());
        assert_eq!(tokens("Send the email"), ["send", "email"]);
    }

    #[test]
    fn inflections_share_a_stem() {
        for group in [
            ["emails", "email", "email"],
            ["sending", "sends", "send"],
            ["created", "creating", "create"],
            ["queries", "query", "query"],
            ["searches", "searching", "search"],
            ["running", "runs", "run"],
            ["added", "adds", "add"],
        ] {
            let stems: Vec<Vec<String>> = group.iter().map(|w| tokens(w)).collect();
            assert!(
                stems.windows(2).all(|w| w[0] == w[1]),
                "{group:?} → {stems:?}"
            );
        }
        assert_eq!(tokens("status address"), ["status", "address"]);
    }

    #[test]
    fn non_ascii_words_are_lower_cased_but_not_stemmed() {
        assert_eq!(tokens("Éléments über"), ["éléments", "über"]);
    }
}
