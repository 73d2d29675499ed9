// Example gateway for codemode-native: the whole "code mode" loop in one file
// (the tools it offers live in tools.mjs and wiki-server.mjs).
//
// A code-mode gateway shows the model two tools (`exec`, `wait`) instead of its
// whole tool list. The model writes a short JavaScript/TypeScript program that
// calls the hidden host tools as async globals (and MCP tools as
// `MCP.<server>.<tool>()`); the gateway runs it with `session.exec()` and hands
// back a single result. The "model" below is scripted (three canned programs),
// so this runs offline and doubles as a CI smoke test: exit code 0 when every
// program completes as expected, 1 otherwise.
//
//   npm run demo        (or: node examples/gateway.mjs once the addon is built)
import { createRequire } from 'node:module';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTools } from './tools.mjs';
import { connectWiki } from './wiki-server.mjs';

const { CodeModeSession } = createRequire(import.meta.url)('../index.js');
const started = performance.now();

// ---------------------------------------------------------------------------
// 1. The catalog: 30 host tools over in-memory fakes (files live in a fresh temp
//    directory) and one real MCP server, reached through an SDK Client.
// ---------------------------------------------------------------------------
const root = await mkdtemp(join(tmpdir(), 'codemode-gateway-'));
const { tools, state } = createTools(root);
const wiki = await connectWiki();

// One session per conversation; its ids scope which session may resume a parked
// run. The second one has a tiny per-call budget (150 ms) so that the slow
// weather tool outlives one exec and the gateway has to call `wait`.
const session = new CodeModeSession({ sessionId: 'demo-chat-1', agentId: 'support-bot', tools, mcpServers: [{ name: 'wiki', client: wiki.client }] });
const slowSession = new CodeModeSession({ sessionId: 'demo-chat-2', agentId: 'support-bot', tools, limits: { timeoutMs: 150 } });
// MCP tool lists load in the background (exec waits for them by itself); wait
// here so modelTools() below already mentions the wiki server.
await session.ready();

// ---------------------------------------------------------------------------
// 2. What goes into every model request: exec + wait, versus every tool
//    directly. Direct exposure sends each tool's description and full
//    parameter schema on every turn. Code mode sends a fixed preamble of rules
//    plus one index line per host tool (input and declared output as TypeScript
//    types, no descriptions), and MCP tools only as a pointer to MCP.wiki: the
//    model reads their declarations on demand with API.read().
// ---------------------------------------------------------------------------
const bytes = (v) => Buffer.byteLength(JSON.stringify(v));
const modelTools = session.modelTools();
const { tools: mcpTools } = await wiki.client.listTools();
const direct = [
  ...tools.map(({ name, description, parameters }) => ({ name, description, parameters })),
  // Gateways usually prefix MCP tools with the server name to keep names unique.
  ...mcpTools.map((t) => ({ name: `wiki__${t.name}`, description: t.description ?? '', parameters: t.inputSchema })),
];
const saving = Math.round((1 - bytes(modelTools) / bytes(direct)) * 100);
console.log(`== model payload for ${tools.length} host tools + ${mcpTools.length} MCP tools (wiki server)`);
console.log(`code mode (${modelTools.map((t) => t.name).join(' + ')}): ${bytes(modelTools)} bytes`);
console.log(`direct exposure (${direct.length} tools):   ${bytes(direct)} bytes`);
console.log(`saving: ${saving}% of the tool payload, on every model turn`);
// The part of the exec description that grows with the catalog:
const lines = modelTools[0].description.split('\n');
const index = lines.findIndex((l) => l.startsWith('Tool index'));
console.log(`-- exec description: ${index} lines of instructions, then the tool index (first 6 of ${lines.length - index - 1} lines) --`);
console.log(lines.slice(index, index + 7).join('\n'));

