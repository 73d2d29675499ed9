// Example gateway for codemode-native: the whole "code mode" loop in one file.
//
// A code-mode gateway shows the model two tools (`exec`, `wait`) instead of its
// whole tool list. The model writes a short JavaScript/TypeScript program that
// calls the hidden host tools as async globals; the gateway runs it with
// `session.exec()` and hands back a single result. The "model" below is
// scripted (three canned programs), so this runs offline and doubles as a CI
// smoke test: exit code 0 when every program completes, 1 otherwise.
//
//   node examples/gateway.mjs
import { createRequire } from 'node:module';
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';

const { CodeModeSession } = createRequire(import.meta.url)('../index.js');

// ---------------------------------------------------------------------------
// 1. Host tools. Each is { name, description, parameters, outputSchema?, execute }.
//    `parameters` is validated before execute runs, so handlers can trust input.
//    A *closed* `outputSchema` (every object `additionalProperties: false`) is
//    checked after execute and becomes an output hint in the quick index, so
//    the model can use the result without a discovery round trip.
// ---------------------------------------------------------------------------
const obj = (properties, required = Object.keys(properties)) =>
  ({ type: 'object', properties, required, additionalProperties: false });
const str = (description) => ({ type: 'string', ...(description && { description }) });
const num = { type: 'number' };

// Files: confined to a fresh temp directory. Guests have no filesystem of their
// own; everything they touch goes through these handlers.
const root = await mkdtemp(join(tmpdir(), 'codemode-gateway-'));
const inRoot = (p = '.') => {
  const full = resolve(root, p);
  if (full !== root && !full.startsWith(root + sep)) throw new Error(`path escapes the workspace: ${p}`);
  return full;
};

// Tickets: an in-memory fake tracker. `audit` records who changed what, keyed by
// ctx.callId, which stays stable even if the run is parked and resumed.
const tickets = [
  { id: 'T-101', title: 'Login fails with SSO after password reset', status: 'open', priority: 'high', assignee: 'ana', body: 'Users who reset their password cannot log in via SSO until the session cookie expires.', comments: [{ author: 'ana', text: 'Reproduced on staging.' }] },
  { id: 'T-102', title: 'Login page slow on mobile', status: 'open', priority: 'medium', assignee: null, body: 'LCP is 6s on 3G because the hero image is not lazy-loaded.', comments: [] },
  { id: 'T-103', title: 'Typo in invoice email', status: 'closed', priority: 'low', assignee: 'bo', body: '"Recieved" in the footer.', comments: [] },
  { id: 'T-104', title: 'Remember-me login token never expires', status: 'open', priority: 'high', assignee: 'chen', body: 'Refresh tokens issued with remember-me have no TTL.', comments: [{ author: 'chen', text: 'Security review needed.' }, { author: 'ana', text: '+1' }] },
];
const audit = [];
const ticketRef = obj({ id: str(), title: str(), status: { enum: ['open', 'closed'] }, priority: { enum: ['low', 'medium', 'high'] } });
const kv = new Map();
let slaCalls = 0;

