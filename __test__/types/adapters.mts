// The adapters' types with each framework's own types: what a user writes to wire a
// session into the AI SDK, the Anthropic SDK, LangChain and the OpenAI Agents SDK.
import { generateText, tool as aiTool, type ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import Anthropic from "@anthropic-ai/sdk";
import { betaZodTool } from "@anthropic-ai/sdk/helpers/beta/zod";
import { tool as lcTool } from "@langchain/core/tools";
import { fakeModel } from "@langchain/core/testing";
import { Agent, tool as agentsTool } from "@openai/agents";
import { z } from "zod";
import { CodeModeSession, type ToolDefinition } from "codemode-native";
import * as aiSdk from "codemode-native/ai-sdk";
import * as anthropic from "codemode-native/anthropic";
import * as langchain from "codemode-native/langchain";
import * as agents from "codemode-native/openai-agents";

const weather = aiTool({ description: "weather", inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city }) });
const fromAi: ToolDefinition[] = aiSdk.catalogTools({ weather } satisfies ToolSet);
const session = new CodeModeSession({ sessionId: "s", tools: fromAi });
export async function aiLoop(): Promise<string> {
  const { text } = await generateText({ model: new MockLanguageModelV4(), prompt: "p", tools: aiSdk.codeModeTools(session, { budgetChars: 4000 }) });
  return text;
}

const runnable = betaZodTool({ name: "w", description: "d", inputSchema: z.object({ city: z.string() }), run: async ({ city }) => city });
session.addTools(anthropic.catalogTools([runnable]));
const anthropicTools = anthropic.codeModeTools(session);
export async function anthropicTurn(client: Anthropic): Promise<unknown> {
  const response = await client.messages.create({ model: "m", max_tokens: 10, tools: anthropicTools, messages: [] });
  const block = response.content.find((b) => b.type === "tool_use");
  if (block === undefined || block.type !== "tool_use") return null;
  const result: anthropic.ToolResultBlock = await anthropic.runToolUse(anthropicTools, block);
  return result.content;
}

// The same tools drive the SDK's tool runner.
export async function anthropicRunner(client: Anthropic): Promise<string> {
  const final = await client.beta.messages.toolRunner({ model: "m", max_tokens: 10, tools: anthropicTools, messages: [{ role: "user", content: "q" }], thread: false });
  return final.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

const lc = lcTool(async ({ city }: { city: string }) => city, { name: "lc", description: "d", schema: z.object({ city: z.string() }) });
session.addTools(langchain.catalogTools([lc]));
export const bound = fakeModel().bindTools(langchain.codeModeTools(session));

const fn = agentsTool({ name: "fn", description: "d", parameters: z.object({ city: z.string() }), execute: async ({ city }) => city });
session.addTools(agents.catalogTools([fn]));
export const agent = new Agent({ name: "a", tools: agents.codeModeTools(session) });

// @ts-expect-error: catalogTools of the AI SDK takes a record of tools, not a session
aiSdk.catalogTools(session);
