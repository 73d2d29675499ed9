import type { FlexibleSchema, ToolSet } from "ai";
import type { CodeModeSession, ToolDefinition, ModelResult } from "codemode-native";

export interface CodeModeToolsOptions<CONTEXT = Record<string, unknown>> {
  /** Each result is `toModelResult(result, { budgetChars })` (at least 256). */
  budgetChars?: number;
  /** Optional: definitions whose `execute` replaces the session's own for a direct-only tool of the same name (the session's are used otherwise). */
  tools?: ToolDefinition[];
  /** Passed to every exec/wait as `context` (default: the tool's context, i.e. AI SDK 7's `toolsContext.exec` / `toolsContext.wait`, or AI SDK 6's `experimental_context`). */
  context?: CONTEXT;
}
/**
 * One of the tools `codeModeTools` returns. Written out rather than as `Tool<…>` so the same
 * declaration fits `ai` 6 (two type parameters) and `ai` 7 (three): under AI SDK 7 its
 * context is `CONTEXT | undefined`, so `toolsContext: { exec: {...}, wait: {...} }` is typed
 * and optional; AI SDK 6 passes `experimental_context` instead.
 */
export interface CodeModeAiSdkTool<CONTEXT = Record<string, unknown>> {
  description?: string;
  inputSchema: FlexibleSchema<unknown>;
  contextSchema?: FlexibleSchema<CONTEXT | undefined>;
  execute?(input: unknown, options: { toolCallId: string; abortSignal?: AbortSignal; context?: CONTEXT | undefined; experimental_context?: unknown }): PromiseLike<ModelResult>;
}
/** `exec`, `wait` and, under their own names, the session's direct-only tools. */
export type CodeModeAiSdkTools<CONTEXT = Record<string, unknown>> = { exec: CodeModeAiSdkTool<CONTEXT>; wait: CodeModeAiSdkTool<CONTEXT> } & { [name: string]: CodeModeAiSdkTool<CONTEXT> };
/** `exec`, `wait` and the direct-only tools as AI SDK tools; `CONTEXT` types AI SDK 7's `toolsContext` entries. */
export declare function codeModeTools<CONTEXT extends Record<string, unknown> = Record<string, unknown>>(session: CodeModeSession, options?: CodeModeToolsOptions<CONTEXT>): CodeModeAiSdkTools<CONTEXT>;
/** AI SDK tools as catalog tool definitions for `new CodeModeSession({ tools })`. */
export declare function catalogTools(tools: ToolSet): ToolDefinition[];
