//! Detects cells whose source is a shell command line rather than JavaScript/TypeScript.
//! Only the first code line (plus at most one more) is judged; every pass is linear in the input,
//! never panics, and treats words the program itself declares as JavaScript.

use std::collections::HashSet;

/// Message returned to the model when source looks like a shell command.
pub const SHELL_REJECTION: &str = "This tool runs JavaScript or TypeScript, not shell commands. \
Call an enabled async tool global instead (for example `await exec({ command: \"ls\" })`, \
only if such a tool exists). Use `catalog.search(query)` when the quick index omits a tool. \
Do not retry the same shell command as code.";

/// Later pipeline segments are only a tie-breaker; bounding them keeps `a;a;a;…` cheap.
const MAX_SEGMENTS: usize = 16;

/// Programs common enough that a bare `ls` or `make > log` already reads as shell.
const KNOWN_COMMANDS: &str = "apt apt-get awk bash brew bun cargo cat cd chmod chown cp curl date \
deno df diff docker du echo env find gh git go grep gzip head jq kill kubectl ln ls make mkdir mv \
node npm npx pip pip3 pnpm printf ps pwd python python3 rg rm rmdir rustc sed sh sort ssh sudo \
tail tar tee touch tsc uname uniq unzip wc wget which whoami xargs yarn zsh";

/// JavaScript and TypeScript words that start statements or join expressions.
const JS_KEYWORDS: &str = "abstract as async await break case catch class const continue debugger \
declare default delete do else enum export extends false finally for function if implements import \
in instanceof interface let namespace new null return satisfies static super switch this throw \
true try type typeof undefined using var void while with yield";

/// Keywords that make `x=<keyword> …` a JavaScript expression rather than a shell `KEY=value`.
const JS_VALUE_KEYWORDS: &str = "async await class delete function new typeof void yield";

/// Membership in one of the space-separated word lists above.
fn listed(list: &str, word: &str) -> bool {
    list.split(' ').any(|entry| entry == word)
}

/// Outcome for a line or segment; `Unsure` lets later segments or the next line decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Shell,
    Js,
    Unsure,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Word,
    Op,
}

/// A shell token: a word (quotes and escapes kept inside) or a control/redirection operator.
#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    text: &'a str,
    kind: Kind,
}

impl<'a> Token<'a> {
    fn word(&self) -> Option<&'a str> {
        (self.kind == Kind::Word).then_some(self.text)
    }

    fn is_op(&self, op: &str) -> bool {
        self.kind == Kind::Op && self.text == op
    }
}

/// True when `source` reads as a shell command line rather than JavaScript/TypeScript.
/// `parses` says whether the source is valid code: then a known command followed by a lone
/// operator (`ls + count`) is read as the expression it is, not as a command.
pub fn looks_like_shell(source: &str, parses: bool) -> bool {
    let mut text = source.trim_start();
    if let Some(after) = text.strip_prefix("#!") {
        let (interpreter, body) = split_line(after);
        if !runs_javascript(interpreter) {
            return true;
        }
        text = body;
    }
    if is_shell_fence(text) {
        return true;
    }
    let Some((line, rest)) = first_code_line(text) else {
        return false;
    };
    if continues_expression(rest) {
        return false;
    }
    let reading = Reading {
        declared: declared_names(source),
        parses,
    };
    match classify_line(line, &reading) {
        Verdict::Shell => true,
        Verdict::Js => false,
        // A lone `FOO=bar` or bare word is ambiguous; a shell line right after settles it.
        Verdict::Unsure => first_code_line(rest).is_some_and(|(next, after)| {
            !continues_expression(after) && classify_line(next, &reading) == Verdict::Shell
        }),
    }
}

/// What the whole source tells about each line: the names it declares, and whether it parses.
struct Reading<'a> {
    declared: HashSet<&'a str>,
    parses: bool,
}

fn split_line(text: &str) -> (&str, &str) {
    text.split_once('\n').unwrap_or((text, ""))
}

