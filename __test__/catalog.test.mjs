// Catalog, callable names, quick index, search, describe, API files, contracts, hooks,
// telemetry, trajectory and events (docs/contract.md: Catalog and search, Guest runtime,
// Bridge, Tool calls and ids, Output budget, Telemetry and trajectory; index.d.ts).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { makeSession, closeAll, run, show, sleep, utf8Length, eventually, deferred } from './_helpers.mjs';

after(closeAll);

const INDEX_HEADING = 'Tool index';
const hex8 = (s) => createHash('sha256').update(s).digest('hex').slice(0, 8);

async function completed(session, code, options) {
  const r = await run(session, code, options);
  assert.equal(r.status, 'completed', show(r));
  return r;
}

/** The quick-index part of the exec description: from its heading to the end. */
function quickIndex(session) {
  const description = session.modelTools()[0].description;
  const at = description.indexOf(INDEX_HEADING);
  assert.ok(at >= 0, `exec description has no "${INDEX_HEADING}" heading:\n${description}`);
  return description.slice(at);
}

const indexLines = (index) => index.split('\n').filter((line) => line.startsWith('- '));

// ---------- callable names ----------

const NAME_TOOLS = ['sessions_spawn', 'llm-task', 'llm_task', 'catalog', 'MCP', 'class', 'delete', '9patch', '1password']
  .map((name) => ({ name, execute: () => name }));

async function nameTable(tools = NAME_TOOLS) {
  const s = makeSession({ tools });
  const r = await completed(s, 'return catalog.all().map((h) => [h.toolName, h.callableName])');
  return r.value;
}

test('callable names follow the sanitising, reservation and suffix rules', async () => {
  const table = await nameTable();
  const byTool = new Map(table);
  assert.equal(table.length, NAME_TOOLS.length, JSON.stringify(table));
  assert.equal(byTool.get('sessions_spawn'), 'sessions_spawn');
  const llm = [byTool.get('llm-task'), byTool.get('llm_task')];
  assert.equal(llm.filter((n) => n === 'llm_task').length, 1, `exactly one keeps llm_task: ${JSON.stringify(llm)}`);
  assert.equal(llm.filter((n) => /^llm_task_[0-9a-f]{8}$/.test(n)).length, 1, `the other is suffixed: ${JSON.stringify(llm)}`);
  for (const name of ['catalog', 'MCP', 'class', 'delete']) {
    assert.match(byTool.get(name), new RegExp(`^${name}_[0-9a-f]{8}$`), `${name} → ${byTool.get(name)}`);
  }
  assert.equal(byTool.get('9patch'), 'tool_9patch');
  assert.equal(byTool.get('1password'), 'tool_1password');
});

test('an exact safe name wins its unsuffixed spelling over a sanitised clash', async () => {
  const byTool = new Map(await nameTable());
  assert.equal(byTool.get('llm_task'), 'llm_task');
  assert.match(byTool.get('llm-task'), /^llm_task_[0-9a-f]{8}$/);
});

test('the reserved-name suffix is the first 8 hex chars of sha256 of the host id', async () => {
  const byTool = new Map(await nameTable());
  for (const name of ['llm-task', 'catalog', 'MCP', 'class', 'delete']) {
    const base = name.replace(/[^A-Za-z0-9_$]/g, '_');
    assert.equal(byTool.get(name), `${base}_${hex8(name)}`, name);
  }
});

test('callable names are deterministic across two sessions', async () => {
  const [a, b] = await Promise.all([nameTable(), nameTable()]);
  assert.deepEqual(a, b);
});

test('a suffixed callable name is the guest global that calls its tool', async () => {
  const s = makeSession({ tools: NAME_TOOLS });
  const r = await completed(s, `const h = catalog.all().find((x) => x.toolName === "delete");
    return [h.callableName, typeof globalThis[h.callableName], globalThis[h.callableName] === h, await h()]`);
  assert.match(r.value[0], /^delete_[0-9a-f]{8}$/);
  assert.deepEqual(r.value.slice(1), ['function', true, 'delete']);
});

// ---------- eligibility ----------

test('a host tool named exec is cataloged and callable as the guest global exec()', async () => {
  let seen;
  const s = makeSession({ tools: [{ name: 'exec', description: 'shell', execute: (input) => { seen = input; return { stdout: 'file.txt\n' }; } }] });
  const r = await completed(s, 'const r = await exec({ command: "ls" }); return [r, catalog.all().map((h) => h.callableName)];');
  assert.deepEqual(r.value, [{ stdout: 'file.txt\n' }, ['exec']]);
  assert.deepEqual(seen, { command: 'ls' });
});

