// The typed API beyond the Quick start: generic tools, options with hooks and events,
// results and error codes, model tools and results, schemas users have, MCP clients.
import type { JSONSchema7 } from "json-schema";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { z } from "zod";
import {
  CodeModeSession,
  configureCodeModeRuntime,
  redactSource,
  runCodeModeScript,
  sqliteRunStore,
  toModelResult,
  type CodeModeErrorCode,
  type CodeModeEvent,
  type CodeModeResult,
  type McpClientLike,
  type ModelResult,
  type ModelToolDefinition,
  type JsonValue,
  type ResolveCallAnswer,
  type SuspendedCall,
  type ToolDefinition,
} from "../../index.js";

interface Ticket {
  id: string;
  opened: Date;
}

// Input typed from the generic argument or the annotation; interfaces and Date as output.
const typed: ToolDefinition<{ query: string }, Ticket[]> = {
  name: "tickets_search",
  execute: async ({ query }) => [{ id: query.toUpperCase(), opened: new Date() }],
};
const annotated: ToolDefinition = {
  name: "ticket_get",
  execute: async (input: { id: string }): Promise<Ticket> => ({ id: input.id, opened: new Date() }),
};

// Schemas users have: JSONSchema7, zod's toJSONSchema, an MCP tool's inputSchema.
const json7: JSONSchema7 = { type: "object", properties: { q: { type: "string" } } };
const fromZod = z.toJSONSchema(z.object({ q: z.string() }));
declare const mcpTool: Awaited<ReturnType<Client["listTools"]>>["tools"][number];

const events: CodeModeEvent[] = [];
const session = new CodeModeSession({
  sessionId: "s",
  tools: [
    typed,
    annotated,
    { name: "j7", parameters: json7, outputSchema: json7, execute: () => null },
    { name: "zod", parameters: fromZod, execute: () => null },
    { name: "mcp", parameters: mcpTool.inputSchema, execute: () => null },
  ],
  limits: { timeoutMs: 5000, memoryLimitBytes: 32 << 20, languages: ["typescript"] },
  onEvent: (event) => {
    events.push(event);
    if (event.type === "tool_call_end" && event.status === "error") console.log(event.error);
  },
  beforeToolCall: async (call) => (call.toolName === "danger" ? { block: "not allowed" } : { input: call.input }),
  redaction: { secrets: ["hunter2"], patterns: [/sk-[a-z]+/i, "token=\\w+"] },
  isolation: "thread",
  telemetry: { enabled: true, captureContent: false },
});
session.addTools([{ name: "later", execute: () => 1 }]);

// exec and wait take their input types, not unknown.
// @ts-expect-error a bare string is not an exec input
void session.exec("return 1");
// @ts-expect-error a misspelled key is not an exec input
void session.exec({ cod: "return 1" });
// @ts-expect-error wait needs a runId
void session.wait({});
void session.exec({ code: "return 1", language: "typescript" }, { signal: new AbortController().signal, resultBudgetChars: 4000 });

// Model tools: parameters are always an object schema, usable where frameworks want one.
const modelTools: ModelToolDefinition[] = session.modelTools();
const asJson7: JSONSchema7 = modelTools[0].parameters;
type AnthropicInputSchema = { type: "object"; properties?: unknown | null; required?: Array<string> | null; [k: string]: unknown };
const asAnthropic: AnthropicInputSchema = modelTools[0].parameters;
// @ts-expect-error never a boolean
const notBoolean: boolean = modelTools[0].parameters;

// Results, model results and every error code.
async function model(result: CodeModeResult): Promise<ModelResult> {
  const code: CodeModeErrorCode | undefined = result.status === "failed" ? result.code : undefined;
  const all: CodeModeErrorCode[] = ["guest_error", "tool_error", "memory_limit_exceeded", "tool_budget_exceeded", "internal_error", "invalid_input", "replay_divergence", "record_refused", "store_unavailable"];
  void code;
  void all;
  const answer = toModelResult(result, { budgetChars: 2000 });
  if (answer.status === "waiting") return { status: "waiting", runId: answer.runId, reason: answer.reason };
  return answer;
}
void model;

// The MCP SDK's Client is an MCP client here.
const client = new Client({ name: "gateway", version: "1.0.0" });
const asClient: McpClientLike = client;
const withMcp = new CodeModeSession({ sessionId: "m", mcpServers: [{ name: "fs", client }] });

// RegExp patterns where redaction takes patterns; names() maps rewritten tool names.
const redacted: string = redactSource('const key = "x"', { patterns: [/corp-\d+/i, "token=\\w+"] });
const renamed: { [toolName: string]: string } = session.names();

// Runtime and headless scripts.
configureCodeModeRuntime({ workerThreads: 4, maxSuspendedRuns: 100, isolation: "process" });
// @ts-expect-error unknown runtime key
configureCodeModeRuntime({ workers: 4 });
void runCodeModeScript("return 1", { sessionId: "cron", maxToolCalls: 3, wallClockMs: 1000 }).then((r) => r.status === "failed" && r.code === "tool_budget_exceeded");

void [redacted, renamed, asJson7, asAnthropic, notBoolean, asClient, withMcp, events];

// modelTools({ strict: true }): the same definitions, exec and wait marked strict.
const strictSession = new CodeModeSession({ sessionId: "strict" });
const strictTools: ModelToolDefinition[] = strictSession.modelTools({ strict: true });
export const strictFlag: boolean | undefined = strictTools[0].strict;
// @ts-expect-error: strict is a boolean
strictSession.modelTools({ strict: "yes" });

// External calls: ctx.suspend parks a call, resolveCall settles it with a value or an error.
const approvals = new CodeModeSession({
  sessionId: "approvals",
  tools: [{ name: "deploy", execute: (input: { service: string }, ctx) => ctx.suspend({ question: `Deploy ${input.service}?` }) }],
});
async function approve(result: CodeModeResult): Promise<ResolveCallAnswer[]> {
  if (result.status !== "waiting") return [];
  const external = (result.pendingToolCalls ?? []).filter((call) => call.external === true);
  const payloads: JsonValue[] = external.map((call) => call.payload ?? null);
  void payloads;
  const first: ResolveCallAnswer = await approvals.resolveCall({ runId: result.runId, callId: external[0].id, value: { approved: true } });
  const second = await approvals.resolveCall({ runId: result.runId, callId: external[0].id, error: { message: "denied" } });
  // @ts-expect-error value and error need runId and callId
  void approvals.resolveCall({ value: 1 });
  // @ts-expect-error an error is { message }
  void approvals.resolveCall({ runId: result.runId, callId: "c", error: "denied" });
  return [first, second];
}
const marker = (ctx: Parameters<ToolDefinition["execute"]>[1]): SuspendedCall => ctx.suspend();
void [approve, marker];

// Durable runs: a store and 32-byte keys; a key that is not bytes is a type error.
const durable = new CodeModeSession({ sessionId: "d", durableRuns: { store: sqliteRunStore("/tmp/runs.db"), keys: [{ id: "k1", key: new Uint8Array(32) }], ttlSeconds: 3600 } });
// @ts-expect-error keys are bytes
new CodeModeSession({ sessionId: "d", durableRuns: { store: sqliteRunStore("/tmp/runs.db"), keys: [{ id: "k1", key: "secret" }] } });
void durable;