/// A Markdown fence such as ```` ```bash ```` announces a shell snippet.
fn is_shell_fence(text: &str) -> bool {
    let tag = text
        .strip_prefix("```")
        .map(|after| split_line(after).0.trim());
    matches!(tag, Some("sh" | "bash" | "shell" | "zsh" | "console"))
}

/// `#!/usr/bin/env node` starts a JavaScript file, which QuickJS accepts.
fn runs_javascript(interpreter: &str) -> bool {
    interpreter.split_whitespace().any(|word| {
        let name = word.rsplit('/').next().unwrap_or(word);
        matches!(name, "node" | "deno" | "bun" | "tsx" | "ts-node" | "qjs")
    })
}

/// Skips blank lines, comments (`//`, `/* */`, `#`) and code fences; returns the first code line
/// and the text after it.
fn first_code_line(mut text: &str) -> Option<(&str, &str)> {
    loop {
        text = text.trim_start();
        if text.is_empty() {
            return None;
        }
        if let Some(body) = text.strip_prefix("/*") {
            text = body
                .find("*/")
                .and_then(|end| body.get(end + 2..))
                .unwrap_or("");
        } else if text.starts_with("//") || text.starts_with('#') || text.starts_with("```") {
            text = split_line(text).1;
        } else {
            let (line, rest) = split_line(text);
            return Some((line.trim_end(), rest));
        }
    }
}

/// A next line like `.filter(f)` or `|| x` continues a JavaScript expression; shell lines cannot.
fn continues_expression(rest: &str) -> bool {
    let Some((line, _)) = first_code_line(rest) else {
        return false;
    };
    let is_path = line.starts_with("./") || line.starts_with("../");
    let leads = [".", "?", "&&", "||", "+", "*", ",", "=", ")", "]"];
    !is_path && leads.iter().any(|lead| line.starts_with(lead))
}

/// Classifies a line by its first segment, consulting later `|`/`&&`/`;` segments only when
/// the first is inconclusive.
fn classify_line(line: &str, reading: &Reading<'_>) -> Verdict {
    let tokens = tokenize(line);
    let separators = ["|", "||", "&&", ";", ";;", "&", "|&"];
    let mut segments = tokens.split(|t| t.kind == Kind::Op && separators.contains(&t.text));
    let first = segments.next().unwrap_or_default();
    let verdict = classify_segment(first, reading);
    if verdict != Verdict::Unsure {
        return verdict;
    }
    // `2>&1` and `&>` are redirections with no JavaScript reading.
    if tokens.iter().any(|t| t.is_op(">&") || t.is_op("&>")) {
        return Verdict::Shell;
    }
    segments
        .take(MAX_SEGMENTS)
        .map(|segment| classify_segment(segment, reading))
        .find(|verdict| *verdict != Verdict::Unsure)
        .unwrap_or(Verdict::Unsure)
}