test('tools named wait or tool_search are never cataloged', async () => {
  const s = makeSession({ tools: ['wait', 'tool_search', 'kept'].map((name) => ({ name, execute: () => 1 })) });
  const r = await completed(s, 'return [catalog.all().map((h) => h.toolName), typeof tool_search]');
  assert.deepEqual(r.value, [['kept'], 'undefined']);
  assert.equal(s.telemetry().catalogSize, 1);
});

test('directOnly tools are absent from the catalog and model-visible after exec and wait', async () => {
  const s = makeSession({
    tools: [
      { name: 'cataloged', execute: () => 1 },
      { name: 'direct_a', directOnly: true, description: 'direct A', parameters: { type: 'object' }, execute: () => 'a' },
      { name: 'direct_b', directOnly: true, description: 'direct B', execute: () => 'b' },
    ],
  });
  const r = await completed(s, 'return [catalog.all().map((h) => h.toolName), typeof direct_a, typeof direct_b]');
  assert.deepEqual(r.value, [['cataloged'], 'undefined', 'undefined']);
  assert.deepEqual(r.telemetry.visibleTools, ['exec', 'wait', 'direct_a', 'direct_b']);
  assert.deepEqual(s.telemetry().visibleTools, ['exec', 'wait', 'direct_a', 'direct_b']);
  assert.deepEqual(s.modelTools().map((t) => t.name), ['exec', 'wait', 'direct_a', 'direct_b']);
  assert.equal(s.telemetry().catalogSize, 1);
});

// ---------- modelTools and the quick index ----------

function findKeys(value, keys, path = '$', hits = []) {
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (keys.includes(k)) hits.push(`${path}.${k}`);
      findKeys(v, keys, `${path}.${k}`, hits);
    }
  }
  return hits;
}

test('modelTools() is exec, wait, then the directOnly tools', () => {
  const s = makeSession({ tools: [{ name: 'x', execute: () => 1 }, { name: 'd1', directOnly: true, execute: () => 1 }] });
  const tools = s.modelTools();
  assert.deepEqual(tools.map((t) => t.name), ['exec', 'wait', 'd1']);
  for (const t of tools) {
    assert.equal(typeof t.description, 'string');
    assert.equal(typeof t.parameters, 'object');
  }
});

test('the exec schema has a flat language enum and no oneOf or anyOf anywhere', () => {
  const s = makeSession();
  const [exec, wait] = s.modelTools();
  const { properties, required } = exec.parameters;
  assert.equal(exec.parameters.type, 'object');
  assert.deepEqual(required, ['code']);
  assert.equal(properties.code.type, 'string');
  assert.equal(properties.language.type, 'string');
  assert.deepEqual(properties.language.enum, ['javascript', 'typescript']);
  assert.equal(properties.restartSafe.type, 'boolean');
  assert.deepEqual(findKeys(exec.parameters, ['oneOf', 'anyOf']), []);
  assert.deepEqual(wait.parameters.required, ['runId']);
  assert.equal(wait.parameters.properties.runId.type, 'string');
});

test('the exec description lists every callable name of a 72-tool catalog', () => {
  const names = Array.from({ length: 72 }, (_, i) => `alpha_tool_${i}`);
  const s = makeSession({ tools: names.map((name) => ({ name, execute: () => 1 })) });
  const description = s.modelTools()[0].description;
  const missing = names.filter((n) => !indexLines(quickIndex(s)).some((line) => line.startsWith(`- ${n} `)));
  assert.deepEqual(missing, []);
  for (const n of names) assert.ok(description.includes(n), n);
});

function longTools(n) {
  return Array.from({ length: n }, (_, i) => ({
    name: `integration_${String(i).padStart(3, '0')}_with_a_rather_long_descriptive_tool_name_suffix`,
    description: `tool number ${i}`,
    parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', maximum: 100 } }, required: ['query'] },
    execute: () => i,
  }));
}

test('the quick index of 500 long-named tools stays within 8,000 characters with a catalog.search footer', () => {
  const s = makeSession({ tools: longTools(500) });
  const index = quickIndex(s);
  assert.ok(index.length <= 8000, `quick index is ${index.length} characters`);
  const lines = indexLines(index);
  assert.ok(lines.length > 0 && lines.length < 500, `${lines.length} tool lines`);
  const footer = index.slice(index.lastIndexOf(lines[lines.length - 1]) + lines[lines.length - 1].length);
  assert.ok(footer.includes('catalog.search(query)'), `footer: ${JSON.stringify(footer)}`);
  assert.ok(footer.includes(String(500 - lines.length)), `the footer says how many were omitted (${500 - lines.length}): ${JSON.stringify(footer)}`);
});

test('the exec description for 500 tools is identical across two sessions', () => {
  const a = makeSession({ tools: longTools(500) });
  const b = makeSession({ tools: longTools(500) });
  assert.equal(a.modelTools()[0].description, b.modelTools()[0].description);
  assert.deepEqual(a.modelTools(), b.modelTools());
});

