export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonSchema = { [key: string]: JsonValue } | boolean;
export type MaybePromise<T> = T | Promise<T>;
export type CodeModeErrorCode = "invalid_input" | "runtime_unavailable" | "aborted" | "timeout" | "output_limit_exceeded" | "snapshot_limit_exceeded" | "internal_error";
export interface ToolCallContext { callId: string; parentCallId?: string; runId?: string; sessionId: string; signal: AbortSignal; onUpdate(partial: JsonValue): void; pauseBudget(): () => void; }
export interface ToolDefinition { name: string; description?: string; label?: string; parameters?: JsonSchema; outputSchema?: JsonSchema; source?: "openclaw" | "client"; directOnly?: boolean; replaySafe?: boolean; execute(input: JsonValue, ctx: ToolCallContext): MaybePromise<JsonValue>; }
export interface CodeModeLimits { timeoutMs?: number; memoryLimitBytes?: number; maxOutputBytes?: number; maxSnapshotBytes?: number; maxPendingToolCalls?: number; snapshotTtlSeconds?: number; searchDefaultLimit?: number; maxSearchLimit?: number; languages?: Array<"javascript" | "typescript">; }
export interface McpToolResult { content: unknown[]; structuredContent?: unknown; isError?: boolean; }
export interface McpClientLike { listTools(params?: { cursor?: string }): Promise<{ tools: Array<{ name: string; description?: string; inputSchema?: unknown }>; nextCursor?: string }>; callTool(params: { name: string; arguments?: object }, resultSchema?: unknown, options?: { signal?: AbortSignal }): Promise<McpToolResult | { toolResult: unknown }>; listResources?(params?: { cursor?: string }, options?: { signal?: AbortSignal }): Promise<{ resources: unknown[]; nextCursor?: string }>; readResource?(params: { uri: string }, options?: { signal?: AbortSignal }): Promise<{ contents: unknown[] }>; listResourceTemplates?(params?: { cursor?: string }, options?: { signal?: AbortSignal }): Promise<{ resourceTemplates: unknown[]; nextCursor?: string }>; listPrompts?(params?: { cursor?: string }, options?: { signal?: AbortSignal }): Promise<{ prompts: unknown[]; nextCursor?: string }>; getPrompt?(params: { name: string; arguments?: Record<string, string> }, options?: { signal?: AbortSignal }): Promise<{ messages: unknown[]; description?: string }>; }
export interface McpServerDefinition { name: string; client: McpClientLike; }
export interface NodeInfo { id: string; name?: string; platform?: string; connected: boolean; commands: string[]; }
export interface NodesHost { list(ctx: ToolCallContext): MaybePromise<NodeInfo[]>; invoke(nodeId: string, command: string, params: JsonValue, ctx: ToolCallContext): MaybePromise<JsonValue>; }
export interface SkillsHost { list(ctx: ToolCallContext): MaybePromise<Array<{ name: string; description?: string; location?: string }>>; read(name: string, relativePath: string | undefined, ctx: ToolCallContext): MaybePromise<string>; }
export interface NamespaceDefinition { globalName: string; description?: string; prompt?: string; scope: { [key: string]: unknown }; }
export interface SwarmHost { run(spec: JsonValue, ctx: ToolCallContext): MaybePromise<JsonValue>; phase?(title: string, ctx: ToolCallContext): MaybePromise<void>; log?(message: string, ctx: ToolCallContext): MaybePromise<void>; }
export interface CodeModeSessionOptions { sessionId: string; sessionKey?: string; agentId?: string; agentRunId?: string; tools?: ToolDefinition[]; mcpServers?: McpServerDefinition[]; nodes?: NodesHost; skills?: SkillsHost; namespaces?: NamespaceDefinition[]; swarm?: SwarmHost; limits?: CodeModeLimits; redaction?: { secrets?: string[]; patterns?: Array<string | RegExp> }; }
export interface CodeModeExecInput { code?: string; command?: string; language?: "javascript" | "typescript"; restartSafe?: boolean; }
export interface CallOptions { signal?: AbortSignal; callId?: string; resultBudgetChars?: number; }
export type CodeModeOutput = { type: "text"; text: string } | { type: "json"; value: JsonValue };
export interface CodeModePendingToolCall { id: string; method: string; toolName?: string; }
export interface NestedCallRecord { callId: string; parentCallId?: string; toolName: string; callableName?: string; status: "ok" | "error" | "pending" | "cancelled"; durationMs?: number; inputPreview?: string; outputPreview?: string; error?: string; }
export interface CodeModeTelemetry { catalogSize: number; sources: { openclaw: number; mcp: number; client: number }; counterScope: string; searchCount: number; describeCount: number; callCount: number; visibleTools: string[]; run?: { wallMs: number; guestCpuMs: number; peakHeapBytes: number; nestedCalls: number }; }
interface ResultBase { output?: CodeModeOutput[]; telemetry: CodeModeTelemetry; nestedCalls?: NestedCallRecord[]; }
export type CodeModeResult = (ResultBase & { status: "completed"; value: JsonValue }) | (ResultBase & { status: "waiting"; runId: string; reason: "pending_tools" | "yield"; pendingToolCalls?: CodeModePendingToolCall[] }) | (ResultBase & { status: "failed"; error: string; code?: CodeModeErrorCode });

/**
 * Which binding artifact the generated loader actually loaded: `'native'` for
 * a native addon, otherwise the `platformArchABI` of the WASI flavor. Every
 * flavor napi-rs can build is listed, because `NAPI_RS_NATIVE_LIBRARY_PATH`
 * can point the loader at a WASI artifact this package does not build itself.
 */
