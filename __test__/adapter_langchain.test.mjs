// codemode-native/langchain: a full LangChain tool-calling loop with @langchain/core's
// offline fakeModel over the real addon: the model asks for exec with a cell that finds
// and calls a catalog tool converted from a LangChain tool, then answers in text.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { fakeModel } from '@langchain/core/testing';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { CodeModeSession } from 'codemode-native';
import { codeModeTools, catalogTools } from 'codemode-native/langchain';

const sessions = [];
after(() => Promise.all(sessions.map((s) => s.close())));
function session(tools) {
  const s = new CodeModeSession({ sessionId: `langchain-${sessions.length}`, tools });
  sessions.push(s);
  return s;
}

test('a LangChain agent loop runs exec over a converted catalog tool, then answers', async () => {
  const seen = [];
  const weather = tool(async ({ city }, config) => {
    seen.push({ city, signal: config.signal instanceof AbortSignal, context: config.context });
    return `sunny in ${city}`;
  }, { name: 'get_weather', description: 'Current weather of a city', schema: z.object({ city: z.string() }) });
  const s = session(catalogTools([weather]));
  const tools = codeModeTools(s, { budgetChars: 2000, context: { user: 'u1' } });
  const code = 'const [w] = await catalog.search("weather"); return await w({ city: "Oslo" });';
  const model = fakeModel()
    .respondWithTools([{ name: 'exec', args: { code }, id: 'call_1' }])
    .respond(new AIMessage('It is sunny in Oslo.'));
  const bound = model.bindTools(tools);
  const byName = new Map(tools.map((t) => [t.name, t]));

  const messages = [new HumanMessage('Weather in Oslo?')];
  let reply;
  for (let turn = 0; turn < 5; turn++) {
    reply = await bound.invoke(messages);
    messages.push(reply);
    if (!reply.tool_calls?.length) break;
    for (const call of reply.tool_calls) messages.push(await byName.get(call.name).invoke(call));
  }
  assert.equal(reply.content, 'It is sunny in Oslo.');
  const toolMessage = messages[2];
  assert.equal(toolMessage.tool_call_id, 'call_1');
  assert.deepEqual(JSON.parse(toolMessage.content), { status: 'completed', value: 'sunny in Oslo' });
  assert.deepEqual(seen, [{ city: 'Oslo', signal: true, context: { user: 'u1' } }]);
});

test('codeModeTools are LangChain tools with the session schemas', () => {
  const s = session([]);
  const tools = codeModeTools(s);
  assert.deepEqual(tools.map((t) => t.name), ['exec', 'wait']);
  assert.deepEqual(tools[0].schema, s.modelTools()[0].parameters);
});

test('a converted streaming tool is drained and a throw is a tool_error', async () => {
  const s = session(catalogTools([
    tool(async function* () { yield 'a'; yield 'b'; return 'done'; }, { name: 'stream', description: 'streams', schema: z.object({}) }),
    tool(async () => { throw new Error('backend down'); }, { name: 'broken', description: 'fails', schema: { type: 'object', properties: {} } }),
  ]));
  const ok = await s.exec({ code: 'return await stream({})' });
  assert.equal(ok.status, 'completed');
  assert.equal(ok.value, 'done');
  const failed = await s.exec({ code: 'return await broken({})' });
  assert.equal(failed.code, 'tool_error');
  assert.match(failed.error, /backend down/);
});

test('the exec tool passes the run signal into the session', async () => {
  let release;
  const started = new Promise((resolve) => { release = resolve; });
  let stopped;
  const toolAborted = new Promise((resolve) => { stopped = resolve; });
  const s = session([{
    name: 'hang',
    execute: (_input, ctx) => {
      release();
      return new Promise((r) => ctx.signal.addEventListener('abort', () => { stopped(true); r('stopped'); }));
    },
  }]);
  const controller = new AbortController();
  const pending = codeModeTools(s)[0].invoke({ code: 'return await hang()' }, { signal: controller.signal });
  await started;
  controller.abort();
  // LangChain rejects the aborted run itself; the signal still reaches the cell and its tool.
  await assert.rejects(pending, { name: 'AbortError' });
  assert.equal(await toolAborted, true);
});
