//! Unit tests of `program`.

use super::*;
use crate::source::prepare::prepare;

const JS: Language = Language::JavaScript;

fn js_error(source: &str) -> String {
    match prepare(source, JS) {
        Ok(_) => "ok".to_owned(),
        Err(error) => error.message(JS),
    }
}

fn syntax(line: u32, column: u32, message: &str) -> String {
    SourceError::Syntax {
        line,
        column,
        message: message.to_owned(),
    }
    .message(JS)
}

#[test]
fn import_declarations_are_module_access() {
    for source in [
        "import fs from 'fs';",
        "import { a } from 'a'",
        "import * as a from 'a'",
        "import 'x'",
    ] {
        assert_eq!(js_error(source), MODULE_ACCESS, "{source}");
    }
}

#[test]
fn dynamic_import_and_import_meta_are_module_access() {
    for source in [
        "await import('fs')",
        "function f() { return import(x); }",
        "return import.meta.url",
    ] {
        assert_eq!(js_error(source), MODULE_ACCESS, "{source}");
    }
}

#[test]
fn every_require_callee_form_is_module_access() {
    let forms = [
        "require('fs')",
        "require?.('fs')",
        "(require)('fs')",
        "(0, require)('fs')",
        "r\\u0065quire('fs')",
        "\\u{72}equire('fs')",
        "new require('fs')",
        "require`fs`",
        "const f = () => { return require('child_process'); };",
    ];
    for source in forms {
        assert_eq!(js_error(source), MODULE_ACCESS, "{source}");
    }
}

#[test]
fn module_words_outside_code_are_fine() {
    let fine = [
        "return 'require(\"fs\") and import(\"x\")';",
        "return `import ${'require'}(x)`;",
        "// require('fs')\n/* import('x') */ return 1;",
        "return /require\\(|import\\(/.test(x);",
    ];
    for source in fine {
        assert_eq!(js_error(source), "ok", "{source}");
    }
}

#[test]
fn member_calls_named_import_or_require_are_fine() {
    for source in [
        "api.import(x)",
        "obj.require(x)",
        "api['require'](x)",
        "require.resolve",
    ] {
        assert_eq!(js_error(source), "ok", "{source}");
    }
}

#[test]
fn a_locally_declared_require_is_fine() {
    let local = "const require = (name) => name; return require('a');";
    assert_eq!(js_error(local), "ok");
    assert_eq!(
        js_error("function f(require) { return require('x'); }"),
        "ok"
    );
}

#[test]
fn module_access_wins_over_a_recoverable_syntax_error() {
    assert_eq!(js_error("const a;\nrequire('fs');"), MODULE_ACCESS);
}

#[test]
fn an_unrecoverable_parse_is_reported_before_module_access() {
    assert_eq!(
        js_error("1 = 2; require('x')"),
        syntax(1, 1, "Cannot assign to this expression")
    );
}

#[test]
fn top_level_return_and_await_are_accepted() {
    assert_eq!(js_error("return 1"), "ok");
    assert_eq!(
        js_error("const v = await x;\nfor await (const y of z) {}\nreturn v;"),
        "ok"
    );
}

#[test]
fn javascript_cells_are_returned_byte_identical() {
    let source = "// keep\r\nconst a = 1 ;\t\treturn  a /* c */;\u{2028}";
    assert_eq!(prepare(source, JS).map(|p| p.js), Ok(source.to_owned()));
}

#[test]
fn a_syntax_error_on_line_one_has_the_exact_sentence() {
    assert_eq!(
        js_error("foo(;"),
        "SyntaxError at user.js:1:5: Unexpected token. No tools were dispatched; correct the source and submit it again."
    );
}

#[test]
fn a_syntax_error_on_line_three_is_user_relative() {
    assert_eq!(
        js_error("const x = 1;\nconst y = 2;\nconst = ;"),
        syntax(3, 7, "Unexpected token")
    );
}

#[test]
fn columns_after_non_ascii_text_count_utf16_units() {
    assert_eq!(
        js_error("const s = 'héllo';\nconst t = '😀'; x +* 2"),
        syntax(2, 20, "Unexpected token")
    );
}

#[test]
fn crlf_is_one_line_break() {
    assert_eq!(line_column("a\r\nb\rc\u{2028}d\ne", 11), (5, 1));
}

#[test]
fn export_is_a_syntax_error_at_its_statement() {
    assert_eq!(
        js_error("export const answer = 7;"),
        syntax(1, 1, EXPORT_MESSAGE)
    );
    assert_eq!(
        js_error("const a = 1;\n  export { a };"),
        syntax(2, 3, EXPORT_MESSAGE)
    );
}

#[test]
fn the_earliest_diagnostic_is_reported() {
    // oxc lists lexer errors (the bad escape) before parser errors (the const).
    assert_eq!(
        js_error("const a;\nx = '\\u{zz}';"),
        syntax(1, 7, "Missing initializer in const declaration (Add an initializer (e.g. ` = undefined`) here)")
    );
}

#[test]
fn long_diagnostics_stay_below_500_characters() {
    let error = syntax_at("x", 0, &"very long diagnostic\n".repeat(200));
    let message = error.message(Language::TypeScript);
    assert!(message.chars().count() < 500, "{}", message.len());
    assert!(message.ends_with("submit it again.") && !message.contains('\n'));
}

