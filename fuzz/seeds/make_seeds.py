#!/usr/bin/env python3
"""Writes the hand-made seed inputs of each fuzz target into fuzz/corpus/<target>/.

Run from the repository root: python3 fuzz/seeds/make_seeds.py. Seeds are named
seed-<target>-<n>; inputs the fuzzer found keep libFuzzer's hash names.
"""
import json
import os
import random

ROOT = os.path.join(os.path.dirname(__file__), "..", "corpus")

def write(target, items):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    for i, data in enumerate(items):
        if isinstance(data, str):
            data = data.encode("utf-8")
        with open(os.path.join(d, f"seed-{i:03}"), "wb") as f:
            f.write(data)

CODE = b"\x02"  # code given, command absent, language absent, restartSafe true
SOURCES = [
    "", "return 7;", "ls('x')", "ls = 7", "value || fallback", "value > limit",
    "ls -1; function ls() {}", 'const r = await exec({ command: "ls" }); return r;',
    "// shell: ls /x\nreturn 7;", "export const answer = 7;",
    "ls", "ls -la /workspace", "pwd;", "#!/usr/bin/env bash\nls", "pwd && ls /x", "echo hello",
    "cat a | grep b", "ls > out 2>&1", "/bin/ls /x", "./gradlew test", "sh -c 'ls'",
    "export FOO=bar", "NODE_ENV=test npm test", "git status", "if [ -d /x ]; then pwd; fi",
    'for f in *; do echo "$f"; done', "jq . f.json", "custom-tool --format=json",
    "import fs from 'fs';", "await import('fs')", "return import.meta.url", "require('fs')",
    "require?.('fs')", "(require)('fs')", "(0, require)('fs')", "r\\u0065quire('fs')",
    "new require('fs')", "require`fs`", "const require = (x) => x; return require('a');",
    "api.import(x)", "obj.require(x)", "api['require'](x)",
    "return 'require(\"fs\") and import(\"x\")';", "return `import ${'require'}(x)`;",
    "const a;\nrequire('fs');", "1 = 2; require('x')", "foo(;",
    "const x = 1;\nconst y = 2;\nconst = ;", "const s = 'héllo';\nconst t = '😀'; x +* 2",
    "a\r\nb\rc\u2028d\ne +", "const a = 1;\r\n  export { a };", "const a;\nx = '\\u{zz}';",
    "enum Color { Red, Green }\nreturn Color.Green;",
    "namespace A.B { export const x = 1 }\nreturn A.B.x;",
    "class P { constructor(private x: number) {} }\nreturn new P(1);",
    "function id<T>(x: T): T { return x }\nreturn id<number>(1) satisfies number;",
    "@dec class C {}\nfunction dec(c: any) { return c }",
    "declare function require(x: string): any;\nrequire('x')",
    "import x = require('y')", "let x: number = 'a' as any as number;\nreturn x!;",
    "(" * 800, "[" * 50 + "]" * 50, "`${" * 30 + "1" + "}`" * 30, "a" + "+a" * 500,
    "/* unterminated", "'unterminated\n", "return /re[/]gex/.test(x)", "<div>", "x =>",
    "for await (const y of z) {}", "label: for (;;) break label;",
]

def front_end():
    items = [CODE + s.encode("utf-8") for s in SOURCES]
    # Other exec-input shapes over a few sources.
    for shape in [0x00, 0x01, 0x0A, 0x0E, 0x52, 0x62, 0x72, 0x82, 0x33]:
        items.append(bytes([shape]) + b"return 1")
    return items

JSON_TEXTS = [
    "null", "true", "0", "-0", "1e21", "1.5e-7", "18446744073709551615", "-9223372036854775808",
    "0.30000000000000004", '"a\\u0000b\\u2028\\ud83d\\ude00"', '"\\/\\b\\f\\n\\r\\t"', "[]", "{}",
    '{"b":1,"a":2,"1":3,"0":4}', '{"__proto__":{"x":1},"constructor":2}', '{"a":1,"a":2}',
    "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]", '{"a":[1,{"b":[null,true,"x"]}]}',
    " [1 , 2 ] ", '"' + "é" * 50 + '"', "123456789012345678901234567890",
]

def json_bridge():
    items = [b"\x00" + t.encode("utf-8") for t in JSON_TEXTS]
    rng = random.Random(8)
    for n in range(40):
        items.append(bytes([1 + n % 3]) + bytes(rng.randrange(256) for _ in range(rng.randrange(4, 60))))
    return items

SCHEMAS = [
    {"type": "object", "required": ["z", "b"], "properties": {"a": {"type": "string"}, "z": {"type": "boolean"}, "b": {"type": "null"}}},
    {"type": "object", "additionalProperties": False, "required": ["items"], "properties": {"items": {"type": "array", "items": {"type": "object", "additionalProperties": False, "required": ["id"], "properties": {"id": {"type": "string"}}}}}},
    {"type": "object", "additionalProperties": False, "properties": {"mode": {"enum": ["fast", "slow", 3, None]}, "kind": {"const": "x"}}},
    {"type": "object", "properties": {"offset": {"type": "integer", "minimum": 1}, "limit": {"type": "number", "maximum": 100}, "old": {"type": "integer", "minimum": 0, "exclusiveMinimum": True}}},
    {"type": ["string", "null"], "nullable": True},
    {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "number"}}]},
    {"allOf": [{"type": ["string", "null"]}, {"minLength": 1}]},
    {"type": "object", "additionalProperties": False, "properties": {"a-b": {"type": "string"}, "x\ny\u2028": {"type": "string"}, "*/": {"const": "*/"}}},
    {"$ref": "#/$defs/x"}, True, False, 42, "object", None, [1, 2], {"type": 42}, {"type": []},
    {"type": "object", "properties": "x", "required": "a"}, {"enum": "x"}, {"enum": [[1], {"a": 1}]},
    {"type": "array", "items": [{"type": "string"}]},
    {"type": "object", "properties": {("p%02d" % i): {"type": "string", "description": "d */ x"} for i in range(40)}},
    {"type": "object", "properties": {"n": {"type": "number", "minimum": -1e300, "maximum": 1.5e-7}}},
]

def schema_render():
    items = [b"\x00" + json.dumps(s).encode("utf-8") for s in SCHEMAS]
    rng = random.Random(4)
    for n in range(40):
        items.append(bytes([1 + n % 3]) + bytes(rng.randrange(256) for _ in range(rng.randrange(8, 120))))
    return items

def random_items(seed, count, lo, hi):
    rng = random.Random(seed)
    return [bytes(rng.randrange(256) for _ in range(rng.randrange(lo, hi))) for _ in range(count)]

write("front_end", front_end())
write("json_bridge", json_bridge())
write("schema_render", schema_render())
write("search", random_items(5, 40, 8, 200))
write("output_budget", random_items(6, 40, 8, 300))
