// transformTypeScript, exported for hosts (index.d.ts): the same oxc transform cells use,
// with errors returned as data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { native } from './_helpers.mjs';

const { transformTypeScript } = native;

test('types, interfaces and assertions are stripped and the result runs as JavaScript', async () => {
  const r = transformTypeScript(`
    interface Row { id: number; name?: string }
    type Id = Row['id'];
    const rows: Row[] = [{ id: 1 }, { id: 2, name: 'b' }];
    const pick = <T,>(xs: T[], f: (x: T) => boolean): T[] => xs.filter(f);
    const id = (rows[1] as Row).id satisfies Id;
    return pick(rows, (r) => r.id === id!).length;
  `);
  assert.deepEqual(Object.keys(r), ['code']);
  assert.doesNotMatch(r.code, /interface|satisfies|: Row|as Row/);
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  assert.equal(await new AsyncFunction(r.code)(), 1);
});

test('a syntax error is returned as data with its 1-based line and column', () => {
  const r = transformTypeScript('const ok = 1;\nconst bad: = 2;');
  assert.deepEqual(Object.keys(r).sort(), ['column', 'error', 'line']);
  assert.equal(typeof r.error, 'string');
  assert.ok(r.error.length > 0);
  assert.equal(r.line, 2);
  assert.equal(r.column, 12);
});

test('plain JavaScript passes through unchanged in meaning', () => {
  const r = transformTypeScript('const x = [1, 2, 3].map((n) => n * 2); return x;');
  assert.match(r.code, /map\(\(n\) => n \* 2\)/);
});
