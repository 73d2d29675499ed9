import type { Tool, ToolSet } from "ai";
import type { CodeModeSession, ToolDefinition } from "codemode-native";

export interface CodeModeToolsOptions {
  /** Each result is `toModelResult(result, { budgetChars })` (at least 256). */
  budgetChars?: number;
  /** The session's own definitions, to run its direct-only tools. */
  tools?: ToolDefinition[];
  /** Passed to every exec/wait as `context` (default: the tool's context, i.e. AI SDK 7's `toolsContext.exec` / `toolsContext.wait`, or AI SDK 6's `experimental_context`). */
  context?: unknown;
}
/** `exec`, `wait` and the direct-only tools as AI SDK tools. */
export declare function codeModeTools(session: CodeModeSession, options?: CodeModeToolsOptions): Record<string, Tool>;
/** AI SDK tools as catalog tool definitions for `new CodeModeSession({ tools })`. */
export declare function catalogTools(tools: ToolSet): ToolDefinition[];