// ---------------------------------------------------------------------------
// 3. Printing a result the way a gateway log (or a debugging UI) would.
//    `nestedCalls` is bounded and redacted: safe to log, not meant for the model.
// ---------------------------------------------------------------------------
function show(result) {
  console.log(`status: ${result.status}` + (result.runId ? `  runId: ${result.runId}  reason: ${result.reason}` : ''));
  if (result.status === 'completed') console.log('value:', JSON.stringify(result.value));
  if (result.status === 'failed') console.log(`error (${result.code}): ${result.error}`);
  if (result.pendingToolCalls?.length) console.log('pending:', result.pendingToolCalls.map((p) => `${p.id} ${p.toolName ?? p.method}`).join(', '));
  for (const o of result.output ?? []) console.log('output>', o.type === 'text' ? o.text : JSON.stringify(o.value));
  const calls = result.nestedCalls ?? [];
  if (calls.length) {
    const all = [['callId', 'toolName', 'status', 'durationMs'], ...calls.map((c) => [c.callId, c.toolName, c.status, c.durationMs?.toFixed(1) ?? '-'])];
    const width = all[0].map((_, i) => Math.max(...all.map((r) => String(r[i]).length)));
    console.log('trajectory:');
    for (const r of all) console.log('  ' + r.map((cell, i) => String(cell).padEnd(width[i])).join('  ').trimEnd());
    for (const c of calls) if (c.error) console.log(`  ! ${c.callId}: ${c.error}`);
  }
  // The counters are cumulative for the catalog's lifetime; `run` covers this
  // exec/wait call only.
  const { catalogSize, sources, callCount, searchCount, describeCount, run } = result.telemetry;
  console.log(`telemetry: catalogSize=${catalogSize} sources=${JSON.stringify(sources)} calls=${callCount} searches=${searchCount} describes=${describeCount}`);
  if (run) console.log(`  run: wallMs=${run.wallMs} guestCpuMs=${run.guestCpuMs} peakHeapBytes=${run.peakHeapBytes} nestedCalls=${run.nestedCalls}`);
}

// ---------------------------------------------------------------------------
// 4. The scripted model: three programs of the kind a model writes in one turn,
//    each with the check a test would make on its final value.
// ---------------------------------------------------------------------------
const programs = [
  { title: 'triage open login tickets, with the runbook from the wiki (MCP)', session,
    expect: (v) => v.tickets.length === 3 && v.runbook?.id === 'RB-7' && v.file.bytes > 0,
    input: { code: `
    const { tickets } = await tickets_search({ query: "login", status: "open" });
    // Independent reads: fan out in parallel, one model turn for all of them.
    const details = await Promise.all(tickets.map((t) => tickets_get({ id: t.id })));
    // A flaky tool: allSettled keeps the partial picture instead of failing the program.
    const sla = await Promise.allSettled(details.map((d) => sla_check({ id: d.id })));
    // The wiki is an MCP server: its tools live under MCP.wiki, not among the globals.
    const found = await MCP.wiki.searchPages({ query: "SSO login", space: "runbooks", limit: 1 });
    const runbook = found.structuredContent.pages[0];
    const gist = await llm_task({ prompt: "one sentence", input: details[0].body });
    const lines = details.map((d, i) => "- " + d.id + " [" + d.priority + "] " + d.title +
      " (" + (d.assignee ?? "unassigned") + ", SLA: " +
      (sla[i].status === "fulfilled" ? sla[i].value.hoursLeft + "h" : "unknown") + ")");
    const file = await fs_write({ path: "reports/login.md",
      content: "# Open login tickets\\n" + lines.join("\\n") + "\\n\\nRunbook: " + runbook.id + " " + runbook.title + "\\n" });
    // Return a compact projection, not the raw tickets: the model pays for every byte.
    return { file, top: gist.text, runbook, tickets: details.map((d, i) => ({ id: d.id, priority: d.priority,
      comments: d.comments.length, slaHours: sla[i].status === "fulfilled" ? sla[i].value.hoursLeft : null })) };
  ` } },
  { title: 'invoice with calculator, currency and due date', session,
    expect: (v) => v.total === 432 && v.totalUsd === 469.57 && /^\d{4}-\d{2}-\d{2}$/.test(v.due),
    input: { language: 'typescript', code: `
    interface Line { item: string; qty: number; unitPrice: number }
    const lines: Line[] = [
      { item: "seats", qty: 12, unitPrice: 19.5 },
      { item: "storage (TB)", qty: 3, unitPrice: 42 },
    ];
    const [totals, today] = await Promise.all([
      Promise.all(lines.map((l) => calculator({ op: "mul", a: l.qty, b: l.unitPrice }))),
      time_now({}),
    ]);
    const subtotal: number = (await calculator({ op: "add", a: totals[0].result, b: totals[1].result })).result;
    const tax: number = (await calculator({ op: "mul", a: subtotal, b: 0.2 })).result;
    const total: number = (await calculator({ op: "add", a: subtotal, b: tax })).result;
    const [usd, due] = await Promise.all([
      currency_convert({ amount: total, from: "EUR", to: "USD" }),
      date_add({ date: today.iso, days: 30 }),
    ]);
    lines.forEach((l, i) => text(l.item.padEnd(14) + totals[i].result.toFixed(2).padStart(9) + " EUR"));
    text("total".padEnd(14) + total.toFixed(2).padStart(9) + " EUR (incl. 20% VAT)");
    return { subtotal, tax, total, totalUsd: usd.amount, due: due.date };
  ` } },
  { title: 'plan site visits around slow weather lookups (150 ms budget)', session: slowSession, expectWait: true,
    expect: (v) => v.weather.length === 2 && /^ev_\d+$/.test(v.event.id),
    input: { code: `
    const cities = ["Lisbon", "Oslo"];
    // Each lookup takes ~300 ms, longer than this session's 150 ms budget: the
    // program is parked here and the gateway resumes it with wait().
    const weather = await Promise.all(cities.map((city) => weather_lookup({ city })));
    const tomorrow = await date_add({ date: (await time_now({})).iso, days: 1 });
    const { slots } = await calendar_free_slots({ date: tomorrow.date, durationMin: 60, attendees: ["ana", "bo"] });
    const dry = weather.filter((w) => w.conditions !== "rain").map((w) => w.city);
    const event = await calendar_create({ title: "Site visit: " + (dry[0] ?? cities[0]), start: slots[0].start,
      durationMin: 60, attendees: ["ana", "bo"], location: dry[0] ?? cities[0] });
    return { weather: weather.map((w) => w.city + ": " + w.tempC + "°C, " + w.conditions), event };
  ` } },
];

