// codemode-native/anthropic: a full Messages API agent loop with the real Anthropic client,
// offline through its `fetch` option (scripted responses), over the real addon: the model
// asks for exec with a cell that finds and calls a catalog tool converted from a
// betaZodTool, gets the tool_result, then answers in text.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
import { z } from 'zod';
import { CodeModeSession } from 'codemode-native';
import { codeModeTools, catalogTools, runToolUse } from 'codemode-native/anthropic';

const sessions = [];
after(() => Promise.all(sessions.map((s) => s.close())));
function session(tools) {
  const s = new CodeModeSession({ sessionId: `anthropic-${sessions.length}`, tools });
  sessions.push(s);
  return s;
}

function message(content, stop_reason) {
  return { id: `msg_${Math.random().toString(36).slice(2)}`, type: 'message', role: 'assistant', model: 'claude-test', content, stop_reason, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
}

// A client whose HTTP goes to `script`: each request body in, one Messages API response out.
function scriptedClient(script, urls = []) {
  const requests = [];
  const client = new Anthropic({
    apiKey: 'test-key',
    maxRetries: 0,
    fetch: async (url, init) => {
      urls.push(String(url));
      const body = JSON.parse(init.body);
      requests.push(body);
      return new Response(JSON.stringify(script(body, requests.length)), { status: 200, headers: { 'content-type': 'application/json' } });
    },
  });
  return { client, requests };
}

test('an Anthropic agent loop runs exec over a converted catalog tool, then answers', async () => {
  const seen = [];
  const weather = betaZodTool({
    name: 'get_weather',
    description: 'Current weather of a city',
    inputSchema: z.object({ city: z.string() }),
    run: async ({ city }, context) => { seen.push({ city, signal: context.signal instanceof AbortSignal }); return `sunny in ${city}`; },
  });
  const s = session(catalogTools([weather]));
  const tools = codeModeTools(s, { budgetChars: 2000 });
  const code = 'const [w] = await catalog.search("weather"); return await w({ city: "Oslo" });';
  const { client, requests } = scriptedClient((_body, n) => n === 1
    ? message([{ type: 'tool_use', id: 'toolu_1', name: 'exec', input: { code } }], 'tool_use')
    : message([{ type: 'text', text: 'It is sunny in Oslo.' }], 'end_turn'));

  const messages = [{ role: 'user', content: 'Weather in Oslo?' }];
  let response;
  for (let turn = 0; turn < 5; turn++) {
    response = await client.messages.create({ model: 'claude-test', max_tokens: 256, tools, messages });
    messages.push({ role: 'assistant', content: response.content });
    if (response.stop_reason !== 'tool_use') break;
    const results = [];
    for (const block of response.content.filter((b) => b.type === 'tool_use')) results.push(await runToolUse(tools, block));
    messages.push({ role: 'user', content: results });
  }
  assert.equal(response.content[0].text, 'It is sunny in Oslo.');
  assert.equal(requests.length, 2);
  // The request carried the tools in Messages API form (run is not sent).
  assert.deepEqual(requests[0].tools.map((t) => Object.keys(t).sort()), [['description', 'input_schema', 'name'], ['description', 'input_schema', 'name']]);
  assert.deepEqual(requests[0].tools[0].input_schema, s.modelTools()[0].parameters);
  const [toolResult] = requests[1].messages[2].content;
  assert.equal(toolResult.type, 'tool_result');
  assert.equal(toolResult.tool_use_id, 'toolu_1');
  assert.equal(toolResult.is_error, undefined);
  assert.deepEqual(JSON.parse(toolResult.content), { status: 'completed', value: 'sunny in Oslo' });
  assert.deepEqual(seen, [{ city: 'Oslo', signal: true }]);
});

test('runToolUse marks failed results and unknown tools as is_error', async () => {
  const s = session([{ name: 'broken', execute: () => { throw new Error('backend down'); } }]);
  const tools = codeModeTools(s);
  const failed = await runToolUse(tools, { type: 'tool_use', id: 't1', name: 'exec', input: { code: 'return await broken()' } });
  assert.equal(failed.is_error, true);
  assert.equal(JSON.parse(failed.content).code, 'tool_error');
  const unknown = await runToolUse(tools, { type: 'tool_use', id: 't2', name: 'nope', input: {} });
  assert.deepEqual(unknown, { type: 'tool_result', tool_use_id: 't2', content: 'Unknown tool: nope', is_error: true });
});

test('a converted tool that throws is a tool_error, and a zod tool runs on its parsed input', async () => {
  const tools = catalogTools([
    betaZodTool({ name: 'broken', description: 'fails', inputSchema: z.object({}), run: async () => { throw new Error('backend down'); } }),
    betaZodTool({ name: 'strict', description: 'needs n', inputSchema: z.object({ n: z.number() }), run: async ({ n }) => String(n) }),
  ]);
  const s = session(tools);
  const failed = await s.exec({ code: 'return await broken({})' });
  assert.equal(failed.code, 'tool_error');
  assert.match(failed.error, /backend down/);
  const ok = await s.exec({ code: 'return await strict({ n: 4 })' });
  assert.equal(ok.value, '4');
});

test('run passes the tool runner signal into exec', async () => {
  let release;
  const started = new Promise((resolve) => { release = resolve; });
  const s = session([{ name: 'hang', execute: (_input, ctx) => { release(); return new Promise((r) => ctx.signal.addEventListener('abort', () => r('stopped'))); } }]);
  const controller = new AbortController();
  const pending = codeModeTools(s)[0].run({ code: 'return await hang()' }, { signal: controller.signal });
  await started;
  controller.abort();
  assert.equal(JSON.parse(await pending).code, 'aborted');
});

test('a direct-only tool runs its own execute and its text result passes as it is', async () => {
  const ask = { name: 'ask_user', description: 'Ask the user', directOnly: true, parameters: { type: 'object', properties: { q: { type: 'string' } } }, execute: async ({ q }) => `yes to ${q}` };
  const s = session([ask]);
  const tools = codeModeTools(s, { tools: [ask] });
  assert.deepEqual(tools.map((t) => t.name), ['exec', 'wait', 'ask_user']);
  const result = await runToolUse(tools, { type: 'tool_use', id: 't3', name: 'ask_user', input: { q: 'lunch' } });
  assert.deepEqual(result, { type: 'tool_result', tool_use_id: 't3', content: 'yes to lunch' });
});

test('client.beta.messages.toolRunner runs exec and wait through their run, then answers', async () => {
  let release;
  const s = new CodeModeSession({
    sessionId: 'anthropic-runner',
    limits: { timeoutMs: 100 },
    tools: [
      ...catalogTools([betaZodTool({ name: 'get_weather', description: 'Current weather of a city', inputSchema: z.object({ city: z.string() }), run: async ({ city }) => `sunny in ${city}` })]),
      { name: 'slow_report', description: 'A slow report', execute: () => new Promise((resolve) => { release = resolve; }) },
    ],
  });
  sessions.push(s);
  const tools = codeModeTools(s, { budgetChars: 2000 });
  const urls = [];
  const { client, requests } = scriptedClient((body) => {
    const results = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_result');
    if (results.length === 0) {
      const code = 'const [w] = await catalog.search("weather"); const sky = await w({ city: "Oslo" }); return { sky, report: await slow_report() };';
      return message([{ type: 'tool_use', id: 'toolu_1', name: 'exec', input: { code } }], 'tool_use');
    }
    const last = JSON.parse(results.at(-1).content);
    if (last.status === 'waiting') {
      release({ rows: 3 });
      return message([{ type: 'tool_use', id: `toolu_${results.length + 1}`, name: 'wait', input: { runId: last.runId } }], 'tool_use');
    }
    return message([{ type: 'text', text: `${last.value.sky}, ${last.value.report.rows} rows` }], 'end_turn');
  }, urls);
  const final = await client.beta.messages.toolRunner({ model: 'claude-test', max_tokens: 256, tools, messages: [{ role: 'user', content: 'Weather and report?' }], max_iterations: 5, thread: false });
  assert.equal(final.content[0].text, 'sunny in Oslo, 3 rows');
  assert.equal(requests.length, 3);
  assert.ok(urls.every((u) => /\/v1\/messages\b/.test(u)), urls.join(' '));
  // Every request carried exec and wait as Messages API tools (run is not sent).
  for (const request of requests) assert.deepEqual(request.tools.map((t) => t.name), ['exec', 'wait']);
  const results = requests[2].messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_result');
  assert.deepEqual(results.map((r) => JSON.parse(r.content).status), ['waiting', 'completed']);
  assert.deepEqual(results.map((r) => r.is_error), [undefined, undefined]);
});

test('a betaZodTool returning JSON text or an object gives the guest the value, other text as it is', async () => {
  const city = z.object({ city: z.string() });
  const s = session(catalogTools([
    betaZodTool({ name: 'as_text', description: 'JSON text', inputSchema: city, run: async ({ city }) => JSON.stringify({ city, sky: 'sunny' }) }),
    betaZodTool({ name: 'as_block', description: 'JSON in a text block', inputSchema: city, run: async ({ city }) => [{ type: 'text', text: JSON.stringify([city]) }] }),
    betaZodTool({ name: 'as_object', description: 'an object', inputSchema: city, run: async ({ city }) => ({ city }) }),
    betaZodTool({ name: 'plain', description: 'text', inputSchema: city, run: async ({ city }) => `{${city}` }),
  ]));
  const r = await s.exec({ code: 'const c = { city: "Oslo" }; return [await as_text(c), await as_block(c), await as_object(c), await plain(c)];' });
  assert.equal(r.status, 'completed');
  assert.deepEqual(r.value, [{ city: 'Oslo', sky: 'sunny' }, ['Oslo'], { city: 'Oslo' }, '{Oslo']);
});
