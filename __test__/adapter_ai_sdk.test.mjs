// codemode-native/ai-sdk: a full AI SDK agent loop (generateText with its offline
// MockLanguageModelV4) over the real addon: exec runs a cell that finds and calls a
// catalog tool converted from an AI SDK tool, then the model answers in text.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, tool, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { CodeModeSession } from 'codemode-native';
import { codeModeTools, catalogTools } from 'codemode-native/ai-sdk';

const sessions = [];
after(() => Promise.all(sessions.map((s) => s.close())));
function session(tools) {
  const s = new CodeModeSession({ sessionId: `ai-sdk-${sessions.length}`, tools });
  sessions.push(s);
  return s;
}

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
function step(content, unified) {
  return { content, finishReason: { unified, raw: unified }, usage, warnings: [] };
}

test('an AI SDK agent loop runs exec over a converted catalog tool, then answers', async () => {
  const seen = [];
  const weather = tool({
    description: 'Current weather of a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }, { abortSignal, context }) => {
      seen.push({ city, signal: abortSignal instanceof AbortSignal, context });
      return { city, sky: 'sunny' };
    },
  });
  const s = session(catalogTools({ get_weather: weather }));
  const prompts = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      if (prompts.length === 1) {
        const code = 'const [w] = await catalog.search("weather"); return await w({ city: "Oslo" });';
        return step([{ type: 'tool-call', toolCallId: 'call-1', toolName: 'exec', input: JSON.stringify({ code }) }], 'tool-calls');
      }
      return step([{ type: 'text', text: 'It is sunny in Oslo.' }], 'stop');
    },
  });
  const result = await generateText({
    model,
    tools: codeModeTools(s, { budgetChars: 2000 }),
    toolsContext: { exec: { user: 'u1' } },
    stopWhen: stepCountIs(5),
    prompt: 'Weather in Oslo?',
  });
  assert.equal(result.text, 'It is sunny in Oslo.');
  assert.equal(result.steps.length, 2);
  const [toolResult] = result.steps[0].toolResults;
  assert.deepEqual(toolResult.output, { status: 'completed', value: { city: 'Oslo', sky: 'sunny' } });
  assert.deepEqual(seen, [{ city: 'Oslo', signal: true, context: { user: 'u1' } }]);
  // The second model call saw the model-ready result.
  const toolMessage = prompts[1].find((m) => m.role === 'tool');
  assert.match(JSON.stringify(toolMessage), /sunny/);
});

test('codeModeTools offers exec and wait as AI SDK tools with the session schemas', () => {
  const s = session([]);
  const tools = codeModeTools(s);
  assert.deepEqual(Object.keys(tools), ['exec', 'wait']);
  const exec = s.modelTools()[0];
  assert.deepEqual(tools.exec.inputSchema.jsonSchema, exec.parameters);
  assert.equal(tools.exec.description, exec.description);
});

test('a converted streaming tool is drained to its last value and a throw is a tool_error', async () => {
  const tools = catalogTools({
    count: tool({ inputSchema: z.object({}), async *execute() { yield 1; yield 2; yield 3; } }),
    broken: tool({ inputSchema: z.object({}), execute: async () => { throw new Error('backend down'); } }),
  });
  assert.deepEqual(tools.map((t) => Object.keys(t).sort()), [['execute', 'name', 'parameters'], ['execute', 'name', 'parameters']]);
  const s = session(tools);
  const ok = await s.exec({ code: 'return await count({})' });
  assert.equal(ok.status, 'completed');
  assert.equal(ok.value, 3);
  const failed = await s.exec({ code: 'return await broken({})' });
  assert.equal(failed.status, 'failed');
  assert.equal(failed.code, 'tool_error');
  assert.match(failed.error, /backend down/);
});

test('the exec tool passes the AI SDK abort signal into the session', async () => {
  let release;
  const started = new Promise((resolve) => { release = resolve; });
  const s = session([{ name: 'hang', execute: (_input, ctx) => { release(); return new Promise((r) => ctx.signal.addEventListener('abort', () => r('stopped'))); } }]);
  const controller = new AbortController();
  const pending = codeModeTools(s).exec.execute({ code: 'return await hang()' }, { toolCallId: 't', messages: [], abortSignal: controller.signal });
  await started;
  controller.abort();
  const r = await pending;
  assert.equal(r.status, 'failed');
  assert.equal(r.code, 'aborted');
});

test('a run parked by exec is finished by the model through the wait tool', async () => {
  let release;
  const s = new CodeModeSession({
    sessionId: 'ai-sdk-wait',
    limits: { timeoutMs: 100 },
    tools: [{ name: 'slow_report', description: 'A slow report', execute: () => new Promise((resolve) => { release = resolve; }) }],
  });
  sessions.push(s);
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const results = prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content);
      if (results.length === 0) {
        return step([{ type: 'tool-call', toolCallId: 'c1', toolName: 'exec', input: JSON.stringify({ code: 'return await slow_report()' }) }], 'tool-calls');
      }
      const last = results.at(-1).output.value;
      if (last.status === 'waiting') {
        release({ rows: 3 });
        return step([{ type: 'tool-call', toolCallId: `c${results.length + 1}`, toolName: 'wait', input: JSON.stringify({ runId: last.runId }) }], 'tool-calls');
      }
      return step([{ type: 'text', text: `rows: ${last.value.rows}` }], 'stop');
    },
  });
  const result = await generateText({ model, tools: codeModeTools(s), stopWhen: stepCountIs(5), prompt: 'Report?' });
  assert.equal(result.text, 'rows: 3');
  assert.deepEqual(result.steps.map((st) => st.toolCalls.map((c) => c.toolName)), [['exec'], ['wait'], []]);
  assert.equal(result.steps[0].toolResults[0].output.status, 'waiting');
  assert.deepEqual(result.steps[1].toolResults[0].output, { status: 'completed', value: { rows: 3 } });
});

test('direct-only tools run their own execute, taken from the session that holds them', async () => {
  const ask = { name: 'ask_user', description: 'Ask the user', directOnly: true, parameters: { type: 'object', properties: { q: { type: 'string' } } }, execute: async ({ q }, ctx) => `answer to ${q} for ${ctx.context}` };
  const s = session([ask]);
  const tools = codeModeTools(s, { context: 'u1' });
  assert.deepEqual(Object.keys(tools), ['exec', 'wait', 'ask_user']);
  assert.equal(await tools.ask_user.execute({ q: 'why' }, { toolCallId: 't', messages: [] }), 'answer to why for u1');
  const added = { ...ask, name: 'ask_later', execute: async () => 'later' };
  s.addTools([added]);
  assert.equal(await codeModeTools(s).ask_later.execute({}, { toolCallId: 't2', messages: [] }), 'later', 'a tool added later is found too');
  const override = { ...ask, execute: async () => 'from options' };
  assert.equal(await codeModeTools(s, { tools: [override] }).ask_user.execute({ q: 'x' }, { toolCallId: 't3', messages: [] }), 'from options', 'options.tools wins');
});
