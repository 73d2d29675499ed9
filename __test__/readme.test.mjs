// Every ```js block of README.md runs as written, each as its own ES module in a child
// process, importing the package by its name. A comment on the line before a block may
// say `<!-- readme-test: skip (why) -->` (it needs a provider's API and key) or
// `<!-- readme-test: given model (…) -->`: the harness below defines `model`, which a
// reader brings from their provider. Everything else a block uses, it defines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

// A mock AI SDK model: it calls exec once, then answers with the result it got.
const GIVEN = {
  model: `import { MockLanguageModelV4 } from "ai/test";
const __usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const __step = (content, unified) => ({ content, finishReason: { unified, raw: unified }, usage: __usage, warnings: [] });
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    const results = prompt.filter((m) => m.role === "tool").flatMap((m) => m.content);
    if (results.length === 0) {
      return __step([{ type: "tool-call", toolCallId: "c1", toolName: "exec", input: JSON.stringify({ code: "return await get_weather({ city: 'Oslo' })" }) }], "tool-calls");
    }
    return __step([{ type: "text", text: JSON.stringify(results.at(-1).output.value) }], "stop");
  },
});
`,
};

// Appended to every block: a run the block's own `result` (or the model's `text`) reports
// as failed fails the test, since exec answers failures as data rather than throwing.
const CHECK = `
if (typeof result !== "undefined" && result?.status === "failed") throw new Error("result failed: " + JSON.stringify(result));
if (typeof text !== "undefined" && /failed/.test(text)) throw new Error("the model saw a failure: " + text);
`;

/** The README's js blocks: `{ line, code, marker }`, marker the comment just before it. */
function blocks(text) {
  const lines = text.split('\n');
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```js') continue;
    const end = lines.indexOf('```', i + 1);
    const marker = /<!-- readme-test: (.*) -->/.exec(lines[i - 1] ?? '')?.[1];
    found.push({ line: i + 1, code: lines.slice(i + 1, end).join('\n'), marker });
    i = end;
  }
  return found;
}

const all = blocks(readme);

test('the README has js blocks, and most of them run', () => {
  assert.ok(all.length >= 5, `${all.length} blocks`);
  const skipped = all.filter((b) => b.marker?.startsWith('skip'));
  assert.ok(skipped.length * 2 < all.length, `${skipped.length} of ${all.length} skipped`);
});

for (const block of all) {
  const skip = block.marker?.startsWith('skip') ? block.marker : false;
  test(`README.md line ${block.line}: the js block runs as written`, { skip }, async () => {
    const given = /^given (\w+(?:, \w+)*)/.exec(block.marker ?? '')?.[1].split(', ') ?? [];
    for (const name of given) assert.ok(name in GIVEN, `the harness has no ${name}`);
    // Inside the package, so `codemode-native` resolves to it by its own name.
    const dir = mkdtempSync(path.join(root, '.readme-'));
    try {
      const file = path.join(dir, `line-${block.line}.mjs`);
      writeFileSync(file, given.map((name) => GIVEN[name]).join('\n') + block.code + CHECK);
      const { stderr } = await promisify(execFile)(process.execPath, [file], { cwd: root, timeout: 180_000 });
      assert.doesNotMatch(stderr, /Error/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