test('a tool with a complete outputSchema is listed first with its output hint, others with -> ?', () => {
  const s = makeSession({
    tools: [
      { name: 'aaa_plain', execute: () => 1 },
      {
        name: 'zzz_typed',
        outputSchema: {
          type: 'object',
          properties: { n: { type: 'number' }, items: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false } } },
          required: ['n'],
          additionalProperties: false,
        },
        execute: () => ({ n: 1 }),
      },
      { name: 'mmm_open', outputSchema: { type: 'object', properties: { n: { type: 'number' } } }, execute: () => ({ n: 1 }) },
    ],
  });
  const lines = indexLines(quickIndex(s));
  assert.equal(lines.length, 3, lines.join('\n'));
  assert.match(lines[0], /^- zzz_typed .* -> \{ .* \}$/, lines[0]);
  assert.equal(lines.find((l) => l.startsWith('- aaa_plain '))?.endsWith(' -> ?'), true, lines.join('\n'));
  assert.equal(lines.find((l) => l.startsWith('- mmm_open '))?.endsWith(' -> ?'), true, `an open output object gets no hint:\n${lines.join('\n')}`);
});

test('integer bounds appear as a comment in the input hint', () => {
  const s = makeSession({
    tools: [{
      name: 'paged',
      parameters: { type: 'object', properties: { offset: { type: 'integer', minimum: 1 }, q: { type: 'string' } }, required: ['q'], additionalProperties: false },
      execute: () => 1,
    }],
  });
  const line = indexLines(quickIndex(s)).find((l) => l.startsWith('- paged '));
  assert.ok(line, quickIndex(s));
  assert.ok(line.includes('offset?: number /* integer, >= 1 */'), line);
  assert.ok(line.includes('q: string'), line);
});

test('addTools() refreshes the description and keeps counterScope', async () => {
  const s = makeSession({ tools: [{ name: 'first_tool', execute: () => 1 }] });
  await completed(s, 'await first_tool(); await catalog.search("first")');
  const before = s.telemetry();
  assert.ok(!s.modelTools()[0].description.includes('added_later'));
  s.addTools([{ name: 'added_later', source: 'client', execute: () => 'late' }]);
  const afterAdd = s.telemetry();
  assert.ok(s.modelTools()[0].description.includes('added_later'), s.modelTools()[0].description);
  assert.equal(afterAdd.counterScope, before.counterScope);
  assert.equal(afterAdd.callCount, before.callCount);
  assert.equal(afterAdd.searchCount, before.searchCount);
  assert.equal(afterAdd.catalogSize, 2);
});

test('a tool added with addTools() runs its own execute', async () => {
  const s = makeSession({ tools: [{ name: 'first_tool', execute: () => 'first' }] });
  s.addTools([{ name: 'added_later', source: 'client', execute: () => 'late' }]);
  const r = await completed(s, 'return [await added_later(), await first_tool(), catalog.all().map((h) => h.toolName)]');
  assert.deepEqual(r.value, ['late', 'first', ['first_tool', 'added_later']]);
  assert.equal(r.nestedCalls?.[0]?.toolName, 'added_later');
});

// ---------- guest surface ----------

const SURFACE_TOOLS = [
  { name: 'send_email', label: 'Send email', description: 'Send an email message to a recipient', parameters: { type: 'object', properties: { to: { type: 'string' } } }, execute: () => 'sent' },
  { name: 'email_digest', description: 'Summarise the email inbox', execute: () => 'digest' },
  { name: 'get_weather', description: 'Weather forecast for a city', execute: () => 'sunny' },
  { name: 'llm-task', description: 'Run a language model task', execute: () => 'llm' },
];

test('tool globals are frozen functions with enumerable metadata', async () => {
  const s = makeSession({ tools: SURFACE_TOOLS });
  const r = await completed(s, `const h = send_email;
    const keys = ["callableName", "toolName", "description", "source", "input"];
    return { type: typeof h, frozen: Object.isFrozen(h), enumerable: keys.filter((k) => Object.prototype.propertyIsEnumerable.call(h, k)),
      values: keys.map((k) => h[k]), writable: (() => { try { h.toolName = "x"; } catch (e) {} return h.toolName })(),
      global: (() => { const d = Object.getOwnPropertyDescriptor(globalThis, "send_email");
        // Tool globals are lazy getters without a setter: as non-writable as a data property.
        send_email = 1; return [d.set === undefined && d.writable !== true, d.configurable, send_email === h] })() }`);
  assert.deepEqual(r.value, {
    type: 'function',
    frozen: true,
    enumerable: ['callableName', 'toolName', 'description', 'source', 'input'],
    values: ['send_email', 'send_email', 'Send an email message to a recipient', 'core', r.value.values[4]],
    writable: 'send_email',
    global: [true, false, true],
  });
  assert.equal(typeof r.value.values[4], 'string');
});

