//! Unit tests of `typescript`.

use super::*;

/// Output of a cell that must transform.
fn js(lines: &[&str]) -> String {
    match transform_typescript(&lines.join("\n")) {
        Ok(js) => js,
        Err(error) => panic!("{}", error.message(Language::TypeScript)),
    }
}

/// Runs transformed JavaScript as the engine does (the body of an async function) in
/// QuickJS and returns the JSON of its value.
fn run(js: &str) -> String {
    let runtime = rquickjs::Runtime::new().expect("runtime");
    let context = rquickjs::Context::full(&runtime).expect("context");
    context.with(|ctx| {
        let wrapped = format!("(async function () {{\n{js}\n}})().then((v) => JSON.stringify(v))");
        let promise: rquickjs::Promise = ctx.eval(wrapped).expect("the output compiles");
        promise.finish::<String>().expect("the cell settles")
    })
}

fn assert_no_type_syntax(js: &str) {
    for typed in [
        "interface",
        ": number",
        ": string",
        "<T>",
        "satisfies",
        " as ",
        "enum ",
        "namespace",
    ] {
        assert!(!js.contains(typed), "`{typed}` left in:\n{js}");
    }
}

#[test]
fn interfaces_and_annotations_are_erased_and_return_is_kept() {
    let out = js(&[
        "interface Row { id: number }",
        "const row: Row = { id: 1 };",
        "let n: number = row.id;",
        "return n;",
    ]);
    assert_no_type_syntax(&out);
    assert!(out.contains("return n;"));
    assert_eq!(run(&out), "1");
}

#[test]
fn top_level_await_survives_the_transform() {
    let out = js(&[
        "const v: number = await Promise.resolve(41);",
        "return v + 1;",
    ]);
    assert_eq!(run(&out), "42");
}

#[test]
fn enums_become_javascript_objects() {
    let out = js(&[
        "enum Color { Red, Green = 5, Blue }",
        "const enum K { A = 'a' }",
        "return [Color.Blue, Color[5], K.A];",
    ]);
    assert_no_type_syntax(&out);
    assert_eq!(run(&out), r#"[6,"Green","a"]"#);
}

#[test]
fn generics_and_arrow_type_parameters_are_erased() {
    let out = js(&[
        "function id<T>(v: T): T { return v; }",
        "const pair = <A, B>(a: A, b: B): [A, B] => [a, b];",
        "return pair(id<number>(1), id('x'));",
    ]);
    assert_no_type_syntax(&out);
    assert_eq!(run(&out), r#"[1,"x"]"#);
}

#[test]
fn satisfies_and_as_const_are_erased() {
    let out = js(&[
        "const cfg = { a: 1 } satisfies Record<string, number>;",
        "const xs = [1, 2] as const;",
        "return { cfg, n: (xs as readonly number[]).length, s: <string>'k' };",
    ]);
    assert_no_type_syntax(&out);
    assert_eq!(run(&out), r#"{"cfg":{"a":1},"n":2,"s":"k"}"#);
}

#[test]
fn namespaces_become_functions() {
    let out = js(&[
        "namespace Geo {",
        "  export const unit = 'm';",
        "  export function area(w: number) { return w * w; }",
        "}",
        "return Geo.area(3) + Geo.unit;",
    ]);
    assert_no_type_syntax(&out);
    assert_eq!(run(&out), r#""9m""#);
}

#[test]
fn classes_lose_modifiers_and_keep_parameter_properties() {
    let out = js(&[
        "abstract class Base { abstract f(): number; }",
        "class P extends Base {",
        "  private k = 1;",
        "  declare d: string;",
        "  constructor(public x: number) { super(); }",
        "  f() { return this.x + this.k; }",
        "}",
        "return new P(2).f();",
    ]);
    assert_eq!(run(&out), "3");
}

#[test]
fn legacy_decorators_run_with_local_helpers() {
    let out = js(&[
        "'use strict';",
        "const seen: string[] = [];",
        "const tag = (c: any) => { seen.push(c.name); };",
        "const log = (t: any, k: string, d: PropertyDescriptor) => { seen.push(k); return d; };",
        "const arg = (t: any, k: string, i: number) => { seen.push(`${k}#${i}`); };",
        "@tag class Box { @log open(@arg x: number) { return x; } }",
        "return [seen, new Box().open(7)];",
    ]);
    assert!(!out.contains('@') && !out.contains("import"), "{out}");
    assert!(out.starts_with("\"use strict\";"), "{out}");
    assert_eq!(run(&out), r#"[["open#0","open","Box"],7]"#);
}

#[test]
fn typescript_syntax_errors_use_user_ts_positions() {
    let error = transform_typescript("interface A {}\nconst ok: A = {};\nlet y: = 2;").map(|_| ());
    assert_eq!(
        error.map_err(|e| e.message(Language::TypeScript)),
        Err(concat!(
            "SyntaxError at user.ts:3:8: Unexpected token. ",
            "No tools were dispatched; correct the source and submit it again."
        )
        .to_owned())
    );
}

#[test]
fn typescript_module_syntax_is_refused() {
    for source in [
        "import type { A } from './a';",
        "import fs = require('fs');",
        "(require as any)('fs')",
        "require!('fs')",
        "declare function require(m: string): any;\nrequire('fs');",
    ] {
        assert_eq!(
            transform_typescript(source),
            Err(SourceError::ModuleAccess),
            "{source}"
        );
    }
    assert!(matches!(
        transform_typescript("export {};"),
        Err(SourceError::Syntax {
            line: 1,
            column: 1,
            ..
        })
    ));
}

#[test]
fn transform_failures_have_the_documented_shape() {
    let error = transform_typescript("namespace N {\n  export let count = 1;\n}\nreturn N.count;");
    let Err(error @ SourceError::Transform(_)) = error else {
        panic!("{error:?}")
    };
    let message = error.message(Language::TypeScript);
    let expected = "typescript transform failed: Namespaces exporting non-const are not supported";
    assert!(message.starts_with(expected), "{message}");
    assert!(
        message.contains("(user.ts:2:14)") && message.chars().count() < 500,
        "{message}"
    );
}

#[test]
fn deep_typescript_nesting_is_refused_without_crashing() {
    let deep = format!("let x: {}B;", "Array<".repeat(40_000));
    let thread = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || transform_typescript(&deep));
    let result = thread.expect("spawn").join().expect("no panic");
    assert!(matches!(result, Err(SourceError::Syntax { line: 1, .. })));
}
