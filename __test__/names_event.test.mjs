// Renamed tools reach onEvent once: a `names` event lists each tool whose name in cells
// differs from its own when the rename appears (construction, addTools, an MCP server's
// tools loading), and never again; for host tools it agrees with session.names().
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { makeSession, closeAll, run, show } from './_helpers.mjs';

after(closeAll);

const execute = () => 'ok';
const tools = (...names) => names.map((name) => ({ name, execute }));

function listen() {
  const events = [];
  return { events, onEvent: (event) => events.push(event), names: () => events.filter((e) => e.type === 'names') };
}

test('construction reports the renamed tools in one names event, matching names()', async () => {
  const seen = listen();
  const s = makeSession({ tools: tools('plain', 'web-search', 'class'), onEvent: seen.onEvent });
  const [event, ...more] = seen.names();
  assert.deepEqual(more, []);
  assert.deepEqual(event.renamed.map((r) => r.toolName), ['web-search', 'class']);
  assert.deepEqual(Object.fromEntries(event.renamed.map((r) => [r.toolName, r.callableName])), s.names());
  const r = await run(s, `return await ${s.names().class}({})`);
  assert.equal(r.status, 'completed', show(r));
  // Runs do not repeat it.
  assert.equal(seen.names().length, 1);
});

test('addTools reports only its new renames, and none when it brings none', () => {
  const seen = listen();
  const s = makeSession({ tools: tools('web-search'), onEvent: seen.onEvent });
  s.addTools(tools('plain_too'));
  s.addTools(tools('get-user', 'delete'));
  assert.deepEqual(
    seen.names().map((e) => e.renamed.map((r) => r.toolName)),
    [['web-search'], ['get-user', 'delete']],
  );
  assert.equal(seen.names()[1].renamed[0].callableName, 'get_user');
});

test('a session without renamed tools sends no names event', async () => {
  const seen = listen();
  const s = makeSession({ tools: tools('plain'), onEvent: seen.onEvent });
  s.addTools(tools('also_plain'));
  const r = await run(s, 'return await plain({})');
  assert.equal(r.status, 'completed', show(r));
  assert.deepEqual(seen.names(), []);
});

test('an MCP server whose tools are renamed reports them once its tools load', async () => {
  const server = new McpServer({ name: 'docs', version: '1.0.0' });
  server.registerTool('search-pages', { inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'found' }] }));
  server.registerTool('plain', { inputSchema: {} }, async () => ({ content: [] }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(b);
  try {
    const seen = listen();
    const s = makeSession({ tools: tools('web-search'), mcpServers: [{ name: 'my-docs', client }], onEvent: seen.onEvent });
    await s.ready();
    assert.deepEqual(seen.names().map((e) => e.renamed), [
      [{ toolName: 'web-search', callableName: 'web_search' }],
      [
        { toolName: 'search-pages', callableName: 'MCP.myDocs.searchPages', server: 'my-docs' },
        { toolName: 'plain', callableName: 'MCP.myDocs.plain', server: 'my-docs' },
      ],
    ]);
    const r = await run(s, 'return (await MCP.myDocs.searchPages()).content[0].text');
    assert.equal(r.value, 'found', show(r));
    // A reload with the same tools reports nothing new.
    await s.refreshMcp();
    assert.equal(seen.names().length, 2);
  } finally {
    await client.close();
  }
});