test('catalog.search returns the same handle objects as the globals', async () => {
  const s = makeSession({ tools: SURFACE_TOOLS });
  const r = await completed(s, `const found = await catalog.search("weather forecast");
    return [found[0] === get_weather, Object.isFrozen(found), Array.isArray(found), await found[0]()]`);
  assert.deepEqual(r.value, [true, true, true, 'sunny']);
});

test('an exact tool or callable name search returns exactly that one tool', async () => {
  const s = makeSession({ tools: SURFACE_TOOLS });
  const r = await completed(s, `const a = await catalog.search("send_email");
    const b = await catalog.search("SEND_EMAIL");
    const c = await catalog.search("llm-task");
    const d = await catalog.search("llm_task");
    return [a.length, a[0] === send_email, b.length, b[0] === send_email, c.length, c[0] === llm_task, d.length, d[0] === llm_task]`);
  assert.deepEqual(r.value, [1, true, 1, true, 1, true, 1, true]);
});

function catalog200() {
  const noise = Array.from({ length: 197 }, (_, i) => ({
    name: `widget_${String(i).padStart(3, '0')}_ops`,
    description: `Manage widget ${i} records: create, update, archive and list them`,
    parameters: { type: 'object', properties: { id: { type: 'string', description: 'widget id' } } },
    execute: () => i,
  }));
  return [
    ...noise.slice(0, 90),
    { name: 'sms_send', description: 'Send an SMS text message to a phone number', execute: () => 'sms' },
    { name: 'mail_dispatch', description: 'Send an email to one or more recipients', parameters: { type: 'object', properties: { to: { type: 'string', description: 'recipient address' }, subject: { type: 'string' } } }, execute: () => 'mailed' },
    { name: 'inbox_list', description: 'List messages in the inbox', execute: () => 'list' },
    ...noise.slice(90),
  ];
}

test('on a 200-tool catalog "send email" ranks the email tool first', async () => {
  const s = makeSession({ tools: catalog200() });
  assert.equal(s.telemetry().catalogSize, 200);
  const r = await completed(s, 'const found = await catalog.search("send email"); return [found.map((h) => h.toolName), found[0] === mail_dispatch]');
  assert.equal(r.value[0][0], 'mail_dispatch', JSON.stringify(r.value[0]));
  assert.equal(r.value[1], true);
});

test('catalog.search rejects a non-string query', async () => {
  const s = makeSession({ tools: SURFACE_TOOLS });
  const r = await completed(s, `const results = [];
    for (const q of [5, null, undefined, { q: "x" }]) {
      const p = catalog.search(q);
      results.push([p instanceof Promise, await p.then(() => "resolved", (e) => e.message)]);
    }
    return results`);
  assert.deepEqual(r.value, Array(4).fill([true, 'search query must be a string.']));
});

test('catalog.search rejects a limit that is not a positive integer', async () => {
  const s = makeSession({ tools: SURFACE_TOOLS });
  const r = await completed(s, `const out = [];
    for (const limit of [0, 1.5, -1, "3", NaN]) out.push(await catalog.search("email", { limit }).then(() => "resolved", (e) => e.message));
    return out`);
  assert.deepEqual(r.value, Array(5).fill('limit must be a positive integer.'));
});

test('catalog.search clamps a huge limit to maxSearchLimit and defaults to searchDefaultLimit', async () => {
  const s = makeSession({ tools: catalog200() });
  const r = await completed(s, 'return [(await catalog.search("widget records", { limit: 100000 })).length, (await catalog.search("widget records")).length]');
  assert.ok(r.value[0] <= 50, `huge limit gave ${r.value[0]} results`);
  assert.equal(r.value[0], 50, 'with 197 matching tools the clamp is exactly maxSearchLimit (50)');
  assert.equal(r.value[1], 8, 'default limit is searchDefaultLimit (8)');
});

test('catalog.search with no match resolves to an empty array', async () => {
  const s = makeSession({ tools: SURFACE_TOOLS });
  const r = await completed(s, 'const f = await catalog.search("zzqxv nonexistentterm"); return [Array.isArray(f), f.length]');
  assert.deepEqual(r.value, [true, 0]);
});

test('JSON.stringify(catalog.all()) gives metadata and increments no counter', async () => {
  const s = makeSession({ tools: SURFACE_TOOLS });
  const before = s.telemetry();
  const r = await completed(s, 'return [JSON.parse(JSON.stringify(catalog.all())), JSON.parse(JSON.stringify(send_email))]');
  const [all, one] = r.value;
  assert.equal(all.length, SURFACE_TOOLS.length);
  assert.deepEqual(all.map((m) => [m.toolName, m.callableName, m.source]), [
    ['send_email', 'send_email', 'core'],
    ['email_digest', 'email_digest', 'core'],
    ['get_weather', 'get_weather', 'core'],
    ['llm-task', 'llm_task', 'core'],
  ]);
  assert.equal(all[0].description, 'Send an email message to a recipient');
  assert.equal(all[0].label, 'Send email');
  assert.deepEqual(one, all[0]);
  for (const key of ['searchCount', 'describeCount', 'callCount']) {
    assert.equal(r.telemetry[key], before[key], key);
  }
  assert.deepEqual(r.nestedCalls ?? [], []);
});

