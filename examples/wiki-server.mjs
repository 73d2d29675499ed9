// A real MCP server (the official SDK) for the example gateway: a small team wiki.
//
// It runs in process over the SDK's in-memory transport, so the demo needs no
// network or child process, but the gateway talks to it through a stock SDK
// `Client`, exactly as it would to a remote server.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';

const pages = [
  { id: 'RB-7', space: 'runbooks', title: 'SSO login failures', updated: '2025-01-20', body: 'After a password reset the IdP session stays valid. Revoke the session cookie with `auth revoke --user <id>`; escalate to identity on-call if more than 10 users are affected.' },
  { id: 'RB-9', space: 'runbooks', title: 'Refresh token rotation', updated: '2024-11-02', body: 'Refresh tokens must carry a TTL (30 days for remember-me). Rotate on every use; revoke the family on reuse.' },
  { id: 'EN-3', space: 'engineering', title: 'Mobile performance budget', updated: '2025-02-11', body: 'LCP under 2.5 s on a 3G profile. Lazy-load below-the-fold images; ship AVIF.' },
  { id: 'BI-1', space: 'billing', title: 'Invoice terms', updated: '2024-09-30', body: 'Net 30 days. VAT 20% for EU customers; prices in EUR unless the contract says otherwise.' },
];

const pageRef = { id: z.string(), space: z.string(), title: z.string(), updated: z.string() };
const summary = ({ id, space, title, updated }) => ({ id, space, title, updated });
// Tools answer both ways: text for models that read content, structuredContent
// for code that wants fields (the guest gets both).
const reply = (structured) => ({ content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured });

function wikiServer() {
  const server = new McpServer({ name: 'wiki', version: '1.0.0' });
  server.registerTool('list_spaces', {
    description: 'List the wiki spaces and how many pages each holds.',
    inputSchema: {},
    outputSchema: { spaces: z.array(z.object({ space: z.string(), pages: z.number() })) },
  }, async () => {
    const counts = new Map();
    for (const p of pages) counts.set(p.space, (counts.get(p.space) ?? 0) + 1);
    return reply({ spaces: [...counts].map(([space, n]) => ({ space, pages: n })) });
  });
  server.registerTool('search_pages', {
    description: 'Search wiki pages by words in the title or body. Returns page summaries, best match first.',
    inputSchema: {
      query: z.string().describe('Words to look for'),
      space: z.enum(['runbooks', 'engineering', 'billing']).optional().describe('Only this space'),
      limit: z.number().int().min(1).max(20).default(5),
    },
    outputSchema: { pages: z.array(z.object(pageRef)) },
  }, async ({ query, space, limit }) => {
    const words = query.toLowerCase().split(/\W+/).filter(Boolean);
    const score = (p) => words.filter((w) => `${p.title} ${p.body}`.toLowerCase().includes(w)).length;
    const hits = pages.filter((p) => (!space || p.space === space) && score(p) > 0).sort((a, b) => score(b) - score(a));
    return reply({ pages: hits.slice(0, limit).map(summary) });
  });
  server.registerTool('get_page', {
    description: 'Read one wiki page in full (markdown body).',
    inputSchema: { id: z.string().describe('Page id, e.g. RB-7') },
    outputSchema: { ...pageRef, body: z.string() },
  }, async ({ id }) => {
    const page = pages.find((p) => p.id === id);
    if (!page) return { content: [{ type: 'text', text: `no page ${id}` }], isError: true };
    return reply({ ...page });
  });
  server.registerTool('create_page', {
    description: 'Create a wiki page in a space; returns its id.',
    inputSchema: { space: z.enum(['runbooks', 'engineering', 'billing']), title: z.string(), body: z.string().describe('Markdown') },
  }, async ({ space, title, body }) => {
    const id = `${space.slice(0, 2).toUpperCase()}-${pages.length + 1}`;
    pages.push({ id, space, title, body, updated: new Date().toISOString().slice(0, 10) });
    return { content: [{ type: 'text', text: id }] };
  });
  return server;
}

/** Starts the server and returns a connected SDK client plus a way to shut both down. */
export async function connectWiki() {
  const server = wikiServer();
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'example-gateway', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, close: async () => { await client.close(); await server.close(); } };
}
