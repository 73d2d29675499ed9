// The README's Quick start, in TypeScript, as a user writes it: must compile under
// `tsc --strict` with no casts.
import { CodeModeSession, toModelResult, type ToolDefinition, type ModelResult } from "../../index.js";

declare function searchTickets(query: string, options: { signal: AbortSignal }): Promise<{ tickets: Array<{ id: string }> }>;

export async function quickStart(): Promise<void> {
  const session = new CodeModeSession({
    sessionId: "conversation-42",
    tools: [
      {
        name: "tickets_search",
        description: "Search the ticket system",
        parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
        execute: async ({ query }, ctx) => searchTickets(query, { signal: ctx.signal }),
      },
    ],
    limits: { timeoutMs: 10_000 },
  });

  // What the model sees: exec (with a compact index of every tool), wait, direct-only tools.
  const tools = session.modelTools();
  const names: string[] = tools.map((t) => t.name);

  // What the model sends back, executed:
  const result = await session.exec({
    code: `const { tickets } = await tickets_search({ query: "login" });
           return tickets.map(t => t.id);`,
  });

  if (result.status === "waiting") {
    const next = await session.wait({ runId: result.runId });
    void next;
  }
  const forModel: ModelResult = toModelResult(result, { budgetChars: 8000 });
  await session.close();
  void names;
  void forModel;
}

// The README's TypeScript Quick start: a tool defined apart, its input annotated.
export async function typedTool(): Promise<void> {
  const ticketsSearch: ToolDefinition<{ query: string }> = {
    name: "tickets_search",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    execute: async ({ query }, ctx) => searchTickets(query, { signal: ctx.signal }),
  };
  const session = new CodeModeSession({ sessionId: "conversation-42", tools: [ticketsSearch] });
  const result = await session.exec({ code: "return await tickets_search({ query: 'login' })" });
  void result;
  // Renamed tools arrive once through onEvent.
  const watched = new CodeModeSession({
    sessionId: "conversation-43",
    tools: [{ ...ticketsSearch, name: "tickets-search" }],
    onEvent: (event) => {
      if (event.type === "names") for (const { toolName, callableName, server } of event.renamed) void [toolName, callableName, server];
    },
  });
  await watched.close();
  await session.close();
}