test('describe() returns the full tool shape and counters track describe, search and call', async () => {
  const s = makeSession({ tools: SURFACE_TOOLS });
  const t0 = s.telemetry();
  assert.deepEqual([t0.describeCount, t0.searchCount, t0.callCount], [0, 0, 0]);
  const r = await completed(s, 'const d = await send_email.describe(); await catalog.search("weather"); await catalog.search("email"); await get_weather(); return d');
  assert.equal(r.value.name, 'send_email');
  assert.equal(r.value.callableName, 'send_email');
  assert.equal(r.value.label, 'Send email');
  assert.equal(r.value.description, 'Send an email message to a recipient');
  assert.equal(r.value.source, 'core');
  assert.equal(typeof r.value.input, 'string');
  assert.deepEqual(r.value.parameters, SURFACE_TOOLS[0].parameters);
  assert.equal([r.telemetry.describeCount, r.telemetry.searchCount, r.telemetry.callCount].join(), '1,2,1');
  const r2 = await completed(s, 'await llm_task.describe(); return 1');
  assert.equal([r2.telemetry.describeCount, r2.telemetry.searchCount, r2.telemetry.callCount].join(), '2,2,1', 'counters are cumulative');
});

test('the runtime internals are unreachable from guest code, so no handle can be forged', async () => {
  let ran = 0;
  const s = makeSession({ tools: [{ name: 'known', execute: () => { ran++; return 'k'; } }] });
  const probe = await completed(s, `const seen = [];
    for (const key of Reflect.ownKeys(globalThis)) {
      let v; try { v = globalThis[key] } catch { continue }
      if (v && (typeof v.installTools === "function" || typeof v.settle === "function" || typeof v.watch === "function")) seen.push(String(key));
    }
    return [seen, typeof __codemode]`);
  assert.deepEqual(probe.value, [[], 'undefined']);
  assert.equal(ran, 0);
  assert.equal(probe.telemetry.callCount, 0);
});

test('guest code cannot settle its own pending tool call with a forged result', async () => {
  const s = makeSession({ tools: [{ name: 'known', execute: async () => { await sleep(20); return 'real'; } }] });
  const r = await completed(s, `const p = known();
    for (const n of Object.getOwnPropertyNames(globalThis)) {
      let v; try { v = globalThis[n] } catch { continue }
      if (v && typeof v.settle === "function") { try { v.settle(1, true, '"forged"') } catch {} }
    }
    return await p`);
  assert.equal(r.value, 'real');
});

// ---------- API virtual files ----------

const API_TOOLS = [
  { name: 'café_lookup', description: 'Cherche un café ☕ — résultat', parameters: { type: 'object', properties: { q: { type: 'string', description: 'requête ☕' } }, required: ['q'] }, execute: () => 1 },
  { name: 'plain', execute: () => 1 },
  { name: 'llm-task', execute: () => 1 },
];

test('API.list() lists tools/<callable>.d.ts with bytes equal to the UTF-8 length of the content', async () => {
  const s = makeSession({ tools: API_TOOLS });
  const r = await completed(s, `const { files } = API.list();
    return files.map((f) => { const read = API.read(f.path); return { path: f.path, bytes: f.bytes, readBytes: read.bytes, content: read.content, readPath: read.path } })`);
  const callables = (await completed(s, 'return catalog.all().map((h) => h.callableName)')).value;
  assert.deepEqual(r.value.map((f) => f.path).sort(), callables.map((c) => `tools/${c}.d.ts`).sort());
  for (const f of r.value) {
    assert.equal(f.bytes, utf8Length(f.content), `${f.path}: list bytes`);
    assert.equal(f.readBytes, utf8Length(f.content), `${f.path}: read bytes`);
    assert.equal(f.readPath, f.path);
    const callable = f.path.slice('tools/'.length, -'.d.ts'.length);
    assert.ok(f.content.includes(`declare function ${callable}(`), f.content);
  }
});

test('API.read drops a leading slash', async () => {
  const s = makeSession({ tools: API_TOOLS });
  const r = await completed(s, 'const a = API.read("/tools/plain.d.ts"); const b = API.read("tools/plain.d.ts"); return [a.path, a.content === b.content, a.bytes]');
  assert.equal(r.value[0], 'tools/plain.d.ts');
  assert.equal(r.value[1], true);
  assert.equal(typeof r.value[2], 'number');
});