// ---------------------------------------------------------------------------
// 5. The gateway loop. `exec` never rejects for guest/tool/limit problems; it
//    returns failed/waiting results. A `waiting` result means the program is
//    parked with host work still running; `wait({ runId })` resumes it. A real
//    gateway returns the waiting result to the model and lets it decide when
//    to call `wait`; here the gateway plays the model and waits right away.
// ---------------------------------------------------------------------------
const verdicts = [];
try {
  for (const [i, p] of programs.entries()) {
    console.log(`\n== program ${i + 1}: ${p.title}${p.input.language ? ` (${p.input.language})` : ''}`);
    // callId = the model's tool-call id for this exec; tools see it as ctx.parentCallId.
    let result = await p.session.exec(p.input, { callId: `call_exec_${i + 1}` });
    console.log('-- exec');
    show(result);
    const waited = result.status === 'waiting';
    let waits = 0;
    while (result.status === 'waiting' && waits < 20) {
      waits++;
      console.log(`-- wait #${waits}  (parked runs: ${JSON.stringify(p.session.runs().map((r) => ({ runId: r.runId, pending: r.pending })))})`);
      result = await p.session.wait({ runId: result.runId }, { callId: `call_wait_${i + 1}_${waits}` });
      show(result);
    }
    const problems = [];
    if (result.status !== 'completed') problems.push(`ended ${result.status}`);
    else if (!p.expect(result.value)) problems.push('unexpected value');
    if (p.expectWait && !waited) problems.push('exec did not return "waiting"');
    verdicts.push({ ok: problems.length === 0, line: `program ${i + 1}: ${result.status}` +
      (waits ? ` after ${waits} wait call(s)` : '') + (problems.length ? `, NOT as expected (${problems.join('; ')})` : ', as expected') });
  }

  // The effects are real: check them from the host side.
  console.log('\n== host-side effects');
  console.log(await readFile(join(root, 'reports/login.md'), 'utf8').catch((e) => `missing report: ${e.message}\n`));
  console.log('calendar:', JSON.stringify(state.events.map(({ id, title, start }) => ({ id, title, start }))));
  console.log('session telemetry:', JSON.stringify(session.telemetry()));
} finally {
  // close() cancels active cells and parked runs and aborts their ctx.signal;
  // closing the MCP client and server leaves no handle keeping Node alive.
  await Promise.all([session.close(), slowSession.close()]);
  await wiki.close();
  await rm(root, { recursive: true, force: true });
}

const ok = verdicts.length === programs.length && verdicts.every((v) => v.ok);
console.log('\n== summary');
for (const v of verdicts) console.log(v.line);
console.log(ok ? `OK: all ${programs.length} programs completed as expected` : 'FAIL: a program did not complete as expected');
console.log(`(demo took ${Math.round(performance.now() - started)} ms)`);
process.exitCode = ok ? 0 : 1;
