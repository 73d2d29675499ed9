//! Unit tests of `shell`.

use super::*;
use std::time::{Duration, Instant};

/// Shell lines the brief requires to be rejected.
const REQUIRED_SHELL: &[&str] = &[
    "ls",
    "ls -la /workspace",
    "pwd;",
    "#!/usr/bin/env bash\necho hi",
    "pwd && ls /x",
    "echo hello",
    "cat a | grep b",
    "ls > out 2>&1",
    "/bin/ls /x",
    "./gradlew test",
    "sh -c 'ls'",
    "export FOO=bar",
    "NODE_ENV=test npm test",
    "git status",
    "if [ -d /x ]; then pwd; fi",
    "for f in *; do echo \"$f\"; done",
    "jq . f.json",
    "custom-tool --format=json",
];

/// Programs the brief requires to run.
const REQUIRED_JS: &[&str] = &[
    "",
    "   \n\t  \n",
    "return 7;",
    "ls('x')",
    "ls = 7",
    "value || fallback",
    "value > limit",
    "ls -1; function ls() {}",
    "const r = await exec({ command: \"ls\" }); return r;",
    "// shell: ls /x\nreturn 7;",
    "export const answer = 7;",
];

const EXTRA_SHELL: &[&str] = &[
    "npm install",
    "cd /tmp && make",
    "python3 script.py",
    "curl -s https://x | jq .",
    "make",
    "ls\n",
    "  git log --oneline | head -5\r\n",
    "rm -rf node_modules",
    "sudo apt-get install -y jq",
    "docker compose up -d",
    "FOO=1 BAR=2 ./run.sh",
    "DEBUG=true node server.js",
    "[ -f x ] && cat x",
    "while true; do sleep 1; done",
    "case $x in",
    "cat <<EOF\nhi\nEOF",
    "mycli run --verbose",
    "mytool > out.txt 2>&1",
    "tail -n 20 log.txt",
    "~/bin/tool --help",
    "$ ls -la",
    "# list the files\nls -la",
    "FOO=bar\necho $FOO",
    "export PATH=$PATH:/opt/bin",
    "```bash\nls -la\n```",
    "echo \"héllo wörld\" | wc -c",
    "value || ls -la",
];

const EXTRA_JS: &[&str] = &[
    "await read({path:\"a\"})",
    "return items.map(x => x.id)",
    "text(\"hi\")",
    "x\n  .filter(Boolean)",
    "date\n  .getTime()",
    "// list files first\nconst files = await exec({ command: \"ls\" });\nreturn files;",
    "/** docs */\nreturn 1;",
    "#!/usr/bin/env node\nconsole.log(1)",
    "```js\nreturn 1\n```",
    "const ls = 1;\nls -la",
    "if (x) { return 1 }",
    "for (const f of files) {}",
    "for await (const x of stream) {}",
    "while (true) {}",
    "x in obj",
    "a = b",
    "x=1",
    "x=await foo()",
    "sum += 1",
    "total / 2",
    "count -1",
    "a - b",
    "x ? y : z",
    "items.length",
    "console.log(\"ls -la\")",
    "/ab+c/.test(s)",
    "(async () => 1)()",
    "[1, 2].map(f)",
    "\"use strict\";",
    "type Foo = { a: number }",
    "interface Foo {}",
    "import fs from \"fs\"",
    "export default function main() {}",
    "result",
    "label: for (;;) {}",
    "new Promise((r) => r(1))",
    "function* ls() {}\nls -la",
    "cat = \"x\"",
    "let x = 1\nls -la",
];

fn assert_all(cases: &[&str], expected: bool) {
    for case in cases {
        assert_eq!(looks_like_shell(case, false), expected, "case {case:?}");
    }
}

#[test]
fn required_shell_cases_are_rejected() {
    assert_all(REQUIRED_SHELL, true);
}

#[test]
fn required_js_cases_are_accepted() {
    assert_all(REQUIRED_JS, false);
}

#[test]
fn extra_shell_cases_are_rejected() {
    assert_all(EXTRA_SHELL, true);
}

#[test]
fn extra_js_cases_are_accepted() {
    assert_all(EXTRA_JS, false);
}

#[test]
fn rejection_message_is_actionable() {
    for needle in ["not shell", "catalog.search(query)", "Do not retry"] {
        assert!(SHELL_REJECTION.contains(needle), "missing {needle:?}");
    }
}

#[test]
fn odd_inputs_never_panic() {
    let cases = [
        "\\",
        "\\é",
        "ls \\é",
        "'",
        "\"é",
        "`",
        "#!",
        "#",
        "/*",
        "/*/",
        "*/",
        "```",
        "$",
        "é",
        "é=x ls",
        "[",
        "(",
        ")",
        "&>",
        "a=",
        "=",
        "--",
        "-",
        "./",
        "\u{feff}ls",
    ];
    for case in cases {
        looks_like_shell(case, false);
    }
}

/// A guard against super-linear blowups, not a benchmark: a quadratic scan of these
/// inputs takes hours, a linear one milliseconds in release and about a second in a
/// debug build on a loaded CI machine, so the bound is generous.
fn classify_quickly(name: &str, source: &str) -> bool {
    let start = Instant::now();
    let verdict = looks_like_shell(source, false);
    let elapsed = start.elapsed();
    assert!(elapsed < Duration::from_secs(30), "{name} took {elapsed:?}");
    verdict
}

#[test]
fn chained_assignments_are_linear() {
    let source = "A=x ".repeat(32_000) + "cmd";
    assert!(classify_quickly("assignments", &source));
}

#[test]
fn escaped_quotes_are_linear() {
    assert!(!classify_quickly("escaped quotes", &"\\\"".repeat(32_000)));
}

#[test]
fn megabyte_lines_are_linear() {
    let mb = 1 << 20;
    classify_quickly("one word", &"x".repeat(mb));
    classify_quickly("many words", &"a ".repeat(mb / 2));
    classify_quickly("segments", &"a;".repeat(mb / 2));
    classify_quickly("comments", &"/*".repeat(mb / 2));
    classify_quickly("escaped multibyte", &"\\é".repeat(mb / 3));
    assert!(!classify_quickly("newlines", &"\n".repeat(mb)));
}