test('API.read rejects paths with empty, . or .. segments', async () => {
  const s = makeSession({ tools: API_TOOLS });
  const r = await completed(s, `const out = [];
    for (const p of ["tools/../x", "tools//plain.d.ts", "./tools/plain.d.ts", "tools/./plain.d.ts", ".."]) {
      try { API.read(p); out.push("read"); } catch (e) { out.push(e.message); }
    }
    return out`);
  assert.deepEqual(r.value, Array(5).fill('invalid API file path'));
});

test('API.read of an unknown file names the path', async () => {
  const s = makeSession({ tools: API_TOOLS });
  const r = await completed(s, 'try { API.read("tools/nope.d.ts"); return "read" } catch (e) { return e.message }');
  assert.equal(r.value, 'Unknown API file: tools/nope.d.ts');
});

// ---------- contracts ----------

test('an input that violates parameters rejects with input_contract and never runs execute', async () => {
  let ran = 0;
  const s = makeSession({
    tools: [{ name: 'strict', parameters: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] }, execute: () => { ran++; return 1; } }],
  });
  const r = await completed(s, 'try { await strict({ a: "x" }); return "no throw" } catch (e) { return { isErr: e instanceof Error, code: e.code, effectStatus: e.effectStatus, message: e.message } }');
  assert.equal(r.value.isErr, true);
  assert.equal(r.value.code, 'input_contract');
  assert.equal(r.value.effectStatus, 'unknown');
  assert.equal(typeof r.value.message, 'string');
  assert.equal(ran, 0);
  const ok = await completed(s, 'return await strict({ a: 3 })');
  assert.equal(ok.value, 1);
  assert.equal(ran, 1);
});

test('a result that violates outputSchema rejects with output_contract without printing the value', async () => {
  const s = makeSession({
    tools: [{
      name: 'badout',
      outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false },
      execute: () => ({ n: 'SECRET-VALUE-9f3' }),
    }],
  });
  const r = await completed(s, 'try { await badout(); return "no throw" } catch (e) { return { code: e.code, message: e.message } }');
  assert.deepEqual(r.value, { code: 'output_contract', message: 'Tool "badout" returned details that do not match its declared outputSchema.' });
  assert.ok(!JSON.stringify(r).includes('SECRET-VALUE-9f3'), 'the offending value appears nowhere in the result');
});

test('an invalid outputSchema throws at construction with its path', () => {
  assert.throws(
    () => makeSession({ tools: [{ name: 'badschema', outputSchema: { type: 12 }, execute: () => 1 }] }),
    (e) => e.code === 'invalid_input' && e.message.startsWith('tools[0].outputSchema is not a valid JSON Schema: '),
  );
});

test('client tools skip both contracts and show input unknown in metadata', async () => {
  let seen;
  const s = makeSession({
    tools: [{
      name: 'cli',
      source: 'client',
      parameters: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] },
      outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false },
      execute: (input) => { seen = input; return { n: 'not a number' }; },
    }],
  });
  const r = await completed(s, 'return [await cli({ a: "x" }), cli.input, cli.source, "output" in cli && cli.output != null]');
  assert.deepEqual(r.value, [{ n: 'not a number' }, 'unknown', 'client', false]);
  assert.deepEqual(seen, { a: 'x' });
  const index = indexLines(quickIndex(s)).find((l) => l.startsWith('- cli '));
  assert.equal(index, '- cli unknown -> ?');
  assert.deepEqual(s.telemetry().sources, { core: 0, openclaw: 0, mcp: 0, client: 1 });
});

// ---------- beforeToolCall ----------

test('beforeToolCall can block a call and execute never runs', async () => {
  let ran = 0;
  const s = makeSession({
    beforeToolCall: (call) => (call.toolName === 'guarded' ? { block: 'policy says no' } : undefined),
    tools: [{ name: 'guarded', execute: () => { ran++; return 1; } }],
  });
  const r = await completed(s, 'try { await guarded({ a: 1 }); return "no throw" } catch (e) { return { isErr: e instanceof Error, message: e.message, effectStatus: e.effectStatus, code: typeof e.code } }');
  assert.deepEqual(r.value, { isErr: true, message: 'Tool "guarded" was blocked before execution: policy says no', effectStatus: 'unknown', code: 'string' });
  assert.equal(ran, 0);
});

test('beforeToolCall can rewrite the input execute receives', async () => {
  let seen;
  const s = makeSession({
    beforeToolCall: async (call) => ({ input: { ...call.input, rewritten: true } }),
    tools: [{ name: 'target', execute: (input) => { seen = input; return input; } }],
  });
  const r = await completed(s, 'return await target({ q: "orig" })');
  assert.deepEqual(seen, { q: 'orig', rewritten: true });
  assert.deepEqual(r.value, { q: 'orig', rewritten: true });
});

