// Host tools for the example gateway: the kind of catalog a support assistant has.
//
// Each tool is { name, description, parameters, outputSchema?, execute }. The
// engine validates `parameters` before execute runs, so handlers trust their
// input. A *closed* `outputSchema` (every object `additionalProperties: false`)
// is checked after execute and shown as an output hint in the quick index, so
// the model can use a result without a discovery round trip first.
import { mkdir, readdir, readFile, rm, stat, writeFile, appendFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';

const obj = (properties, required = Object.keys(properties)) =>
  ({ type: 'object', properties, required, additionalProperties: false });
const str = (description) => ({ type: 'string', ...(description && { description }) });
const num = (description) => ({ type: 'number', ...(description && { description }) });
const int = (description, extra = {}) => ({ type: 'integer', ...(description && { description }), ...extra });
const bool = (description) => ({ type: 'boolean', description });
const isoDate = str('Date as YYYY-MM-DD');
const ms = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** Builds the catalog over in-memory fakes; `root` confines the file tools. */
export function createTools(root) {
  // Guests have no filesystem of their own: everything they touch goes through
  // these handlers, so the confinement check lives here and nowhere else.
  const inRoot = (p = '.') => {
    const full = resolve(root, p);
    if (full !== root && !full.startsWith(root + sep)) throw new Error(`path escapes the workspace: ${p}`);
    return full;
  };

  const tickets = [
    { id: 'T-101', title: 'Login fails with SSO after password reset', status: 'open', priority: 'high', assignee: 'ana', body: 'Users who reset their password cannot log in via SSO until the session cookie expires.', comments: [{ author: 'ana', text: 'Reproduced on staging.' }] },
    { id: 'T-102', title: 'Login page slow on mobile', status: 'open', priority: 'medium', assignee: null, body: 'LCP is 6s on 3G because the hero image is not lazy-loaded.', comments: [] },
    { id: 'T-103', title: 'Typo in invoice email', status: 'closed', priority: 'low', assignee: 'bo', body: '"Recieved" in the footer.', comments: [] },
    { id: 'T-104', title: 'Remember-me login token never expires', status: 'open', priority: 'high', assignee: 'chen', body: 'Refresh tokens issued with remember-me have no TTL.', comments: [{ author: 'chen', text: 'Security review needed.' }, { author: 'ana', text: '+1' }] },
    { id: 'T-105', title: 'Export to CSV drops unicode names', status: 'open', priority: 'low', assignee: 'bo', body: 'Names with accents become question marks in the exported file.', comments: [] },
  ];
  const users = [
    { handle: 'ana', name: 'Ana Ribeiro', email: 'ana@example.com', team: 'identity', timezone: 'Europe/Lisbon' },
    { handle: 'bo', name: 'Bo Lindqvist', email: 'bo@example.com', team: 'billing', timezone: 'Europe/Oslo' },
    { handle: 'chen', name: 'Chen Wei', email: 'chen@example.com', team: 'identity', timezone: 'Asia/Singapore' },
    { handle: 'dara', name: 'Dara Okafor', email: 'dara@example.com', team: 'support', timezone: 'Europe/London' },
  ];
  // Fixed rates keep the demo's numbers reproducible from run to run.
  const eurPer = { EUR: 1, USD: 0.92, GBP: 1.17, NOK: 0.086, SGD: 0.68 };
  const events = [];
  const kv = new Map();
  const sent = [];
  // Who changed what, keyed by ctx.callId, which stays stable even when the run
  // is parked and resumed: the idempotency key a real tracker would want.
  const audit = [];
  let slaCalls = 0;

  const ticketRef = obj({ id: str(), title: str(), status: { enum: ['open', 'closed'] }, priority: { enum: ['low', 'medium', 'high'] } });
  const findTicket = (id) => {
    const t = tickets.find((x) => x.id === id);
    if (!t) throw new Error(`no ticket ${id}`);
    return t;
  };
  const user = (handle) => {
    const u = users.find((x) => x.handle === handle);
    if (!u) throw new Error(`no user @${handle}`);
    return u;
  };
  const day = (date) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`expected YYYY-MM-DD, got ${JSON.stringify(date)}`);
    return date;
  };

  const files = [
    { name: 'fs_list', description: 'List files and directories in the workspace. Paths are relative to the workspace root; directories end with "/".',
      parameters: obj({ path: str('Directory relative to the workspace root (default ".")'), recursive: bool('Include nested entries') }, []),
      outputSchema: obj({ entries: { type: 'array', items: str() } }),
      execute: async ({ path, recursive = false }) => {
        const dirents = await readdir(inRoot(path), { withFileTypes: true, recursive });
        return { entries: dirents.map((d) => relative(inRoot(path), join(d.parentPath ?? d.path, d.name)) + (d.isDirectory() ? '/' : '')).sort() };
      } },
    { name: 'fs_read', description: 'Read a UTF-8 text file from the workspace. Large files are cut at maxBytes and flagged as truncated.',
      parameters: obj({ path: str('File path relative to the workspace root'), maxBytes: int('Upper bound on returned bytes', { minimum: 1, maximum: 1_000_000 }) }, ['path']),
      outputSchema: obj({ path: str(), content: str(), truncated: { type: 'boolean' } }),
      execute: async ({ path, maxBytes = 65_536 }) => {
        const buf = await readFile(inRoot(path));
        return { path, content: buf.subarray(0, maxBytes).toString('utf8'), truncated: buf.length > maxBytes };
      } },
    { name: 'fs_write', description: 'Create or overwrite a UTF-8 text file in the workspace; parent directories are created. Set append to add to the end instead.',
      parameters: obj({ path: str('File path relative to the workspace root'), content: str('Full file content (or the text to append)'), append: bool('Append instead of overwrite') }, ['path', 'content']),
      outputSchema: obj({ path: str(), bytes: num('Bytes written by this call') }),
      execute: async ({ path, content, append = false }) => {
        const full = inRoot(path);
        await mkdir(dirname(full), { recursive: true });
        await (append ? appendFile : writeFile)(full, content);
        return { path: relative(root, full), bytes: Buffer.byteLength(content) };
      } },
    { name: 'fs_stat', description: 'Size, kind and modification time of a workspace path.',
      parameters: obj({ path: str('Path relative to the workspace root') }),
      outputSchema: obj({ path: str(), kind: { enum: ['file', 'directory'] }, bytes: num(), modifiedAt: str('ISO-8601') }),
      execute: async ({ path }) => {
        const s = await stat(inRoot(path));
        return { path, kind: s.isDirectory() ? 'directory' : 'file', bytes: s.size, modifiedAt: s.mtime.toISOString() };
      } },
    { name: 'fs_delete', description: 'Delete a file or an empty directory from the workspace.',
      parameters: obj({ path: str('Path relative to the workspace root') }),
      execute: async ({ path }) => {
        if (inRoot(path) === root) throw new Error('refusing to delete the workspace root');
        await rm(inRoot(path));
        return { deleted: path };
      } },
  ];

  const ticketTools = [
    { name: 'tickets_search', description: 'Full-text search over support tickets (title and body). Returns summaries only; use tickets_get for body and comments.',
      parameters: obj({ query: str('Words to look for, case-insensitive'), status: { enum: ['open', 'closed'], description: 'Only tickets in this status' }, priority: { enum: ['low', 'medium', 'high'] }, limit: int('Maximum results', { minimum: 1, maximum: 50 }) }, ['query']),
      outputSchema: obj({ total: num('Matches before the limit'), tickets: { type: 'array', items: ticketRef } }),
      execute: async ({ query, status, priority, limit = 10 }) => {
        const hits = tickets.filter((t) => (!status || t.status === status) && (!priority || t.priority === priority) &&
          `${t.title} ${t.body}`.toLowerCase().includes(query.toLowerCase()));
        return { total: hits.length, tickets: hits.slice(0, limit).map(({ id, title, status, priority }) => ({ id, title, status, priority })) };
      } },
    { name: 'tickets_get', description: 'Fetch one ticket with its body, assignee and comment thread.',
      parameters: obj({ id: str('Ticket id, e.g. T-101') }),
      outputSchema: obj({ ...ticketRef.properties, assignee: { type: ['string', 'null'] }, body: str(), comments: { type: 'array', items: obj({ author: str(), text: str() }) } }),
      execute: async ({ id }) => structuredClone(findTicket(id)) },
    { name: 'tickets_create', description: 'Open a new support ticket.',
      parameters: obj({ title: str('One-line summary'), body: str('Steps to reproduce, impact'), priority: { enum: ['low', 'medium', 'high'] }, assignee: str('User handle') }, ['title', 'body']),
      outputSchema: obj({ id: str(), status: { enum: ['open'] } }),
      execute: async ({ title, body, priority = 'medium', assignee = null }, ctx) => {
        const id = `T-${101 + tickets.length}`;
        tickets.push({ id, title, body, priority, assignee, status: 'open', comments: [] });
        audit.push({ callId: ctx.callId, action: 'create', id });
        return { id, status: 'open' };
      } },
    { name: 'tickets_update', description: 'Change the status, priority or assignee of a ticket, optionally adding a comment in the same step.',
      parameters: obj({ id: str('Ticket id'), status: { enum: ['open', 'closed'] }, priority: { enum: ['low', 'medium', 'high'] }, assignee: str('User handle'), comment: str('Comment text, posted as "agent"') }, ['id']),
      execute: async ({ id, comment, ...patch }, ctx) => {
        const t = findTicket(id);
        if (patch.assignee) user(patch.assignee);
        Object.assign(t, patch);
        if (comment) t.comments.push({ author: 'agent', text: comment });
        audit.push({ callId: ctx.callId, action: 'update', id, patch, comment });
        return { ok: true, ticket: { id: t.id, status: t.status, priority: t.priority, assignee: t.assignee } };
      } },
    { name: 'tickets_stats', description: 'Count tickets grouped by status, priority or assignee.',
      parameters: obj({ groupBy: { enum: ['status', 'priority', 'assignee'] } }),
      execute: async ({ groupBy }) => {
        const counts = {};
        for (const t of tickets) counts[t[groupBy] ?? 'unassigned'] = (counts[t[groupBy] ?? 'unassigned'] ?? 0) + 1;
        return { groupBy, counts };
      } },
    // The unreliable one: every third call fails like a flaky upstream. In the
    // guest this is a catchable Error, so one outage need not fail the program.
    { name: 'sla_check', description: 'Hours left before a ticket breaches its service-level agreement (SLA service, sometimes unavailable).',
      parameters: obj({ id: str('Ticket id') }),
      execute: async ({ id }) => {
        if (++slaCalls % 3 === 0) throw new Error('SLA service unavailable (503), retry later');
        const t = findTicket(id);
        return { id, hoursLeft: { high: 4, medium: 24, low: 72 }[t.priority] - slaCalls };
      } },
  ];

  const people = [
    { name: 'users_lookup', description: 'Profile of a user by handle: display name, email, team and timezone.',
      parameters: obj({ handle: str('Handle without "@"') }),
      outputSchema: obj({ handle: str(), name: str(), email: str(), team: str(), timezone: str('IANA zone') }),
      execute: async ({ handle }) => ({ ...user(handle) }) },
    { name: 'users_list_team', description: 'Handles and names of everyone on a team.',
      parameters: obj({ team: { enum: ['identity', 'billing', 'support'] } }),
      outputSchema: obj({ team: str(), members: { type: 'array', items: obj({ handle: str(), name: str() }) } }),
      execute: async ({ team }) => ({ team, members: users.filter((u) => u.team === team).map(({ handle, name }) => ({ handle, name })) }) },
  ];

  const calendar = [
    { name: 'calendar_list', description: 'Events on a given day, sorted by start time.',
      parameters: obj({ date: isoDate }),
      execute: async ({ date }) => ({ date, events: events.filter((e) => e.start.startsWith(day(date))).sort((a, b) => a.start.localeCompare(b.start)) }) },
    { name: 'calendar_free_slots', description: 'Free slots of at least durationMin minutes between 09:00 and 17:00 UTC on a day, for all attendees at once.',
      parameters: obj({ date: isoDate, durationMin: int('Minimum slot length', { minimum: 15, maximum: 480 }), attendees: { type: 'array', items: str('User handle'), minItems: 1 } }),
      outputSchema: obj({ slots: { type: 'array', items: obj({ start: str('ISO-8601'), end: str('ISO-8601') }) } }),
      execute: async ({ date, durationMin, attendees }) => {
        attendees.forEach(user);
        const busy = events.filter((e) => e.start.startsWith(day(date)) && e.attendees.some((a) => attendees.includes(a)))
          .map((e) => [Date.parse(e.start), Date.parse(e.start) + e.durationMin * ms.minute]).sort((a, b) => a[0] - b[0]);
        const slots = [];
        let cursor = Date.parse(`${date}T09:00:00Z`);
        for (const [from, to] of [...busy, [Date.parse(`${date}T17:00:00Z`), Infinity]]) {
          if (from - cursor >= durationMin * ms.minute) slots.push({ start: new Date(cursor).toISOString(), end: new Date(from).toISOString() });
          cursor = Math.max(cursor, to);
        }
        return { slots };
      } },
    { name: 'calendar_create', description: 'Create a calendar event and invite attendees.',
      parameters: obj({ title: str(), start: str('ISO-8601 start time'), durationMin: int('Length in minutes', { minimum: 5, maximum: 480 }), attendees: { type: 'array', items: str('User handle') }, location: str() }, ['title', 'start', 'durationMin', 'attendees']),
      outputSchema: obj({ id: str(), title: str(), start: str(), durationMin: num(), attendees: { type: 'array', items: str() } }),
      execute: async ({ title, start, durationMin, attendees, location }) => {
        if (Number.isNaN(Date.parse(start))) throw new Error(`bad start time: ${start}`);
        attendees.forEach(user);
        const event = { id: `ev_${events.length + 1}`, title, start: new Date(start).toISOString(), durationMin, attendees };
        events.push({ ...event, location });
        return event;
      } },
  ];

  const numbers = [
    { name: 'calculator', description: 'Exact arithmetic on two numbers (add, sub, mul, div, pow). Use it instead of guessing sums.',
      parameters: obj({ op: { enum: ['add', 'sub', 'mul', 'div', 'pow'] }, a: num(), b: num() }),
      outputSchema: obj({ result: num() }),
      execute: async ({ op, a, b }) => {
        if (op === 'div' && b === 0) throw new Error('division by zero');
        return { result: { add: a + b, sub: a - b, mul: a * b, div: a / b, pow: a ** b }[op] };
      } },
    { name: 'currency_convert', description: 'Convert an amount between currencies at today\'s reference rate, rounded to cents.',
      parameters: obj({ amount: num(), from: { enum: Object.keys(eurPer) }, to: { enum: Object.keys(eurPer) } }),
      outputSchema: obj({ amount: num(), currency: str(), rate: num() }),
      execute: async ({ amount, from, to }) => {
        const rate = eurPer[from] / eurPer[to];
        return { amount: Math.round(amount * rate * 100) / 100, currency: to, rate: Math.round(rate * 1e6) / 1e6 };
      } },
    { name: 'stats_summary', description: 'Count, min, max, mean and median of a list of numbers.',
      parameters: obj({ values: { type: 'array', items: num(), minItems: 1 } }),
      outputSchema: obj({ count: num(), min: num(), max: num(), mean: num(), median: num() }),
      execute: async ({ values }) => {
        const s = [...values].sort((a, b) => a - b);
        const mid = s.length >> 1;
        return { count: s.length, min: s[0], max: s.at(-1), mean: s.reduce((x, y) => x + y, 0) / s.length, median: s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2 };
      } },
  ];

  const time = [
    { name: 'time_now', description: 'Current time as ISO-8601 UTC, plus the calendar date in UTC.',
      parameters: obj({}),
      outputSchema: obj({ iso: str(), date: str('YYYY-MM-DD') }),
      execute: async () => { const iso = new Date().toISOString(); return { iso, date: iso.slice(0, 10) }; } },
    { name: 'date_add', description: 'Add days and/or hours to an ISO-8601 date or time (negative values subtract).',
      parameters: obj({ date: str('ISO-8601 date or time'), days: num(), hours: num() }, ['date']),
      outputSchema: obj({ iso: str(), date: str('YYYY-MM-DD') }),
      execute: async ({ date, days = 0, hours = 0 }) => {
        const t = Date.parse(date);
        if (Number.isNaN(t)) throw new Error(`bad date: ${date}`);
        const iso = new Date(t + days * ms.day + hours * ms.hour).toISOString();
        return { iso, date: iso.slice(0, 10) };
      } },
    { name: 'date_diff', description: 'Signed difference between two ISO-8601 dates or times in minutes, hours or days.',
      parameters: obj({ from: str(), to: str(), unit: { enum: ['minute', 'hour', 'day'] } }),
      outputSchema: obj({ value: num(), unit: str() }),
      execute: async ({ from, to, unit }) => ({ value: (Date.parse(to) - Date.parse(from)) / ms[unit], unit }) },
  ];

  const store = [
    { name: 'kv_get', description: 'Read a value from the conversation\'s scratch key-value store (null when missing or expired).',
      parameters: obj({ key: str() }),
      execute: async ({ key }) => {
        const e = kv.get(key);
        return { key, value: e && (!e.expires || e.expires > Date.now()) ? e.value : null };
      } },
    { name: 'kv_set', description: 'Store any JSON value under a key, optionally expiring after ttlSeconds.',
      parameters: obj({ key: str(), value: { description: 'Any JSON value' }, ttlSeconds: int('Lifetime in seconds', { minimum: 1 }) }, ['key', 'value']),
      execute: async ({ key, value, ttlSeconds }) => (kv.set(key, { value, expires: ttlSeconds && Date.now() + ttlSeconds * 1000 }), { ok: true }) },
    { name: 'kv_delete', description: 'Remove a key from the scratch store.',
      parameters: obj({ key: str() }),
      execute: async ({ key }) => ({ deleted: kv.delete(key) }) },
    { name: 'kv_list', description: 'Keys in the scratch store, optionally only those starting with a prefix.',
      parameters: obj({ prefix: str() }, []),
      execute: async ({ prefix = '' }) => ({ keys: [...kv.keys()].filter((k) => k.startsWith(prefix)).sort() }) },
  ];

  const outside = [
    { name: 'email_send', description: 'Send a plain-text email from the support mailbox. Queued, not delivered synchronously.',
      parameters: obj({ to: { type: 'array', items: str('Address'), minItems: 1 }, subject: str(), body: str(), cc: { type: 'array', items: str() } }, ['to', 'subject', 'body']),
      execute: async (mail, ctx) => (sent.push({ ...mail, callId: ctx.callId }), { queued: true, messageId: `msg_${sent.length}` }) },
    { name: 'web_search', description: 'Search the public web. Returns titles, URLs and snippets (here: canned results).',
      parameters: obj({ query: str(), limit: int('Maximum results', { minimum: 1, maximum: 10 }) }, ['query']),
      execute: async ({ query, limit = 3 }) => ({ results: Array.from({ length: Math.min(limit, 2) }, (_, i) => ({ title: `${query} (result ${i + 1})`, url: `https://example.com/search/${i + 1}`, snippet: `About ${query}.` })) }) },
    // Slow on purpose (~300 ms). It honours ctx.signal, which fires if the run is
    // aborted, expires while parked or the session closes: no work outlives its cell.
    { name: 'weather_lookup', description: 'Current weather for a city (slow upstream, ~300 ms).',
      parameters: obj({ city: str('City name in English') }),
      outputSchema: obj({ city: str(), tempC: num(), conditions: { enum: ['sunny', 'cloudy', 'rain'] } }),
      execute: ({ city }, ctx) => new Promise((done, fail) => {
        const timer = setTimeout(() => done({ city, tempC: 8 + (city.length * 7) % 15, conditions: ['sunny', 'cloudy', 'rain'][city.length % 3] }), 300);
        ctx.signal.addEventListener('abort', () => { clearTimeout(timer); fail(new Error('aborted')); }, { once: true });
      }) },
    // A dash in the host name: the guest calls it as `llm_task` (callable names are
    // made JavaScript-safe deterministically, and the quick index shows them).
    { name: 'llm-task', description: 'Run a small sub-model prompt over some text (here: a fake that keeps the first sentence).',
      parameters: obj({ prompt: str('Instruction for the sub-model'), input: str('Text to work on') }),
      outputSchema: obj({ text: str() }),
      execute: async ({ input }) => ({ text: input.split(/(?<=\.)\s/)[0] }) },
  ];

  return {
    tools: [...files, ...ticketTools, ...people, ...calendar, ...numbers, ...time, ...store, ...outside],
    // Host-side views of the fakes, so the gateway can show that effects are real.
    state: { tickets, events, sent, audit },
  };
}
