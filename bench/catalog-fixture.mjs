// Deterministic 1,000-tool catalog that looks like a real gateway's: names such as
// `crm_contacts_search_17`, one-sentence descriptions, small JSON Schemas (3–5 properties).
const DOMAINS = {
  crm: ['contacts', 'deals', 'accounts', 'leads'],
  billing: ['invoices', 'subscriptions', 'payments', 'refunds'],
  email: ['messages', 'drafts', 'threads', 'labels'],
  calendar: ['events', 'calendars', 'invites'],
  drive: ['files', 'folders', 'permissions'],
  slack: ['channels', 'messages', 'users'],
  github: ['issues', 'pulls', 'repos', 'releases'],
  jira: ['issues', 'sprints', 'boards'],
  analytics: ['reports', 'dashboards', 'events'],
  hr: ['employees', 'timeoff', 'payroll'],
};
const ACTIONS = {
  search: 'Search {r} in {d} by free-text query and filters',
  get: 'Get one {r1} from {d} by id',
  list: 'List {r} in {d}, newest first, with pagination',
  create: 'Create a new {r1} in {d}',
  update: 'Update fields of an existing {r1} in {d}',
  delete: 'Delete a {r1} from {d} permanently',
  send: 'Send a {r1} through {d} to one or more recipients',
  archive: 'Archive a {r1} in {d} so it no longer shows in lists',
};
const EXTRA_PROPS = [
  ['limit', { type: 'integer', minimum: 1, maximum: 100, description: 'Maximum number of results' }],
  ['cursor', { type: 'string', description: 'Opaque pagination cursor from a previous call' }],
  ['since', { type: 'string', format: 'date-time', description: 'Only items changed after this time' }],
  ['tags', { type: 'array', items: { type: 'string' }, description: 'Tags to filter or apply' }],
  ['notify', { type: 'boolean', description: 'Send a notification to watchers' }],
  ['priority', { type: 'string', enum: ['low', 'normal', 'high'], description: 'Priority level' }],
  ['owner', { type: 'string', description: 'Owner user id or email address' }],
];

const singular = (r) => (r.endsWith('ies') ? r.slice(0, -3) + 'y' : r.endsWith('s') ? r.slice(0, -1) : r);

/** @returns {Array<{ name, description, parameters, execute }>} */
export function makeCatalog(count = 1000, execute = async (input) => ({ ok: true, input })) {
  const combos = [];
  for (const [d, resources] of Object.entries(DOMAINS))
    for (const r of resources) for (const a of Object.keys(ACTIONS)) combos.push([d, r, a]);
  const tools = [];
  for (let i = 0; i < count; i++) {
    const [d, r, a] = combos[i % combos.length];
    const name = `${d}_${r}_${a}_${i}`;
    const r1 = singular(r);
    const properties = {};
    const required = [];
    if (a === 'search') { properties.query = { type: 'string', description: `Free-text query over ${r}` }; required.push('query'); }
    else if (a === 'list') { /* only extras */ }
    else if (a === 'send') { properties.to = { type: 'array', items: { type: 'string' }, description: 'Recipient addresses' }; properties.body = { type: 'string', description: 'Message body' }; required.push('to', 'body'); }
    else { properties.id = { type: 'string', description: `The ${r1} id` }; required.push('id'); }
    if (a === 'create' || a === 'update') properties.fields = { type: 'object', additionalProperties: true, description: `${r1} fields to set` };
    const want = 3 + (i % 3); // 3–5 properties
    for (let k = 0; Object.keys(properties).length < want; k++) {
      const [pn, ps] = EXTRA_PROPS[(i + k) % EXTRA_PROPS.length];
      if (!(pn in properties)) properties[pn] = ps;
    }
    tools.push({
      name,
      description: ACTIONS[a].replace('{r}', r).replace('{r1}', r1).replace('{d}', d) + '.',
      parameters: { type: 'object', properties, required, additionalProperties: false },
      execute,
    });
  }
  return tools;
}