test('beforeToolCall receives toolName, callableName, input and callId', async () => {
  const hooks = [];
  let ctx;
  const s = makeSession({
    beforeToolCall: (call) => { hooks.push(call); },
    tools: [{ name: 'llm-task', execute: (input, c) => { ctx = c; return 'ok'; } }],
  });
  await completed(s, 'return await llm_task({ prompt: "hi", n: [1, 2] })');
  assert.equal(hooks.length, 1);
  assert.deepEqual(hooks[0], { toolName: 'llm-task', callableName: 'llm_task', input: { prompt: 'hi', n: [1, 2] }, callId: ctx.callId });
});

// ---------- nested result bound ----------

test('a nested result larger than maxOutputBytes reaches the guest as the truncation marker', async () => {
  const s = makeSession({ limits: { maxOutputBytes: 2048 }, tools: [{ name: 'big', execute: () => 'x'.repeat(10000) }] });
  const r = await completed(s, 'const v = await big(); return [typeof v, v.truncated, Object.keys(v), v.guidance, v.omittedBytes > 0, typeof v.prefix]');
  assert.deepEqual(r.value, ['object', true, ['truncated', 'omittedBytes', 'guidance', 'prefix'], 'Output truncated; rerun with narrower args.', true, 'string']);
});

// ---------- queueing ----------

test('200 calls under maxPendingToolCalls 1 overflow the bridge queue with invalid_input', async () => {
  const s = makeSession({ limits: { maxPendingToolCalls: 1 }, tools: [{ name: 'slow', execute: async (input) => { await sleep(2); return input; } }] });
  const r = await run(s, 'return (await Promise.all(Array.from({ length: 200 }, (_, i) => slow({ i })))).length');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'invalid_input', show(r));
  assert.ok(r.error.startsWith('code mode bridge queue limit exceeded ('), r.error);
});

test('100 calls under maxPendingToolCalls 4 all succeed with at most 4 in flight', async () => {
  let current = 0;
  let peak = 0;
  let total = 0;
  const s = makeSession({
    limits: { maxPendingToolCalls: 4 },
    tools: [{ name: 'slow', execute: async ({ i }) => { current++; total++; peak = Math.max(peak, current); await sleep(2); current--; return i; } }],
  });
  const r = await completed(s, 'return await Promise.all(Array.from({ length: 100 }, (_, i) => slow({ i })))');
  assert.deepEqual(r.value, Array.from({ length: 100 }, (_, i) => i));
  assert.equal(total, 100);
  assert.ok(peak <= 4, `peak ${peak}`);
});

// ---------- unawaited and handled failures ----------

// ok_slow answers only after broken has failed (when both are called), whatever the
// machine's speed: "settles while the cell still runs" is then an ordering, not a race.
function failTools() {
  const brokeDone = deferred();
  return [
    { name: 'broken', execute: async () => { await sleep(5); brokeDone.resolve(); throw new Error('broke'); } },
    { name: 'ok_slow', execute: async () => { await brokeDone.promise; await new Promise((resolve) => setImmediate(resolve)); return 'ok'; } },
  ];
}

test('an unawaited failing call fails the cell even when the cell returned first', async () => {
  const s = makeSession({ tools: failTools() });
  const r = await run(s, 'broken(); return 1');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'tool_error', show(r));
  assert.ok(r.error.includes('broke'), r.error);
});

test('an unawaited failing call that settles while the cell still runs fails it', async () => {
  const s = makeSession({ tools: failTools() });
  const r = await run(s, 'broken(); await ok_slow(); return 1');
  assert.equal(r.status, 'failed', show(r));
  assert.equal(r.code, 'tool_error', show(r));
  assert.ok(r.error.includes('broke'), r.error);
});

test('a caught failing call does not fail the cell', async () => {
  const s = makeSession({ tools: failTools() });
  const r = await completed(s, 'try { await broken() } catch {} return 1');
  assert.equal(r.value, 1);
});

test('a handled Promise.allSettled with a failing call does not fail the cell', async () => {
  const s = makeSession({ tools: failTools() });
  const r = await completed(s, 'const s = await Promise.allSettled([broken(), ok_slow()]); return s.map((x) => x.status)');
  assert.deepEqual(r.value, ['rejected', 'fulfilled']);
});

// ---------- events ----------

