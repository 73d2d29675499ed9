// What users of a CommonJS project write: each adapter entry resolves through `require`,
// with the frameworks' CommonJS types where they ship them.
import langchain = require("codemode-native/langchain");
import anthropic = require("codemode-native/anthropic");
import agents = require("codemode-native/openai-agents");
import aiSdk = require("codemode-native/ai-sdk");
import codemode = require("codemode-native");
import redisStores = require("codemode-native/stores/redis");
import postgresStores = require("codemode-native/stores/postgres");
import { tool } from "@langchain/core/tools";
import { z } from "zod";

const getWeather = tool(async ({ city }) => `sunny in ${city}`, { name: "get_weather", description: "Weather", schema: z.object({ city: z.string() }) });
const session = new codemode.CodeModeSession({ sessionId: "cjs", tools: langchain.catalogTools([getWeather]) });
export const tools = [langchain.codeModeTools(session), anthropic.codeModeTools(session), agents.codeModeTools(session), aiSdk.codeModeTools(session)];
// The run stores through `require`: each fits the RunStore the main entry declares.
declare const redisClient: unknown;
declare const pgPool: { query(text: string, values?: unknown[]): Promise<unknown> };
export const runStores: codemode.RunStore[] = [
  codemode.sqliteRunStore("/tmp/runs.db"),
  redisStores.redisRunStore(redisClient, { keyPrefix: "runs:" }),
  postgresStores.postgresRunStore(pgPool, { table: "codemode_runs" }),
];
