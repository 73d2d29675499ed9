// `codemode-native mcp` passes its upstreams' resources, prompts, completions and logging
// through to a real SDK Client, over stdio and over HTTP: the real everything server (which
// has all of them) and the fixture (which adds items at run time, sending list_changed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { FIXTURE, binOf, tempDir, writeConfig, connectStdio, startHttp, connectHttp, value, GUARD_MS } from './_cli.mjs';
import { eventually } from './_helpers.mjs';

let temp;
let http;
const clients = {};

before(async () => {
  temp = tempDir('cli-passthrough-');
  const file = writeConfig(temp.dir, {
    mcpServers: {
      up: { command: process.execPath, args: [FIXTURE] },
      everything: { command: process.execPath, args: [binOf('@modelcontextprotocol/server-everything'), 'stdio'] },
    },
    codeMode: { timeoutMs: 60_000 },
  });
  clients.stdio = (await connectStdio(file)).client;
  http = await startHttp(file);
  clients.http = (await connectHttp(http.url)).client;
});

after(async () => {
  await Promise.all(Object.values(clients).map((c) => c.close().catch(() => {})));
  http?.child.kill('SIGTERM');
  await http?.exited;
  temp?.remove();
});

const SERVER = 'codemode-native/server';

for (const transport of ['stdio', 'http']) {
  const client = () => clients[transport];

  test(`${transport}: the command declares resources, prompts, completions and logging`, () => {
    const capabilities = client().getServerCapabilities();
    // The everything server offers subscriptions, so the command does.
    assert.deepEqual(capabilities.resources, { listChanged: true, subscribe: true });
    assert.deepEqual(capabilities.prompts, { listChanged: true });
    assert.deepEqual(capabilities.completions, {});
    assert.deepEqual(capabilities.logging, {});
  });

  test(`${transport}: resources keep their URIs and name their server`, async () => {
    const { resources } = await client().listResources();
    const doc = resources.find((r) => r.uri === 'demo://resource/static/document/architecture.md');
    assert.equal(doc?._meta?.[SERVER], 'everything');
    assert.match(doc.description, /^\[everything\] /);
    const first = resources.find((r) => r.uri === 'test://cli-upstream/first');
    assert.deepEqual({ server: first?._meta?.[SERVER], description: first?.description }, { server: 'up', description: '[up] Resource first' });
  });

  test(`${transport}: a listed resource is read from the server that owns it`, async () => {
    const { contents } = await client().readResource({ uri: 'test://cli-upstream/first' });
    assert.deepEqual(contents, [{ uri: 'test://cli-upstream/first', text: 'first' }]);
  });

  test(`${transport}: a resource of a template is read from the server whose template fits it`, async () => {
    const { resourceTemplates } = await client().listResourceTemplates();
    assert.ok(resourceTemplates.some((t) => t.uriTemplate === 'demo://resource/dynamic/text/{resourceId}' && t._meta[SERVER] === 'everything'));
    const { contents } = await client().readResource({ uri: 'demo://resource/dynamic/text/3' });
    assert.equal(contents[0].uri, 'demo://resource/dynamic/text/3');
    assert.match(contents[0].text, /^Resource 3: /);
  });

  test(`${transport}: a resource no server has is an error that says its code once`, async () => {
    const error = await client().readResource({ uri: 'nowhere://x' }).then(() => null, (e) => e);
    assert.equal(error?.code, -32602);
    assert.equal(error.message.match(/MCP error/g).length, 1);
    assert.match(error.message, /nowhere:\/\/x/);
  });

  test(`${transport}: a subscribed resource's updates reach the client, and stop when it unsubscribes`, async () => {
    const updated = [];
    client().setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.push(n.params.uri));
    const doc = (name) => `demo://resource/static/document/${name}.md`;
    await client().subscribeResource({ uri: doc('architecture') });
    // Once toggled on, the everything server sends an update of each subscribed URI at once.
    await value(client(), 'return await MCP.everything.toggleSubscriberUpdates({})');
    try {
      await eventually(() => updated.includes(doc('architecture')), 'an update of the subscribed resource', GUARD_MS);
    } finally {
      await value(client(), 'return await MCP.everything.toggleSubscriberUpdates({})');
    }
    await client().unsubscribeResource({ uri: doc('architecture') });
    await client().subscribeResource({ uri: doc('features') });
    updated.length = 0;
    // The server sends its subscriptions in the order they were made: an update of the
    // first resource, were it still subscribed, would arrive before this one.
    await value(client(), 'return await MCP.everything.toggleSubscriberUpdates({})');
    try {
      await eventually(() => updated.includes(doc('features')), 'an update of the second resource', GUARD_MS);
    } finally {
      await value(client(), 'return await MCP.everything.toggleSubscriberUpdates({})');
      await client().unsubscribeResource({ uri: doc('features') });
    }
    assert.deepEqual([...new Set(updated)], [doc('features')]);
  });

  test(`${transport}: subscribing to a resource no server has is an error`, async () => {
    const error = await client().subscribeResource({ uri: 'nowhere://x' }).then(() => null, (e) => e);
    assert.equal(error?.code, -32602);
    assert.match(error.message, /nowhere:\/\/x/);
  });

  test(`${transport}: prompts are named <server>__<prompt> and got from their server`, async () => {
    const { prompts } = await client().listPrompts();
    const names = prompts.map((p) => p.name);
    assert.ok(names.includes('everything__args-prompt') && names.includes('up__first'), names.join());
    const { messages } = await client().getPrompt({ name: 'everything__args-prompt', arguments: { city: 'Paris' } });
    assert.equal(messages[0].content.text, "What's weather in Paris?");
  });

  test(`${transport}: an unknown prompt names the naming scheme`, async () => {
    const error = await client().getPrompt({ name: 'args-prompt' }).then(() => null, (e) => e);
    assert.equal(error?.code, -32602);
    assert.equal(error.message, 'MCP error -32602: Prompt "args-prompt" not found: prompts are named <server>__<prompt> (servers: up, everything)');
  });

  test(`${transport}: prompt argument completions come from the owning server`, async () => {
    const { completion } = await client().complete({ ref: { type: 'ref/prompt', name: 'everything__completable-prompt' }, argument: { name: 'department', value: 'S' } });
    assert.deepEqual(completion.values, ['Sales', 'Support']);
  });

  test(`${transport}: resource template completions go to the server of the template`, async () => {
    const { completion } = await client().complete({ ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' }, argument: { name: 'resourceId', value: '1' } });
    assert.deepEqual(completion.values, ['1']);
  });

  test(`${transport}: an upstream resources/list_changed and prompts/list_changed reach the client`, async () => {
    const seen = [];
    client().setNotificationHandler(ResourceListChangedNotificationSchema, () => seen.push('resources'));
    client().setNotificationHandler(PromptListChangedNotificationSchema, () => seen.push('prompts'));
    // Each command (stdio, HTTP) runs its own upstreams.
    assert.equal(await value(client(), 'return (await MCP.up.addItems({ name: "second" })).content[0].text'), 'added');
    await eventually(() => seen.includes('resources') && seen.includes('prompts'), 'both list_changed notifications', GUARD_MS);
    const { prompts } = await client().listPrompts();
    assert.ok(prompts.some((p) => p.name === 'up__second'));
  });
}

test('logging/setLevel reaches the upstreams, and their messages come back at the client level', async () => {
  const messages = [];
  clients.stdio.setNotificationHandler(LoggingMessageNotificationSchema, (n) => messages.push(n.params));
  await clients.stdio.setLoggingLevel('error');
  // The everything server logs at random levels every few seconds once toggled on, and
  // sends only those at or above the level it was told.
  await value(clients.stdio, 'return await MCP.everything.toggleSimulatedLogging({})');
  try {
    await eventually(() => messages.some((m) => m.logger === 'everything'), 'a log message from the everything server', GUARD_MS);
  } finally {
    await value(clients.stdio, 'return await MCP.everything.toggleSimulatedLogging({})');
  }
  const severe = ['error', 'critical', 'alert', 'emergency'];
  for (const m of messages) assert.ok(severe.includes(m.level), JSON.stringify(m));
});

test('a modern listen stream naming a resource gets its upstream updates, tagged with the stream', async () => {
  const uri = 'demo://resource/static/document/how-it-works.md';
  const controller = new AbortController();
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'listen-test', version: '1.0.0' }, 'io.modelcontextprotocol/clientCapabilities': {} };
  const response = await fetch(http.url, {
    method: 'POST',
    signal: controller.signal,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'subscriptions/listen', params: { _meta: meta, notifications: { resourceSubscriptions: [uri] } } }),
  });
  const reader = response.body.getReader();
  let text = '';
  const messages = () => [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]));
  // Frames until `done(messages)`: each read waits for the next chunk of the stream.
  const readUntil = async (done) => {
    while (!done(messages())) text += new TextDecoder().decode((await reader.read()).value);
  };
  try {
    await readUntil((m) => m.length > 0);
    assert.deepEqual(messages()[0].params.notifications, { resourceSubscriptions: [uri] });
    await value(clients.http, 'return await MCP.everything.toggleSubscriberUpdates({})');
    try {
      await readUntil((m) => m.some((n) => n.method === 'notifications/resources/updated'));
    } finally {
      await value(clients.http, 'return await MCP.everything.toggleSubscriberUpdates({})');
    }
    const update = messages().find((n) => n.method === 'notifications/resources/updated');
    assert.deepEqual(update.params, { uri, _meta: { 'io.modelcontextprotocol/subscriptionId': 9 } });
  } finally {
    controller.abort();
  }
});