test('onEvent streams run status, tool call start/update/end and output', async () => {
  const events = [];
  let ctx;
  const s = makeSession({
    onEvent: (e) => events.push(e),
    tools: [{ name: 'progress', execute: async (input, c) => { ctx = c; c.onUpdate({ p: 1 }); await sleep(5); return 'done'; } }],
  });
  const r = await completed(s, 'text("hello"); return await progress({ step: 1 })');
  assert.equal(r.value, 'done');
  // Normally delivered before exec resolves (the next test); waited for, not slept on.
  await eventually(() => events.some((e) => e.type === 'run_status' && e.status === 'completed'), 'run_status completed was delivered');
  const statuses = events.filter((e) => e.type === 'run_status').map((e) => e.status);
  assert.deepEqual(statuses, ['running', 'completed']);
  assert.equal(events[events.length - 1].type, 'run_status');
  const runId = events[0].runId;
  assert.match(runId, /^cm_/);
  assert.ok(events.every((e) => e.runId === runId), 'every event carries the run id');
  const start = events.find((e) => e.type === 'tool_call_start');
  const update = events.find((e) => e.type === 'tool_call_update');
  const end = events.find((e) => e.type === 'tool_call_end');
  assert.ok(start && update && end, JSON.stringify(events));
  assert.equal(start.callId, ctx.callId);
  assert.equal(end.callId, start.callId);
  assert.equal(update.callId, start.callId);
  assert.equal(start.toolName, 'progress');
  assert.equal(start.source, 'core');
  assert.deepEqual(update.partial, { p: 1 });
  assert.equal(end.status, 'ok');
  assert.equal(typeof end.durationMs, 'number');
  assert.ok(events.indexOf(start) < events.indexOf(end));
  const outputs = events.filter((e) => e.type === 'output').map((e) => e.entry);
  assert.deepEqual(outputs, [{ type: 'text', text: 'hello' }]);
});

test('a run delivers run_status running first and completed last, before exec resolves', async () => {
  // Repeated because a misordering shows up only in some runs.
  const misordered = [];
  for (let i = 0; i < 200; i++) {
    const events = [];
    const s = makeSession({
      onEvent: (e) => events.push(e),
      tools: [{ name: 'progress', execute: async () => { await sleep(1); return 'done'; } }],
    });
    await completed(s, 'return await progress({ step: 1 })');
    const order = events.map((e) => (e.type === 'run_status' ? `run_status:${e.status}` : e.type));
    if (order[0] !== 'run_status:running' || order[order.length - 1] !== 'run_status:completed') misordered.push(order.join(' '));
  }
  assert.deepEqual(misordered, [], `${misordered.length}/200 runs out of order, e.g. ${misordered[0]}`);
});

test('a tool_call_end event reports status error for a failing call', async () => {
  const events = [];
  const s = makeSession({ onEvent: (e) => events.push(e), tools: failTools() });
  await completed(s, 'await broken().catch(() => {}); return 1');
  const end = await eventually(() => events.find((e) => e.type === 'tool_call_end'), 'tool_call_end was delivered');
  assert.equal(end?.status, 'error', JSON.stringify(events));
  assert.ok(String(end.error).includes('broke'), JSON.stringify(end));
});

test('an onEvent callback that throws does not affect the cell', async () => {
  let calls = 0;
  const s = makeSession({
    onEvent: () => { calls++; throw new Error('listener exploded'); },
    tools: [{ name: 'echo', execute: (input) => input }],
  });
  const r = await completed(s, 'text("a"); return await echo({ v: 2 })');
  assert.deepEqual(r.value, { v: 2 });
  assert.deepEqual(r.output, [{ type: 'text', text: 'a' }]);
  await eventually(() => calls >= 3, `onEvent called at least 3 times (so far ${calls})`);
});

// ---------- nestedCalls ----------

test('nestedCalls records callId, toolName, status, duration and a bounded input preview', async () => {
  const ctxs = [];
  const s = makeSession({
    tools: [
      { name: 'echo', execute: (input, c) => { ctxs.push(c); return 1; } },
      { name: 'broken', execute: (input, c) => { ctxs.push(c); throw new Error('broke'); } },
    ],
  });
  const r = await completed(s, 'await echo({ s: "y".repeat(10000) }); await broken().catch(() => {}); return 1');
  assert.equal(r.nestedCalls?.length, 2, show(r));
  const [okCall, errCall] = r.nestedCalls;
  assert.equal(okCall.callId, ctxs[0].callId);
  assert.equal(okCall.toolName, 'echo');
  assert.equal(okCall.status, 'ok');
  assert.equal(typeof okCall.durationMs, 'number');
  assert.ok(okCall.durationMs >= 0);
  assert.equal(typeof okCall.inputPreview, 'string');
  assert.ok(okCall.inputPreview.length <= 520, `inputPreview is ${okCall.inputPreview.length} chars`);
  assert.ok(okCall.inputPreview.startsWith('{"s":"yyy'), okCall.inputPreview.slice(0, 40));
  assert.equal(errCall.callId, ctxs[1].callId);
  assert.equal(errCall.toolName, 'broken');
  assert.equal(errCall.status, 'error');
  assert.notEqual(okCall.callId, errCall.callId);
});