/// Classifies one segment: optional `KEY=value` prefixes, a command word, then its first argument.
fn classify_segment(tokens: &[Token<'_>], reading: &Reading<'_>) -> Verdict {
    let prefixes = tokens
        .iter()
        .take_while(|t| t.word().is_some_and(is_env_assignment))
        .count();
    let command = tokens.get(prefixes..).unwrap_or_default();
    let Some((first, args)) = command.split_first() else {
        return Verdict::Unsure;
    };
    let Some(word) = first.word() else {
        return if prefixes > 0 {
            Verdict::Unsure
        } else {
            Verdict::Js
        };
    };
    let next = args.first();
    if next.is_some_and(|t| t.is_op("(")) {
        return Verdict::Js;
    }
    if is_path(word) {
        return Verdict::Shell;
    }
    if let Some(verdict) = classify_keyword(word, args) {
        return verdict;
    }
    if !is_command_word(word) || reading.declared.contains(word) {
        return Verdict::Js;
    }
    // After `KEY=value ` only a command can follow, so any command word is as good as a known one.
    let known = prefixes > 0 || listed(KNOWN_COMMANDS, word);
    match next.and_then(Token::word) {
        Some(arg) => classify_argument(arg, known, reading.parses),
        None if known => Verdict::Shell,
        None => Verdict::Unsure,
    }
}

/// Statement-leading keywords: shell control flow takes a bare word where JavaScript needs `(`.
fn classify_keyword(word: &str, args: &[Token<'_>]) -> Option<Verdict> {
    let next = args.first().and_then(Token::word);
    let shell = match word {
        // `$ ls` is a pasted prompt; `$` followed by a bare word is not JavaScript.
        "if" | "while" | "until" | "$" => next.is_some(),
        "for" => next.is_some_and(|w| w != "await"),
        "case" => args.iter().any(|t| t.word() == Some("in")),
        "export" => next.is_some_and(|w| {
            is_env_assignment(w) || is_flag(w) || (is_command_word(w) && !listed(JS_KEYWORDS, w))
        }),
        "[" | "[[" => next.is_some_and(is_flag),
        _ if listed(JS_KEYWORDS, word) => false,
        _ => return None,
    };
    Some(if shell { Verdict::Shell } else { Verdict::Js })
}

/// Judges the word after an undeclared command word: two adjacent bare words are not JavaScript,
/// but `a - b`, `a = b` and `a in b` are. After a known command a lone operator is an argument
/// (`ls *`) unless the whole source parses, when it is the expression the engine would run.
fn classify_argument(arg: &str, known: bool, parses: bool) -> Verdict {
    if ["in", "instanceof", "as", "satisfies"].contains(&arg) {
        return Verdict::Js;
    }
    let operator = arg.bytes().all(|b| b"=+-*/%!?:^~,".contains(&b));
    if operator && (!known || parses || arg.contains(['=', '?', ':'])) {
        return Verdict::Js;
    }
    if known || is_flag(arg) || is_path(arg) || starts_like_operand(arg) {
        Verdict::Shell
    } else {
        Verdict::Unsure
    }
}

/// A bare word, number, quoted string or `$VAR`: nothing a JavaScript operator could start.
fn starts_like_operand(arg: &str) -> bool {
    arg.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric() || b >= 0x80 || b"_\"'$.~@".contains(&b))
}

/// `-x` or `--long`; `-1` is left out because `count -1` is arithmetic.
fn is_flag(word: &str) -> bool {
    let body = word.strip_prefix("--").or_else(|| word.strip_prefix('-'));
    body.and_then(|b| b.bytes().next())
        .is_some_and(|b| b.is_ascii_alphabetic())
}

/// `/bin/ls`, `./gradlew`, `../x`, `~/bin/x`: JavaScript never starts a statement like this
/// (a regex such as `/a+/.test(s)` is caught earlier by its call parenthesis).
fn is_path(word: &str) -> bool {
    let tail = ["./", "../", "~/", "/"]
        .iter()
        .find_map(|prefix| word.strip_prefix(prefix));
    tail.and_then(|t| t.bytes().next())
        .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
}

fn is_identifier(word: &str) -> bool {
    word.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A plausible program name: an identifier that may also contain inner `-` (`apt-get`).
fn is_command_word(word: &str) -> bool {
    word.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && !word.ends_with('-')
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `KEY=value` as a shell assignment; `a==b`, `f=>x` and `x=await …` are JavaScript.
fn is_env_assignment(word: &str) -> bool {
    let Some((name, value)) = word.split_once('=') else {
        return false;
    };
    is_identifier(name) && !value.starts_with(['=', '>']) && !listed(JS_VALUE_KEYWORDS, value)
}

fn is_op_byte(b: u8) -> bool {
    b"|&;<>()".contains(&b)
}

/// Splits a line into shell words and operators; every slice boundary is an ASCII byte or an end.
fn tokenize(line: &str) -> Vec<Token<'_>> {
    let bytes = line.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let start = i;
        let kind = if b.is_ascii_whitespace() {
            i += 1;
            continue;
        } else if is_op_byte(b) {
            // Two-byte operators: || |& && &> ;; >> >& <<
            let pair = matches!(
                (b, bytes.get(i + 1)),
                (b'|', Some(b'|' | b'&'))
                    | (b'&', Some(b'&' | b'>'))
                    | (b';', Some(b';'))
                    | (b'>', Some(b'>' | b'&'))
                    | (b'<', Some(b'<'))
            );
            i += if pair { 2 } else { 1 };
            Kind::Op
        } else {
            i = word_end(bytes, i);
            Kind::Word
        };
        if let Some(text) = line.get(start..i) {
            tokens.push(Token { text, kind });
        }
    }
    tokens
}

/// End of a shell word: quotes and backslash escapes keep spaces and operators inside it.
fn word_end(bytes: &[u8], mut i: usize) -> usize {
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i = skip_escape(bytes, i),
            // Shell single quotes have no escapes.
            b'\'' => i = quote_end(bytes, i, false),
            b'"' | b'`' => i = quote_end(bytes, i, true),
            _ if b.is_ascii_whitespace() || is_op_byte(b) => break,
            _ => i += 1,
        }
    }
    i
}