const tools = [
  { name: 'fs_list', description: 'List files in the workspace directory.', parameters: obj({ path: str('Directory, relative to the workspace') }, []),
    execute: async ({ path }) => ({ entries: await readdir(inRoot(path), { recursive: true }) }) },
  { name: 'fs_read', description: 'Read a UTF-8 text file from the workspace.', parameters: obj({ path: str() }),
    execute: async ({ path }) => ({ path, content: await readFile(inRoot(path), 'utf8') }) },
  { name: 'fs_write', description: 'Create or overwrite a UTF-8 text file in the workspace (parents are created).', parameters: obj({ path: str(), content: str() }),
    outputSchema: obj({ path: str(), bytes: num }),
    execute: async ({ path, content }) => {
      const full = inRoot(path);
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, content);
      return { path: relative(root, full), bytes: Buffer.byteLength(content) };
    } },
  { name: 'tickets_search', description: 'Full-text search over support tickets.', parameters: obj({ query: str(), status: { enum: ['open', 'closed'] }, limit: { type: 'integer', minimum: 1, maximum: 50 } }, ['query']),
    outputSchema: obj({ total: num, tickets: { type: 'array', items: ticketRef } }),
    execute: async ({ query, status, limit = 10 }) => {
      const hits = tickets.filter((t) => (!status || t.status === status) && `${t.title} ${t.body}`.toLowerCase().includes(query.toLowerCase()));
      return { total: hits.length, tickets: hits.slice(0, limit).map(({ id, title, status, priority }) => ({ id, title, status, priority })) };
    } },
  { name: 'tickets_get', description: 'Fetch one ticket with body and comments.', parameters: obj({ id: str('Ticket id, e.g. T-101') }),
    outputSchema: obj({ ...ticketRef.properties, assignee: { type: ['string', 'null'] }, body: str(), comments: { type: 'array', items: obj({ author: str(), text: str() }) } }),
    execute: async ({ id }) => {
      const t = tickets.find((x) => x.id === id);
      if (!t) throw new Error(`no ticket ${id}`);
      return structuredClone(t);
    } },
  { name: 'tickets_update', description: 'Change status/assignee of a ticket and optionally add a comment.', parameters: obj({ id: str(), status: { enum: ['open', 'closed'] }, assignee: str(), comment: str() }, ['id']),
    execute: async ({ id, comment, ...patch }, ctx) => {
      const t = tickets.find((x) => x.id === id);
      if (!t) throw new Error(`no ticket ${id}`);
      Object.assign(t, patch);
      if (comment) t.comments.push({ author: 'agent', text: comment });
      audit.push({ callId: ctx.callId, runId: ctx.runId, id, patch, comment });
      return { ok: true, ticket: { id: t.id, status: t.status, assignee: t.assignee } };
    } },
  // The unreliable one: every third call fails, like a flaky upstream. In the
  // guest this becomes a catchable Error with effectStatus "unknown".
  { name: 'sla_check', description: 'Time left before a ticket breaches its SLA.', parameters: obj({ id: str() }),
    execute: async ({ id }) => {
      if (++slaCalls % 3 === 0) throw new Error('SLA service unavailable (503), retry later');
      return { id, hoursLeft: 4 * id.length - slaCalls };
    } },
  { name: 'calculator', description: 'Exact arithmetic on two numbers.', parameters: obj({ op: { enum: ['add', 'sub', 'mul', 'div'] }, a: num, b: num }),
    outputSchema: obj({ result: num }),
    execute: async ({ op, a, b }) => {
      if (op === 'div' && b === 0) throw new Error('division by zero');
      return { result: { add: a + b, sub: a - b, mul: a * b, div: a / b }[op] };
    } },
  // Slow on purpose (~300 ms). Honour ctx.signal: it fires if the run is aborted,
  // expires while parked, or the session closes, so no work outlives its cell.
  { name: 'weather_lookup', description: 'Current weather for a city (slow upstream).', parameters: obj({ city: str() }),
    outputSchema: obj({ city: str(), tempC: num, conditions: str() }),
    execute: ({ city }, ctx) => new Promise((resolveWeather, reject) => {
      const timer = setTimeout(() => resolveWeather({ city, tempC: 10 + (city.length * 7) % 15, conditions: city.length % 2 ? 'cloudy' : 'sunny' }), 300);
      ctx.signal.addEventListener('abort', () => { clearTimeout(timer); reject(new Error('aborted')); }, { once: true });
    }) },
  // A dash in the host name: the guest calls it as `llm_task` (callable names
  // are sanitized deterministically; the quick index shows the callable name).
  { name: 'llm-task', description: 'Run a small sub-LLM prompt over some text (here: a fake that keeps the first sentence).', parameters: obj({ prompt: str(), input: str() }),
    execute: async ({ input }) => ({ text: input.split(/(?<=\.)\s/)[0] }) },
  // Filler that makes the catalog realistic: in direct exposure every one of
  // these would cost prompt tokens on every turn; in code mode they cost one
  // quick-index line each.
  { name: 'users_lookup', description: 'Find a user by handle.', parameters: obj({ handle: str() }), execute: async ({ handle }) => ({ handle, email: `${handle}@example.com`, team: 'support' }) },
  { name: 'calendar_list', description: 'List calendar events on a date (YYYY-MM-DD).', parameters: obj({ date: str() }), execute: async () => ({ events: [] }) },
  { name: 'calendar_create', description: 'Create a calendar event.', parameters: obj({ title: str(), start: str(), durationMin: { type: 'integer', minimum: 5 } }), execute: async (e) => ({ id: 'ev_1', ...e }) },
  { name: 'email_send', description: 'Send an email.', parameters: obj({ to: str(), subject: str(), body: str() }), execute: async ({ to }) => ({ queued: true, to }) },
  { name: 'web_search', description: 'Search the web.', parameters: obj({ query: str(), limit: { type: 'integer', maximum: 10 } }, ['query']), execute: async ({ query }) => ({ results: [{ title: `About ${query}`, url: 'https://example.com' }] }) },
  { name: 'kv_get', description: 'Read a value from the scratch key-value store.', parameters: obj({ key: str() }), execute: async ({ key }) => ({ key, value: kv.get(key) ?? null }) },
  { name: 'kv_set', description: 'Write a value to the scratch key-value store.', parameters: obj({ key: str(), value: {} }), execute: async ({ key, value }) => (kv.set(key, value), { ok: true }) },
  { name: 'time_now', description: 'Current time as ISO-8601.', parameters: obj({}), execute: async () => ({ iso: new Date().toISOString() }) },
];

