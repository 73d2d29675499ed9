// `codemode-native mcp` over stdio: a real SDK Client spawns the command, which fronts the
// real filesystem and memory servers and a fixture server, and sees only exec and wait.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CodeModeSession } from './_helpers.mjs';
import { tempDir, standardConfig, writeConfig, connectStdio, call, run, value, GUARD_MS } from './_cli.mjs';
import { eventually } from './_helpers.mjs';

let temp;
let command;

before(async () => {
  temp = tempDir('cli-mcp-');
  command = await connectStdio(writeConfig(temp.dir, standardConfig(temp.dir)));
});

after(async () => {
  await command?.client.close();
  temp?.remove();
});

test('the command serves exactly exec and wait, with the schemas of modelTools()', async () => {
  const { tools } = await command.client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['exec', 'wait']);
  const local = new CodeModeSession({ sessionId: 'cli-schema', isolation: 'thread' });
  const [exec, wait] = local.modelTools();
  await local.close();
  assert.deepEqual(tools[0].inputSchema, exec.parameters);
  assert.deepEqual(tools[1].inputSchema, wait.parameters);
  assert.equal(tools[1].description, wait.description);
  // exec's description indexes the upstream servers.
  assert.match(tools[0].description, /MCP\.fs/);
  assert.match(tools[0].description, /MCP\.memory/);
  assert.doesNotMatch(tools[0].description, /Unavailable now/);
});

test('a program writes and reads files through MCP.fs', async () => {
  const file = path.join(temp.dir, 'note.txt');
  writeFileSync(path.join(temp.dir, 'input.txt'), 'from the host');
  const got = await value(command.client, `
    await MCP.fs.writeFile({ path: ${JSON.stringify(file)}, content: "written by code mode" });
    const read = await MCP.fs.readTextFile({ path: ${JSON.stringify(path.join(temp.dir, 'input.txt'))} });
    return read.content[0].text;
  `);
  assert.equal(got, 'from the host');
  assert.equal(readFileSync(file, 'utf8'), 'written by code mode');
});

test('upstream tools are reachable only through MCP, with their declarations', async () => {
  const got = await value(command.client, `
    return { declarations: (await API.read("mcp/fs.d.ts")).content, global: typeof read_text_file, found: (await catalog.search("read file")).length };
  `);
  assert.match(got.declarations, /readTextFile/);
  assert.equal(got.global, 'undefined');
  assert.equal(got.found, 0);
});

test('a program builds a memory graph through MCP.memory', async () => {
  const graph = await value(command.client, `
    await MCP.memory.createEntities({ entities: [
      { name: "Ada", entityType: "person", observations: ["wrote the first program"] },
      { name: "Analytical Engine", entityType: "machine", observations: [] },
    ] });
    await MCP.memory.createRelations({ relations: [{ from: "Ada", to: "Analytical Engine", relationType: "programmed" }] });
    const g = (await MCP.memory.readGraph({})).structuredContent;
    return { entities: g.entities.map((e) => e.name).sort(), relations: g.relations.map((r) => r.from + " " + r.relationType + " " + r.to) };
  `);
  assert.deepEqual(graph, { entities: ['Ada', 'Analytical Engine'], relations: ['Ada programmed Analytical Engine'] });
});

test('a waiting run is finished with wait', async () => {
  const first = await call(command.client, 'exec', { code: 'await yield_control(); return (await MCP.up.pid()).content.length' });
  assert.equal(first.status, 'waiting');
  assert.equal(first.reason, 'yield');
  assert.match(first.runId, /^cm_/);
  let result = await call(command.client, 'wait', { runId: first.runId });
  while (result.status === 'waiting') result = await call(command.client, 'wait', { runId: result.runId });
  assert.deepEqual(result, { status: 'completed', value: 1 });
});

test('a failed program is an isError result with its code', async () => {
  const result = await run(command.client, 'throw new Error("nope")');
  assert.equal(result.status, 'failed');
  assert.equal(result.code, 'guest_error');
  assert.match(result.error, /nope/);
  const unknown = await command.client.callTool({ name: 'search', arguments: {} }).then(() => null, (error) => error);
  assert.match(String(unknown?.message), /Unknown tool "search"/);
});