/// Index after the quote opened at `start`, or of the newline/end when it is unterminated.
fn quote_end(bytes: &[u8], start: usize, escapes: bool) -> usize {
    let Some(&quote) = bytes.get(start) else {
        return start;
    };
    let mut i = start + 1;
    while let Some(&b) = bytes.get(i) {
        if b == quote {
            return i + 1;
        }
        if b == b'\n' {
            return i;
        }
        i = if escapes && b == b'\\' {
            skip_escape(bytes, i)
        } else {
            i + 1
        };
    }
    i
}

/// Skips a backslash and the ASCII byte it escapes; a multi-byte char is left whole so that
/// indices stay on char boundaries.
fn skip_escape(bytes: &[u8], i: usize) -> usize {
    if bytes.get(i + 1).is_some_and(u8::is_ascii) {
        i + 2
    } else {
        i + 1
    }
}

/// Names the program declares (`function ls`, `const ls`, `class ls`, `ls = …`): such a word is
/// JavaScript, not a command. Strings and comments are skipped; template literals are treated as
/// one-line strings, which at worst misses a declaration.
fn declared_names(source: &str) -> HashSet<&str> {
    let bytes = source.as_bytes();
    let mut names = HashSet::new();
    let mut after_declarator = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let next = bytes.get(i + 1).copied();
        if b == b'/' && next == Some(b'/') {
            i = find_from(bytes, i, |c| c == b'\n');
        } else if b == b'/' && next == Some(b'*') {
            let body = source.get(i + 2..).unwrap_or_default();
            i = body.find("*/").map_or(bytes.len(), |p| i + 2 + p + 2);
        } else if matches!(b, b'\'' | b'"' | b'`') {
            i = quote_end(bytes, i, true);
            after_declarator = false;
        } else if is_js_name_byte(b) {
            let end = find_from(bytes, i, |c| !is_js_name_byte(c));
            let name = source.get(i..end).unwrap_or_default();
            if after_declarator || assigned_at(bytes, end) {
                names.insert(name);
            }
            after_declarator = matches!(name, "function" | "class" | "const" | "let" | "var");
            i = end;
        } else {
            // `function* ls` still declares `ls`.
            after_declarator &= b.is_ascii_whitespace() || b == b'*';
            i += 1;
        }
    }
    names
}

/// Identifier (or number) bytes; non-ASCII bytes count so that names never split a char.
fn is_js_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// Index of the first byte at or after `i` matching `pred`, or the end.
fn find_from(bytes: &[u8], i: usize, pred: impl Fn(u8) -> bool) -> usize {
    let tail = bytes.get(i..).unwrap_or_default();
    tail.iter()
        .position(|&c| pred(c))
        .map_or(bytes.len(), |p| i + p)
}

/// True when `=` (not `==` or `=>`) follows index `i`, allowing spaces in between.
fn assigned_at(bytes: &[u8], mut i: usize) -> bool {
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    bytes.get(i) == Some(&b'=') && !matches!(bytes.get(i + 1), Some(b'=' | b'>'))
}

#[cfg(test)]
mod tests;