#[test]
fn parses_checks_grammar_only() {
    assert!(parses("export const answer = 7;", JS));
    assert!(parses("return await x", JS));
    assert!(!parses("for f in *; do echo \"$f\"; done", JS));
    assert!(parses("let x: number = 1", Language::TypeScript));
    assert!(!parses("let x: number = 1", JS));
}

/// Runs `work` on a thread with a small stack: the front-end must grow its own.
fn on_small_stack<R: Send + 'static>(work: impl FnOnce() -> R + Send + 'static) -> R {
    let thread = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(work);
    thread.expect("spawn").join().expect("no panic")
}

const TOO_DEEP: &str = "nesting is too deep (simplify the expression or split it into statements)";

#[test]
fn deep_nesting_is_a_syntax_error_without_crashing() {
    let n = 120_000;
    let message = on_small_stack(move || js_error(&format!("{}1{}", "(".repeat(n), ")".repeat(n))));
    assert_eq!(message, syntax(1, depth::MAX_DEPTH as u32 - 1, TOO_DEEP));
    assert!(!on_small_stack(move || parses(
        &format!("{}1{}", "[".repeat(n), "]".repeat(n)),
        JS
    )));
}

#[test]
fn sources_over_the_size_limit_are_refused_before_parsing() {
    let source = "x;".repeat(depth::MAX_SOURCE_BYTES / 2 + 1);
    let error = prepare(&source, JS).expect_err("too large");
    assert_eq!(
        error,
        SourceError::TooLarge {
            bytes: source.len(),
            limit: depth::MAX_SOURCE_BYTES
        }
    );
    assert!(error.message(JS).starts_with("code is too large: "));
    assert!(!parses(&source, Language::TypeScript));
}

#[test]
fn the_costliest_shapes_at_the_size_limit_never_overflow_a_small_stack() {
    let fill = |unit: &str, tail: &str| {
        let room = depth::MAX_SOURCE_BYTES - 64;
        format!("{}{tail}", unit.repeat(room / unit.len()))
    };
    let cases = [
        fill("(", "1"),
        fill("[", "1"),
        fill("{a:", "1"),
        fill("f(", "1"),
        fill("`${", ""),
        fill("a=", "1"),
        fill("()=>", "1"),
        fill("{", ""),
        fill("function f(a=", ""),
        format!(
            "let a = 0;\nreturn a++ / {} / 1;",
            "(".repeat(100_000) + "1" + &")".repeat(100_000)
        ),
        format!("x.if(0) / {}1{}", "(".repeat(100_000), ")".repeat(100_000)),
    ];
    // Type arguments in a type: in an expression, a long `A<A<…` chain makes oxc's
    // TypeScript parser try type arguments at every `<`, which is slow, not deep.
    let ts_cases = [
        format!("type T = {}", fill("A<", "1")),
        fill("(", "1"),
        format!("type T = {{}}{}", " extends {} ? 1 : {}".repeat(12_000)),
    ];
    for source in cases {
        let refused = on_small_stack(move || {
            (
                prepare(&source, JS).is_err(),
                prepare(&source, Language::TypeScript).is_err(),
            )
        });
        assert_eq!(refused, (true, true));
    }
    for source in ts_cases {
        assert!(on_small_stack(move || prepare(
            &source,
            Language::TypeScript
        )
        .is_err()));
    }
}

#[test]
fn nesting_just_under_the_limit_is_accepted_on_a_small_stack() {
    let n = depth::MAX_DEPTH / 2 - 10;
    let cases = [
        format!("{}X", "new ".repeat(n)),
        format!("a{}", ".b".repeat(n)),
        format!("x{}", "+x".repeat(n)),
        format!("{}1", "a=".repeat(n)),
        format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        format!("{}{}", "(function(){".repeat(n / 4), "})".repeat(n / 4)),
        format!("{}1{}", "`${".repeat(n / 2), "}`".repeat(n / 2)),
    ];
    for source in cases {
        let (js, ts) = on_small_stack(move || {
            (
                prepare(&source, JS).map(|_| ()),
                prepare(&format!("{source} // require"), Language::TypeScript).map(|_| ()),
            )
        });
        assert_eq!(js, Ok(()));
        assert_eq!(ts, Ok(()));
    }
}

#[test]
fn ordinary_long_code_is_not_refused_as_deep() {
    let array = format!("return [{}];", "1, ".repeat(50_000));
    let lines = "x = x + f(a.b[1]) * 2\nif (x) y = `${x}`\n".repeat(4_000);
    let loops = "for (let i = 0; i < n; i++) { if (a < b && c > d) total += i; }\n".repeat(3_000);
    for source in [array, lines, loops] {
        assert!(source.len() <= depth::MAX_SOURCE_BYTES);
        assert!(parses(&source, JS), "{}", &source[..40]);
    }
}

#[test]
fn garbage_input_never_panics() {
    let mut state = 0x2545_f491_u32;
    for round in 0..300 {
        let bytes: Vec<u8> = (0..round * 7)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                b"({[`'\"/\\*]})$<>=!?:;,.\n\r ax19\xc3\xa9\xff"[(state % 32) as usize]
            })
            .collect();
        let source = String::from_utf8_lossy(&bytes);
        for language in [JS, Language::TypeScript] {
            let _ = prepare(&source, language);
            let _ = parses(&source, language);
        }
    }
}