// ---------------------------------------------------------------------------
// 2. Sessions. One per conversation; the ids scope which session may resume a
//    parked run. The second session has a tiny per-call budget (150 ms) so the
//    slow weather tool outlives one exec and we can demonstrate `wait`.
// ---------------------------------------------------------------------------
const session = new CodeModeSession({ sessionId: 'demo-chat-1', agentId: 'support-bot', tools });
const slowSession = new CodeModeSession({ sessionId: 'demo-chat-2', agentId: 'support-bot', tools, limits: { timeoutMs: 150 } });

// What goes into the model request: exec + wait, versus every tool directly.
// The exec description has a fixed preamble (~1.5 KB) and then one index line
// per tool without descriptions, so the saving grows with catalog size and with
// how verbose real tool descriptions are (these demo ones are terse).
const modelTools = session.modelTools();
const bytes = (v) => Buffer.byteLength(JSON.stringify(v));
const direct = tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
console.log(`== model payload: ${modelTools.map((t) => t.name).join(', ')}`);
console.log(`code mode: ${bytes(modelTools)} bytes   direct exposure of ${tools.length} tools: ${bytes(direct)} bytes`);
console.log('-- exec description (first 25 lines) --');
console.log(modelTools.find((t) => t.name === 'exec').description.split('\n').slice(0, 25).join('\n'));

// ---------------------------------------------------------------------------
// 3. Printing a result the way a gateway log (or a debugging UI) would.
//    `nestedCalls` is bounded and redacted: safe to log, not meant for the model.
// ---------------------------------------------------------------------------
function show(result) {
  console.log(`status: ${result.status}` + (result.runId ? `  runId: ${result.runId}  reason: ${result.reason}` : ''));
  if (result.status === 'completed') console.log('value:', JSON.stringify(result.value));
  if (result.status === 'failed') console.log(`error (${result.code}): ${result.error}`);
  if (result.pendingToolCalls?.length) console.log('pending:', result.pendingToolCalls.map((p) => `${p.id} ${p.toolName ?? ''}`).join(', '));
  for (const o of result.output ?? []) console.log('output>', o.type === 'text' ? o.text : JSON.stringify(o.value));
  const rows = (result.nestedCalls ?? []).map((c) => [c.callId, c.toolName, c.status, c.durationMs?.toFixed(1) ?? '-']);
  if (rows.length) {
    const all = [['callId', 'toolName', 'status', 'durationMs'], ...rows];
    const w = all[0].map((_, i) => Math.max(...all.map((r) => String(r[i]).length)));
    for (const r of all) console.log('  ' + r.map((cell, i) => String(cell).padEnd(w[i])).join('  ').trimEnd());
    for (const c of result.nestedCalls) if (c.error) console.log(`  ! ${c.callId}: ${c.error}`);
  }
  // callCount is cumulative for the catalog's lifetime; `run` covers this exec/wait call only.
  const t = result.telemetry;
  console.log(`telemetry: callCount=${t.callCount} catalogSize=${t.catalogSize}` +
    (t.run ? ` run.wallMs=${t.run.wallMs} run.guestCpuMs=${t.run.guestCpuMs} run.peakHeapBytes=${t.run.peakHeapBytes} run.nestedCalls=${t.run.nestedCalls}` : ''));
}

