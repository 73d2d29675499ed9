import type { FunctionTool } from "@openai/agents";
import type { CodeModeSession, ToolDefinition } from "codemode-native";

export interface CodeModeToolsOptions {
  /** Each result is `toModelResult(result, { budgetChars })` (at least 256). */
  budgetChars?: number;
  /** Optional: definitions whose `execute` replaces the session's own for a direct-only tool of the same name (the session's are used otherwise). */
  tools?: ToolDefinition[];
  /** Passed to every exec/wait as `context` (default: the run context's `context`). */
  context?: unknown;
}
/** `exec`, `wait` and the direct-only tools as function tools. */
export declare function codeModeTools(session: CodeModeSession, options?: CodeModeToolsOptions): FunctionTool<any, any, any>[];
/** Function tools as catalog tool definitions for `new CodeModeSession({ tools })`. */
export declare function catalogTools(tools: FunctionTool<any, any, any>[]): ToolDefinition[];
