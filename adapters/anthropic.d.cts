// Generated from anthropic.d.mts by scripts/build-adapters.mjs: edit anthropic.d.mts, then run
// `node scripts/build-adapters.mjs`.
import type { CodeModeSession, ToolDefinition, ModelToolParameters } from "codemode-native";

export interface CodeModeToolsOptions {
  /** Each result is `toModelResult(result, { budgetChars })` (at least 256). */
  budgetChars?: number;
  /** Optional: definitions whose `execute` replaces the session's own for a direct-only tool of the same name (the session's are used otherwise). */
  tools?: ToolDefinition[];
  /** Passed to every exec/wait as `context`. */
  context?: unknown;
}
/** A Messages API tool plus the `run` the SDK's tool runners call (JSON text of the model-ready result). */
export interface CodeModeAnthropicTool {
  name: string;
  description: string;
  input_schema: ModelToolParameters;
  run(input: any, context?: { signal?: AbortSignal | null }): Promise<string>;
}
export interface ToolUseBlock { type: "tool_use"; id: string; name: string; input: unknown; }
export interface ToolResultBlock { type: "tool_result"; tool_use_id: string; content: string; is_error?: true; }
/** `exec`, `wait` and the direct-only tools as Anthropic tools. */
export declare function codeModeTools(session: CodeModeSession, options?: CodeModeToolsOptions): CodeModeAnthropicTool[];
/** Runs a `tool_use` block and returns its `tool_result` block (never rejects for tool problems). */
export declare function runToolUse(tools: CodeModeAnthropicTool[], block: ToolUseBlock, options?: { signal?: AbortSignal }): Promise<ToolResultBlock>;
/** Anthropic runnable tools (`betaTool`, `betaZodTool`, `{ name, input_schema, run }`) as catalog tool definitions; a tool without `input_schema` takes any input. */
export declare function catalogTools(tools: Array<{ name: string; description?: string; input_schema?: object; run(args: any, context?: any): unknown; parse?(input: unknown): any }>): ToolDefinition[];
