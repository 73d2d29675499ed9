// codemode-native/openai-agents: a full OpenAI Agents SDK run (Runner, Agent) with a
// scripted Model over the real addon: the model asks for exec with a cell that finds and
// calls a catalog tool converted from a function tool, then answers in text.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, Runner, Usage, tool } from '@openai/agents';
import { z } from 'zod';
import { CodeModeSession } from 'codemode-native';
import { codeModeTools, catalogTools } from 'codemode-native/openai-agents';

const sessions = [];
after(() => Promise.all(sessions.map((s) => s.close())));
function session(tools) {
  const s = new CodeModeSession({ sessionId: `openai-agents-${sessions.length}`, tools });
  sessions.push(s);
  return s;
}

// A Model that answers each request with the next scripted output, recording the requests.
class ScriptedModel {
  constructor(outputs) {
    this.outputs = outputs;
    this.requests = [];
  }
  async getResponse(request) {
    this.requests.push(request);
    const output = this.outputs.shift();
    if (output === undefined) throw new Error('the script ran out of responses');
    return { usage: new Usage(), output, responseId: `resp_${this.requests.length}` };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse() {
    throw new Error('not scripted');
  }
}

const text = (value) => ({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: value }] });
const call = (callId, name, args) => ({ type: 'function_call', callId, name, arguments: JSON.stringify(args), status: 'completed' });

test('an OpenAI Agents run calls exec over a converted catalog tool, then answers', async () => {
  const seen = [];
  const weather = tool({
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }, runContext, details) => {
      seen.push({ city, user: runContext.context?.user, signal: details?.signal instanceof AbortSignal });
      return { city, sky: 'sunny' };
    },
  });
  const s = session(catalogTools([weather]));
  const code = 'const [w] = await catalog.search("weather"); return await w({ city: "Oslo" });';
  // A strict model sends every property, null for those it leaves out.
  const model = new ScriptedModel([[call('call_1', 'exec', { code, language: null, restartSafe: null })], [text('It is sunny in Oslo.')]]);
  const agent = new Agent({ name: 'gateway', instructions: 'Use exec.', model, tools: codeModeTools(s, { budgetChars: 2000 }) });
  const result = await new Runner({ tracingDisabled: true }).run(agent, 'Weather in Oslo?', { context: { user: 'u1' } });
  assert.equal(result.finalOutput, 'It is sunny in Oslo.');
  assert.equal(model.requests.length, 2);
  assert.deepEqual(model.requests[0].tools.map((t) => [t.name, t.strict]), [['exec', true], ['wait', true]]);
  assert.deepEqual(model.requests[0].tools[0].parameters, s.modelTools({ strict: true })[0].parameters);
  const output = model.requests[1].input.find((item) => item.type === 'function_call_result');
  assert.equal(output.callId, 'call_1');
  assert.equal(output.output.type, 'text');
  assert.deepEqual(JSON.parse(output.output.text), { status: 'completed', value: { city: 'Oslo', sky: 'sunny' } });
  assert.deepEqual(seen, [{ city: 'Oslo', user: 'u1', signal: true }]);
});

test('a converted tool whose error the SDK would hide is a tool_error for the guest', async () => {
  const s = session(catalogTools([
    tool({ name: 'broken', description: 'fails', parameters: z.object({}), execute: async () => { throw new Error('backend down'); } }),
    tool({ name: 'explained', description: 'fails', parameters: z.object({}), execute: async () => { throw new Error('x'); }, errorFunction: () => 'quota exhausted' }),
  ]));
  const failed = await s.exec({ code: 'return await broken({})' });
  assert.equal(failed.status, 'failed');
  assert.equal(failed.code, 'tool_error');
  assert.match(failed.error, /broken failed/);
  const explained = await s.exec({ code: 'return await explained({})' });
  assert.equal(explained.value, 'quota exhausted');
});

test('the exec tool passes the call signal into the session', async () => {
  let release;
  const started = new Promise((resolve) => { release = resolve; });
  const s = session([{ name: 'hang', execute: (_input, ctx) => { release(); return new Promise((r) => ctx.signal.addEventListener('abort', () => r('stopped'))); } }]);
  const [exec] = codeModeTools(s);
  const controller = new AbortController();
  const pending = exec.invoke(undefined, JSON.stringify({ code: 'return await hang()' }), { signal: controller.signal });
  await started;
  controller.abort();
  const outcome = await pending.then((value) => value.code, (error) => error.name);
  assert.equal(outcome, 'aborted');
});