// ---------------------------------------------------------------------------
// 4. The scripted model: three programs of the kind a model writes in one turn.
// ---------------------------------------------------------------------------
const programs = [
  { title: 'triage open login tickets', session, input: { code: `
    const { tickets } = await tickets_search({ query: "login", status: "open" });
    // Independent reads: fan out in parallel, one model turn for all of them.
    const details = await Promise.all(tickets.map((t) => tickets_get({ id: t.id })));
    // A flaky tool: allSettled keeps the partial picture instead of failing the cell.
    const sla = await Promise.allSettled(details.map((d) => sla_check({ id: d.id })));
    const gist = await llm_task({ prompt: "one sentence", input: details[0].body });
    const lines = details.map((d, i) => "- " + d.id + " [" + d.priority + "] " + d.title +
      " (" + (d.assignee ?? "unassigned") + ", SLA: " +
      (sla[i].status === "fulfilled" ? sla[i].value.hoursLeft + "h" : "unknown") + ")");
    const file = await fs_write({ path: "reports/login.md", content: "# Open login tickets\\n" + lines.join("\\n") + "\\n" });
    // Return a compact projection, not the raw tickets: the model pays for every byte.
    return { file, top: gist.text, tickets: details.map((d, i) => ({ id: d.id, priority: d.priority,
      comments: d.comments.length, sla: sla[i].status === "fulfilled" ? sla[i].value.hoursLeft : null })) };
  ` } },
  { title: 'typescript invoice with calculator', session, input: { language: 'typescript', code: `
    interface Line { item: string; qty: number; unitPrice: number }
    const lines: Line[] = [
      { item: "seats", qty: 12, unitPrice: 19.5 },
      { item: "storage (TB)", qty: 3, unitPrice: 42 },
    ];
    const totals: number[] = (await Promise.all(
      lines.map((l) => calculator({ op: "mul", a: l.qty, b: l.unitPrice })))).map((r) => r.result);
    const subtotal: number = (await calculator({ op: "add", a: totals[0], b: totals[1] })).result;
    const tax: number = (await calculator({ op: "mul", a: subtotal, b: 0.2 })).result;
    lines.forEach((l, i) => text(l.item.padEnd(14) + String(totals[i]).padStart(8)));
    text("subtotal".padEnd(14) + String(subtotal).padStart(8));
    return { subtotal, tax, total: subtotal + tax } satisfies Record<string, number>;
  ` } },
  { title: 'slow weather under a 150 ms budget', session: slowSession, input: { code: `
    const cities = ["Lisbon", "Oslo"];
    const reports = await Promise.all(cities.map((city) => weather_lookup({ city })));
    return reports.map((w) => w.city + ": " + w.tempC + "°C, " + w.conditions);
  ` } },
];

// ---------------------------------------------------------------------------
// 5. The gateway loop. `exec` never rejects for guest/tool/limit problems; it
//    returns failed/waiting results. A `waiting` result means the program is
//    parked with host work still running: the model (here: the gateway itself)
//    calls `wait({ runId })` until it completes. Real gateways return the
//    waiting result to the model and let it decide when to call `wait`.
// ---------------------------------------------------------------------------
let allCompleted = true;
try {
  for (const [i, p] of programs.entries()) {
    console.log(`\n== program ${i + 1}: ${p.title}${p.input.language ? ` (${p.input.language})` : ''}`);
    // callId = the model's tool-call id for this exec; tools see it as ctx.parentCallId.
    let result = await p.session.exec(p.input, { callId: `call_exec_${i + 1}` });
    console.log('-- exec');
    show(result);
    if (p.session === slowSession && result.status !== 'waiting') {
      console.log('note: exec did not return "waiting" (the engine finished within the budget)');
    }
    for (let step = 1; result.status === 'waiting' && step <= 20; step++) {
      console.log(`-- wait #${step}  (parked runs: ${JSON.stringify(p.session.runs().map((r) => ({ runId: r.runId, pending: r.pending })))})`);
      result = await p.session.wait({ runId: result.runId }, { callId: `call_wait_${i + 1}_${step}` });
      show(result);
    }
    if (result.status !== 'completed') allCompleted = false;
  }

  // Effects are real: check them from the host side.
  console.log('\n== host-side effects');
  console.log(await readFile(join(root, 'reports/login.md'), 'utf8').catch((e) => `missing report: ${e.message}`));
  console.log('session telemetry:', JSON.stringify(session.telemetry()));
} finally {
  // close() cancels active cells and parked runs and aborts their ctx.signal.
  await Promise.all([session.close(), slowSession.close()]);
  await rm(root, { recursive: true, force: true });
}
console.log(allCompleted ? '\nOK: all programs completed' : '\nFAIL: a program did not complete');
process.exitCode = allCompleted ? 0 : 1;