// The SDK Client drops a progress notification that arrives in the same read as its
// response, so these programs end in a call that answers only when the test cancels it:
// every message the test asserts was sent while the request was still open.
const cancelledLines = () => (command.stderr.text.match(/^\[up\] block: cancelled$/gm) ?? []).length;

async function cancelWhenBlocked(code) {
  const controller = new AbortController();
  const updates = [];
  const pending = command.client.callTool({ name: 'exec', arguments: { code } }, undefined, {
    signal: controller.signal,
    timeout: GUARD_MS,
    onprogress: (progress) => {
      updates.push(progress);
      if (progress.message === 'MCP.up.block started') controller.abort('the test cancels');
    },
  });
  await assert.rejects(pending);
  return updates;
}

test('with a progress token, each nested call start and end reaches the client as progress', async () => {
  const before = cancelledLines();
  const updates = await cancelWhenBlocked('await MCP.up.pid(); return await MCP.up.block({})');
  const messages = updates.map((u) => u.message);
  assert.equal(messages[0], 'MCP.up.pid started');
  assert.match(messages[1], /^MCP\.up\.pid ok \(\d+(\.\d+)? ms\)$/);
  assert.equal(messages[2], 'MCP.up.block started');
  assert.deepEqual(updates.map((u) => u.progress), updates.map((_, i) => i + 1));
  await eventually(() => cancelledLines() > before, 'the upstream call cancelled', GUARD_MS);
});

test('cancelling a call cancels the upstream call, and the session goes on', async () => {
  const before = cancelledLines();
  await cancelWhenBlocked('return await MCP.up.block({})');
  // The fixture answers its blocked call only when our cancellation reaches it.
  await eventually(() => cancelledLines() > before, 'the upstream call cancelled', GUARD_MS);
  assert.equal(await value(command.client, 'return 1 + 1'), 2);
});

test('upstream stderr is passed through, prefixed with the server name', async () => {
  await command.stderr.waitFor(/^\[up\] cli-upstream ready \(pid \d+\)$/m, 'the fixture start line');
  await command.stderr.waitFor(/^\[fs\] /m, 'a line of the filesystem server');
});

test('an upstream tools/list_changed refreshes exec and tells the client', async () => {
  let changed = 0;
  command.client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed++; });
  assert.equal(await value(command.client, 'return (await MCP.up.addTool({ name: "fresh_tool" })).content[0].text'), 'added');
  await eventually(() => changed > 0, 'tools/list_changed from the command', GUARD_MS);
  // The session re-listed the server before the command told the client.
  assert.ok((await value(command.client, 'return Object.keys(MCP.up)')).includes('freshTool'));
  assert.equal(await value(command.client, 'return (await MCP.up.freshTool({})).content[0].text'), 'fresh_tool');
});

test('an upstream that dies during a call fails it as a catchable error naming the server, and is restarted', async () => {
  const before = await value(command.client, 'return (await MCP.up.pid()).content[0].text');
  const message = await value(command.client, 'try { await MCP.up.crash({}); return "no error"; } catch (e) { return e.message; }');
  assert.match(message, /MCP server "up"/);
  const after = await eventually(async () => {
    const r = await value(command.client, 'try { return (await MCP.up.pid()).content[0].text; } catch (e) { if (!/MCP server "up"/.test(e.message)) throw e; return null; }');
    return r !== null && r;
  }, 'the restarted upstream', GUARD_MS);
  assert.notEqual(after, before);
});

test('an upstream killed from outside is restarted; other servers keep working meanwhile', async () => {
  const pid = Number(await value(command.client, 'return (await MCP.up.pid()).content[0].text'));
  process.kill(pid, 'SIGKILL');
  assert.equal(await value(command.client, 'return (await MCP.fs.listAllowedDirectories({})).isError'), false);
  const next = await eventually(async () => {
    const r = await value(command.client, 'try { return (await MCP.up.pid()).content[0].text; } catch (e) { return e.message; }');
    if (!/^\d+$/.test(r)) assert.match(r, /MCP server "up"/);
    return /^\d+$/.test(r) && Number(r) !== pid && Number(r);
  }, 'a new upstream process', GUARD_MS);
  assert.notEqual(next, pid);
});
