// What users of an ES module project write (type: module, or .mts): each adapter entry
// resolves through `import`, with the frameworks' ESM types, under NodeNext, Node16 and
// Bundler (one tsconfig each). A CommonJS copy of a framework's types here would break
// `catalogTools([tool(...)])` (two @langchain/core class declarations).
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { CodeModeSession, type ToolDefinition } from "codemode-native";
import codemode from "codemode-native";
import * as aiSdk from "codemode-native/ai-sdk";
import * as langchain from "codemode-native/langchain";

const getWeather = tool(async ({ city }) => `sunny in ${city}`, { name: "get_weather", description: "Weather", schema: z.object({ city: z.string() }) });
const fromLangChain: ToolDefinition[] = langchain.catalogTools([getWeather]);
const session = new CodeModeSession({ sessionId: "esm", tools: fromLangChain });
const same: typeof CodeModeSession = codemode.CodeModeSession;

// The README's AI SDK 7 wiring: toolsContext entries for exec and wait are typed and optional.
export async function aiSdkLoop(user: { id: string }): Promise<string> {
  const { text } = await generateText({
    model: new MockLanguageModelV4(), prompt: "p", stopWhen: stepCountIs(8),
    tools: aiSdk.codeModeTools(session, { budgetChars: 8000 }),
    toolsContext: { exec: { user }, wait: { user } },
  });
  await generateText({ model: new MockLanguageModelV4(), prompt: "p", tools: aiSdk.codeModeTools(session) });
  await generateText({
    model: new MockLanguageModelV4(), prompt: "p",
    tools: aiSdk.codeModeTools<{ user: { id: string } }>(session),
    // @ts-expect-error: a typed context refuses what is not one
    toolsContext: { exec: { user: 42 } },
  });
  return text;
}
void same;