export declare const __napiBindingTarget: 'native' | 'wasm32-wasi' | 'wasm32-wasip1'

/** A code-mode session: a catalog of host tools and the runs (cells) that call them. */
export declare class CodeModeSession {
  /**
   * Creates a session. Throws a TypeError with `err.code = "invalid_input"` and a
   * message naming the field on invalid options.
   */
  constructor(options: CodeModeSessionOptions)
  /** The session id this session was created with. */
  get sessionId(): string
  /** Runs a cell. Never rejects for guest, tool or limit problems: those are `failed` results. */
  exec(input: CodeModeExecInput | unknown, options?: CallOptions): Promise<CodeModeResult>
  /**
   * Extension: resolves once the MCP servers' tools are loaded (at once without MCP
   * servers), so `modelTools()` names unavailable servers. `exec` waits by itself.
   */
  ready(): Promise<void>
  /**
   * Extension: reloads every MCP server's tools (`listTools`, all pages); later cells
   * see the new tools, running ones keep theirs.
   */
  refreshMcp(): Promise<void>
  /** Resumes a `waiting` run created by this session's scope. */
  wait(input: { runId: string } | unknown, options?: CallOptions): Promise<CodeModeResult>
  /**
   * Appends tools. Client tool additions keep counterScope and counters; the
   * description refreshes.
   */
  addTools(tools: ToolDefinition[]): void
  /**
   * `[exec, wait, ...directOnly tools]`: what the gateway sends to the model.
   * Deterministic for equal catalogs.
   */
  modelTools(): Array<{ name: string; description: string; parameters: JsonSchema }>
  /** Catalog counters and sizes (cumulative for the catalog lifetime). */
  telemetry(): CodeModeTelemetry
  /** Cancels active cells and pending host work, drops this session's parked runs. Idempotent. */
  close(): Promise<void>
  /** Extension: ids and ages of this session's parked runs. */
  runs(): Array<{ runId: string; reason: string; pending: number; parkedMs: number; bytes: number }>
  /** Extension: drops one parked run of this session; false if there is none by that id. */
  cancelRun(runId: string): boolean
}

/**
 * Fail-closed check of the final model payload once code mode engaged: exactly one
 * `exec`, one `wait`, and only the given direct-only tools. Throws an Error with
 * `code: "invalid_input"` naming what is wrong.
 */
export declare function assertCodeModePayload(toolNames: string[], directOnly?: string[]): void

/**
 * Extension: process-wide counters for leak and health checks. `parkedRuns` are runs in
 * the suspended-run store (parked or resuming), `liveCells` runs not yet dropped (running,
 * idle or parked), `liveVms` QuickJS VMs alive (including a few blank prewarmed ones),
 * `pendingTimers` deadline, expiry and guest timers not yet fired, `workers` pool threads
 * running (0 before the first cell), `stuckWorkers` those of them still inside a built-in
 * whose cell the watchdog already answered (each has a replacement in `workers`),
 * `sandboxProcesses` sandbox processes alive (`isolation: "process"`), `isolation` the
 * default of sessions that do not choose.
 */
export declare function codeModeRuntimeStats(): { parkedRuns: number; liveCells: number; liveVms: number; pendingTimers: number; workers: number; stuckWorkers: number; sandboxProcesses: number; isolation: "process" | "thread" }

/**
 * Process-wide settings; call before the first session runs a cell. Misuse throws with
 * `code: "invalid_input"`.
 */
export declare function configureCodeModeRuntime(options: { workerThreads?: number; maxSuspendedRuns?: number; isolation?: "process" | "thread" }): void

/**
 * Masks credential literals in JS/TS source for session history: string literals
 * assigned to credential-named bindings or properties, recognisable tokens (`sk-…`,
 * `ghp_…`, `xox…-`, `AKIA…`, JWTs, PEM private keys), registered `secrets` and
 * `patterns` (Rust regex syntax). Masks are `[REDACTED]` inside the original quotes,
 * so redacting twice is stable. Unparsable source gets the token and pattern masks
 * only. Throws (`code: "invalid_input"`) for an invalid pattern or option.
 */
export declare function redactSource(code: string, options?: { secrets?: string[]; patterns?: string[] }): string

/**
 * Resolves code-mode activation and limits for one run: precedence agent model row
 * (boolean) > agent `tools.codeMode` > `agents.defaults` model row (boolean) > global
 * `tools.codeMode`; `"auto"` engages only when `ctx.compat.codeMode === "preferred"`;
 * limits merge global then agent and are clamped. `ctx.toolCount: 0` (a tool-free
 * run) never engages. Throws (`code: "invalid_input"`) only when `config` is not plain
 * JSON.
 */
export declare function resolveCodeModeConfig(config: unknown, ctx?: { agentId?: string; model?: string; compat?: { codeMode?: "preferred" | "capable" }; toolCount?: number }): { enabled: boolean | "auto"; engaged: boolean; limits: Required<CodeModeLimits> }

/**
 * Runs a headless (cron) script to completion under a wall clock (default 30 s, max
 * 900 s) and a tool-call budget (default 5, max 200; over it: `tool_budget_exceeded`).
 */
export declare function runCodeModeScript(code: string, options: CodeModeSessionOptions & { language?: "javascript" | "typescript"; wallClockMs?: number; maxToolCalls?: number; signal?: AbortSignal }): Promise<CodeModeResult>

/** Strips TypeScript types from a cell (oxc); errors are returned as data. */
export declare function transformTypeScript(code: string): { code: string } | { error: string; line: number; column: number }

/**
 * Human-readable problems of the code-mode parts of a gateway config, each
 * `"<path>: <problem>"`; `[]` when it is fine.
 */
export declare function validateCodeModeConfig(config: unknown): string[]
