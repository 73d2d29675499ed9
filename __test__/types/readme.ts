// The README's Quick start, in TypeScript, as a user writes it: must compile under
// `tsc --strict` with no casts.
import { CodeModeSession } from "../../index.js";

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
  await session.close();
  void names;
}
