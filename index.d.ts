/** A plain JSON value, as results and tool inputs carry them. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/**
 * A JSON Schema object as users have them: `JSONSchema7`, zod's `toJSONSchema` output, an
 * MCP tool's `inputSchema`. Checked when the tool is registered.
 */
export type JsonSchemaObject = { readonly [key: string]: any };
/** A JSON Schema: an object, or `true`/`false`. */
export type JsonSchema = JsonSchemaObject | boolean;
export type MaybePromise<T> = T | Promise<T>;
/** Every `code` of a `failed` result and of a thrown error. */
export type CodeModeErrorCode = "invalid_input" | "runtime_unavailable" | "aborted" | "timeout" | "output_limit_exceeded" | "snapshot_limit_exceeded" | "guest_error" | "tool_error" | "memory_limit_exceeded" | "tool_budget_exceeded" | "internal_error" | "store_unavailable" | "record_refused" | "replay_divergence";
/** The second argument of every tool's `execute`. */
export interface ToolCallContext {
  /** This call's id: the same as its `nestedCalls` record and its events. */
  callId: string;
  /** The call that made this one, for calls made by other tools. */
  parentCallId?: string;
  runId?: string;
  sessionId: string;
  /** The `context` call option of the exec or wait this call is part of (as given, not copied). */
  context?: unknown;
  /** Aborts when the run times out, is aborted or the session closes. */
  signal: AbortSignal;
  /** Streams a partial result (a `tool_call_update` event). */
  onUpdate(partial: JsonValue): void;
  /** Stops the run's wall clock until the returned function is called. */
  pauseBudget(): () => void;
  /**
   * Parks this call as external, for `session.resolveCall`: `return ctx.suspend(payload)`.
   * The guest's await stays pending, the run parks as `waiting` once nothing else can move
   * it, and the call's `pendingToolCalls` entry carries `payload` (JSON, at most
   * `maxOutputBytes`). What the tool returns or throws afterwards is ignored. Throws a
   * TypeError with `code: "invalid_input"` for a payload that is not JSON or is too large,
   * a second call, a call after the tool settled, a copy of a ctx, and in
   * `runCodeModeScript`.
   */
  suspend(payload?: JsonValue): SuspendedCall;
}
/** What `ctx.suspend` returns, for the tool to return. */
export interface SuspendedCall { readonly suspended: true; readonly callId: string; }
/** `session.resolveCall`'s input: a value, or an error the guest's await rejects with. */
export type ResolveCallInput = { runId: string; callId: string; value: JsonValue } | { runId: string; callId: string; error: { message: string } };
/** `"resolved"`: this call recorded the outcome; `"already_resolved"`: an earlier one did. */
export type ResolveCallAnswer = "resolved" | "already_resolved";
/**
 * A host tool. `Input` is what `execute` receives (typed by your annotation or the
 * generic argument); `Output` is any value `JSON.stringify` accepts, interfaces and
 * `Date` included. Keys other than these throw at construction.
 */
export interface ToolDefinition<Input = any, Output = unknown> {
  /** Unique within a session (the constructor and `addTools` throw on a repeat). */
  name: string;
  description?: string;
  label?: string;
  /** The input schema; checked against every call. A direct-only tool's must be an object schema. */
  parameters?: JsonSchema;
  /** The output schema; checked against every result. */
  outputSchema?: JsonSchema;
  /**
   * `"core"` (the default): the gateway's own tools, checked against both schemas.
   * `"client"` tools skip both checks, and one may shadow a core tool of the same name.
   * `"openclaw"` is the old name of `"core"`, still accepted.
   */
  source?: "core" | "client" | "openclaw";
  /** Sent to the model as its own tool instead of being called from code. */
  directOnly?: boolean;
  /** May run again when a run is restarted (`restartSafe` cells call only these). */
  replaySafe?: boolean;
  execute(input: Input, ctx: ToolCallContext): MaybePromise<Output>;
}
/** Session limits; a positive integer outside a range is clamped, anything else throws. */
export interface CodeModeLimits {
  /** Wall clock of one exec or wait turn (default 10000, 100..60000). */
  timeoutMs?: number;
  /** Guest heap (default 64 MiB, 1 MiB..1 GiB); over it: `memory_limit_exceeded`. */
  memoryLimitBytes?: number;
  /** Output and value bytes a result keeps before truncation markers (default 65536). */
  maxOutputBytes?: number;
  /** Bytes of a parked run (default 10 MiB); over it: `snapshot_limit_exceeded`. */
  maxSnapshotBytes?: number;
  /** Tool calls in flight at once (default 16, 1..128). */
  maxPendingToolCalls?: number;
  /** Bytes of JSON one tool call may send (default 1 MiB, 1024..64 MiB); over it the call fails with `input_contract` and the tool does not run. */
  maxToolInputBytes?: number;
  /** How long a parked run can be resumed (default 900). */
  snapshotTtlSeconds?: number;
  /** Results of `search` without a limit (default 8). */
  searchDefaultLimit?: number;
  /** Most results of one `search` (default 50). */
  maxSearchLimit?: number;
  /** Languages cells may use (default both). */
  languages?: Array<"javascript" | "typescript">;
}
export interface McpToolResult { content: unknown[]; structuredContent?: unknown; isError?: boolean; }
/** What the addon calls on an MCP client; the SDK's `Client` is one. */
export interface McpClientLike {
  listTools(params?: { cursor?: string }): Promise<{ tools: Array<{ name: string; description?: string; inputSchema?: unknown }>; nextCursor?: string }>;
  callTool(params: { name: string; arguments?: { [key: string]: unknown } }, resultSchema?: any, options?: { signal?: AbortSignal }): Promise<{ [key: string]: unknown }>;
  listResources?(params?: { cursor?: string }, options?: { signal?: AbortSignal }): Promise<{ resources: unknown[]; nextCursor?: string }>;
  readResource?(params: { uri: string }, options?: { signal?: AbortSignal }): Promise<{ contents: unknown[] }>;
  listResourceTemplates?(params?: { cursor?: string }, options?: { signal?: AbortSignal }): Promise<{ resourceTemplates: unknown[]; nextCursor?: string }>;
  listPrompts?(params?: { cursor?: string }, options?: { signal?: AbortSignal }): Promise<{ prompts: unknown[]; nextCursor?: string }>;
  getPrompt?(params: { name: string; arguments?: Record<string, string> }, options?: { signal?: AbortSignal }): Promise<{ messages: unknown[]; description?: string }>;
}
export interface McpServerDefinition { name: string; client: McpClientLike; }
export interface NodeInfo { id: string; name?: string; platform?: string; connected: boolean; commands: string[]; }
export interface NodesHost { list(ctx: ToolCallContext): MaybePromise<NodeInfo[]>; invoke(nodeId: string, command: string, params: JsonValue, ctx: ToolCallContext): MaybePromise<unknown>; }
export interface SkillsHost { list(ctx: ToolCallContext): MaybePromise<Array<{ name: string; description?: string; location?: string }>>; read(name: string, relativePath: string | undefined, ctx: ToolCallContext): MaybePromise<string>; }
export interface NamespaceDefinition { globalName: string; description?: string; prompt?: string; scope: { [key: string]: unknown }; }
export interface SwarmHost { run(spec: JsonValue, ctx: ToolCallContext): MaybePromise<unknown>; phase?(title: string, ctx: ToolCallContext): MaybePromise<void>; log?(message: string, ctx: ToolCallContext): MaybePromise<void>; }
/**
 * A trajectory event streamed to `onEvent`; previews are redacted and about 512 bytes.
 * `names` is not part of a run: it lists tools whose name in cells differs from their own,
 * each rename once, when it appears (construction, `addTools`, an MCP server's tools
 * loading). Host tools (`web-search` → `web_search`, a keyword or a clash gets a suffix)
 * are those `session.names()` lists; MCP tools carry `server` and their path
 * (`MCP.myCrm.getUser` for `get_user` of `my-crm`).
 */
export type CodeModeEvent =
  | { type: "names"; renamed: Array<{ toolName: string; callableName: string; server?: string }> }
  | { type: "run_status"; runId: string; status: "running" | "completed" | "waiting" | "failed" }
  | { type: "tool_call_start"; runId: string; callId: string; parentCallId?: string; toolName: string; callableName: string; source: string; inputPreview: string }
  | { type: "tool_call_update"; runId: string; callId: string; partial: JsonValue }
  | { type: "tool_call_end"; runId: string; callId: string; status: "ok" | "error" | "cancelled"; durationMs: number; outputPreview?: string; error?: string }
  | { type: "output"; runId: string; entry: CodeModeOutput };
/** What `beforeToolCall` sees of a call about to run. */
export interface ToolCallRequest { toolName: string; callableName: string; input: JsonValue; callId: string; }
/**
 * `beforeToolCall`'s answer: nothing lets the call run; `block` (`true` or a reason)
 * fails it as a tool error without running it; `input` replaces its input.
 */
export type ToolCallDecision = void | null | undefined | { block?: boolean | string; input?: JsonValue };
export interface CodeModeSessionOptions {
  /** The conversation this session belongs to; scopes parked runs. */
  sessionId: string;
  /** Further scope of parked runs: a run resumes only under the same key. */
  sessionKey?: string;
  /** The agent this session serves; scopes parked runs. */
  agentId?: string;
  /** The agent run this session serves; scopes parked runs. */
  agentRunId?: string;
  /** Host tools, hidden behind `exec` (unless `directOnly`). Names must be unique. */
  tools?: ToolDefinition[];
  /** MCP servers (SDK `Client`s) whose tools join the catalog. */
  mcpServers?: McpServerDefinition[];
  /** Paired devices: `nodes.list()` and `nodes.get(id)` in cells. */
  nodes?: NodesHost;
  /** Skill files: `skills.list()` and `skills.read(name, path?)` in cells. */
  skills?: SkillsHost;
  /** Host objects exposed to cells as globals. */
  namespaces?: NamespaceDefinition[];
  /** Sub-agents: `agents.run(spec)`, `phase(title)` and `log(message)` in cells. */
  swarm?: SwarmHost;
  /** Per-session limits; see `CodeModeLimits`. */
  limits?: CodeModeLimits;
  /** Credentials masked in event previews and `nestedCalls`: literals and patterns (a RegExp or Rust regex syntax). */
  redaction?: { secrets?: string[]; patterns?: Array<string | RegExp> };
  /** Streams trajectory events of every run of this session, and a `names` event for each batch of renamed tools. */
  onEvent?: (event: CodeModeEvent) => void;
  /** A policy hook before each tool call: may block it or rewrite its input. */
  beforeToolCall?: (call: ToolCallRequest) => MaybePromise<ToolCallDecision>;
  /** Where cells run: worker threads of this process or a separate process. */
  isolation?: "process" | "thread";
  /** `isolation: "process"`: sessions naming the same group may share sandbox processes (a compromised sandbox reaches every run of its group). Default: the runtime's `sandboxGroup`, else the session's own processes. */
  sandboxGroup?: string;
  /** OpenTelemetry spans, made only when `@opentelemetry/api` has a registered tracer provider. */
  telemetry?: CodeModeTelemetryOptions;
  /** Parked runs kept in a run store, sealed, and resumed by replay in any process with the same scope, store and key (docs/durable-runs.md). */
  durableRuns?: DurableRunsOptions;
}
/** The `durableRuns` session option. */
export interface DurableRunsOptions {
  /** Where records live: `sqliteRunStore(path)`, `redisRunStore(client)`, `postgresRunStore(pool)` or your own. */
  store: RunStore;
  /** 32-byte keys; the first seals, every one opens (rotation). */
  keys: Array<{ id: string; key: Uint8Array }>;
  /** A record expires this long after its run last parked (default 86,400; 1..31,536,000). */
  ttlSeconds?: number;
}
/** The `telemetry` session option (see README, "Tracing"). */
export interface CodeModeTelemetryOptions {
  /** Spans for this session's calls when a tracer provider is registered (default true). */
  enabled?: boolean;
  /** Puts the redacted previews of code, tool arguments, results and errors on spans (default false: sizes only). */
  captureContent?: boolean;
}
/** `configureCodeModeRuntime` settings; unknown keys throw. */
export interface CodeModeRuntimeOptions {
  /** Worker threads running cells (default one per core, at least 2; 1..256). */
  workerThreads?: number;
  /** Parked runs kept process-wide (default 64, 1..10000). */
  maxSuspendedRuns?: number;
  /** Thread mode: worker threads stuck in a guest built-in that get a replacement (default 64, 0..1024); with none left healthy, new cells fail with `runtime_unavailable`. */
  maxStuckWorkers?: number;
  /** Where cells run by default: worker threads of this process or a separate process. */
  isolation?: "process" | "thread";
  /** The `sandboxGroup` of sessions that name none (default none: each session has its own sandbox processes); `null` clears it. */
  sandboxGroup?: string | null;
  /** The most sandbox processes alive at once (default from the fd and pid limits, at most 65536; 1..65536). */
  maxSandboxProcesses?: number;
  /** A sandbox process holding no running or parked run ends after this long (default 30000; 0..3600000). */
  sandboxIdleMs?: number;
}
/** The model's `exec` call: `code` (or `command`, the same text) and its language. */
export interface CodeModeExecInput { code?: string; command?: string; language?: "javascript" | "typescript"; restartSafe?: boolean; }
/** The model's `wait` call. */
export interface CodeModeWaitInput { runId: string; }
export interface CallOptions {
  /** Aborts the call: the run fails with `aborted`. */
  signal?: AbortSignal;
  callId?: string;
  /** Fits the whole result (telemetry included) into this many characters. */
  resultBudgetChars?: number;
  /** Any value: every tool call made during this call gets it as `ctx.context`. */
  context?: unknown;
}
export type CodeModeOutput = { type: "text"; text: string } | { type: "json"; value: JsonValue };
/** A call a `waiting` run is parked on; `external` (with the tool's `payload`) when its tool called `ctx.suspend` and only `resolveCall` settles it. */
export interface CodeModePendingToolCall { id: string; method: string; toolName?: string; external?: true; payload?: JsonValue; }
export interface NestedCallRecord { callId: string; parentCallId?: string; toolName: string; callableName?: string; status: "ok" | "error" | "pending" | "cancelled"; durationMs?: number; inputPreview?: string; outputPreview?: string; error?: string; }
export interface CodeModeTelemetry { catalogSize: number; sources: { core: number; /** @deprecated the old name of `core`, always equal to it */ openclaw: number; mcp: number; client: number }; counterScope: string; searchCount: number; describeCount: number; callCount: number; visibleTools: string[]; run?: { wallMs: number; guestCpuMs: number; peakHeapBytes: number; nestedCalls: number }; }
interface ResultBase { output?: CodeModeOutput[]; telemetry: CodeModeTelemetry; nestedCalls?: NestedCallRecord[]; }
export type CodeModeResult = (ResultBase & { status: "completed"; value: JsonValue }) | (ResultBase & { status: "waiting"; runId: string; reason: "pending_tools" | "yield"; pendingToolCalls?: CodeModePendingToolCall[] }) | (ResultBase & { status: "failed"; error: string; code: CodeModeErrorCode });
/** What to send back to the model for a result (`toModelResult`). */
export type ModelResult = { status: "completed"; value: JsonValue; output?: CodeModeOutput[] } | { status: "waiting"; runId: string; reason: "pending_tools" | "yield"; output?: CodeModeOutput[] } | { status: "failed"; error: string; code: CodeModeErrorCode; output?: CodeModeOutput[] };
/** A function tool's input schema as models take it: always an object schema. */
export interface ModelToolParameters { type: "object"; properties?: { [key: string]: any }; required?: string[]; [key: string]: any; }
/** One entry of `modelTools()`: a tool definition in the shape every model API takes. */
export interface ModelToolDefinition { name: string; description: string; parameters: ModelToolParameters; /** Set on exec and wait by `modelTools({ strict: true })`. */ strict?: boolean; }
/** `modelTools()` options. */
export interface ModelToolsOptions {
  /** exec and wait in OpenAI strict function-calling form (every property required, optional ones nullable). */
  strict?: boolean;
}
/** One run record: opaque bytes and the version the store gave them (docs/durable-runs.md). */
export interface RunRecord { version: number; bytes: Uint8Array; }
/** `put` options: `expectVersion` null or absent = create-only; `ttlSeconds` 1..31,536,000 (default 86,400). */
export interface RunStorePutOptions { expectVersion?: number | null; ttlSeconds?: number; }
/** A put wrote `version` (`expectVersion + 1`, 1 for a create), or found `current` (null: no live record). */
export type RunStorePutResult = { ok: true; version: number } | { ok: false; current: number | null };
/** The `code` of an error a run store throws or rejects with. */
export type RunStoreErrorCode = "invalid_input" | "snapshot_limit_exceeded" | "store_unavailable" | "record_refused";
/**
 * Where durable runs live between processes. Bring your own by implementing these three
 * methods to the contract of docs/durable-runs.md (compare-and-set; expiry after the last put).
 */
export interface RunStore {
  /** The live record of `runId`, or null (none, deleted, or expired). */
  get(runId: string): Promise<RunRecord | null>;
  /** Writes `bytes` as `expectVersion + 1` only if the live version is `expectVersion` (null: no live record). */
  put(runId: string, bytes: Uint8Array, options?: RunStorePutOptions): Promise<RunStorePutResult>;
  /** Deletes the live record (only at `expectVersion` when given); true if one was deleted. */
  delete(runId: string, expectVersion?: number | null): Promise<boolean>;
}
/** `sqliteRunStore` options. */
export interface SqliteRunStoreOptions {
  /** How long an operation waits for another process's lock (default 5,000, max 600,000). */
  busyTimeoutMs?: number;
  /** The largest record in bytes (default 10 MiB, 1,024..256 MiB); over it: `snapshot_limit_exceeded`. */
  maxRecordBytes?: number;
}

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
   * Settles an external call (its tool called `ctx.suspend(payload)`) of a run of this
   * session's scope with `value`, or with `error: { message }`; the next `wait` (or the
   * call in flight) delivers it to the guest. Answers `"resolved"` the first time and
   * `"already_resolved"` after; rejects with `invalid_input` on a bad input, an unknown
   * or foreign run, an unknown call, or a call that is not external.
   */
  resolveCall(input: ResolveCallInput): Promise<ResolveCallAnswer>
  /**
   * Creates a session. Throws a TypeError with `err.code = "invalid_input"` and a
   * message naming the field on invalid options.
   */
  constructor(options: CodeModeSessionOptions)
  /** The session id this session was created with. */
  get sessionId(): string
  /** Runs a cell. Never rejects for guest, tool or limit problems: those are `failed` results. */
  exec(input: CodeModeExecInput, options?: CallOptions): Promise<CodeModeResult>
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
  wait(input: CodeModeWaitInput, options?: CallOptions): Promise<CodeModeResult>
  /**
   * Appends tools. Client tool additions keep counterScope and counters; the
   * description refreshes.
   */
  addTools(tools: ToolDefinition[]): void
  /**
   * `[exec, wait, ...directOnly tools]`: what the gateway sends to the model.
   * Deterministic for equal catalogs. With `strict: true`, `exec` and `wait` take the
   * OpenAI strict function-calling form (every property required, optional ones
   * nullable) and are marked `strict: true`; exec reads `null` as absent.
   */
  modelTools(options?: ModelToolsOptions): ModelToolDefinition[]
  /**
   * The tools whose name the guest calls differs from their own (`web-search` becomes
   * `web_search`, a keyword or a clash gets a suffix): tool name to callable name.
   */
  names(): { [toolName: string]: string }
  /**
   * The direct-only tool definitions this session holds, as they were passed (with their
   * `execute`): what a framework adapter runs when the model calls one of them.
   */
  directOnlyTools(): ToolDefinition[]
  /** Catalog counters and sizes (cumulative for the catalog lifetime). */
  telemetry(): CodeModeTelemetry
  /** Cancels active cells and pending host work, drops this session's parked runs. Idempotent. */
  close(): Promise<void>
  /** Extension: ids and ages of this session's parked runs. */
  runs(): Array<{ runId: string; reason: string; pending: number; parkedMs: number; bytes: number }>
  /**
   * Extension: drops one parked run of this session; false if there is none by that id.
   * A durable run's record is deleted too (in the background), so no process resumes it.
   */
  cancelRun(runId: string): boolean
}

/** The embedded run store: one SQLite file (WAL) that several processes may share. */
export declare class SqliteRunStore {
  /** The live record of `runId`, or null when there is none or it expired. */
  get(runId: string): Promise<RunStoreRecord | null>
  /** Writes `bytes` if the live version is `options.expectVersion` (null: none). */
  put(runId: string, bytes: Uint8Array, options?: RunStorePutOptions): Promise<RunStorePutResult>
  /**
   * Deletes the live record of `runId` (only at `expectVersion` when given); resolves
   * true if one was deleted.
   */
  delete(runId: string, expectVersion?: number | null): Promise<boolean>
  /** Closes the file; later operations reject with `store_unavailable`. Idempotent. */
  close(): Promise<void>
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
 * `sandboxProcesses` sandbox processes alive (`isolation: "process"`), `maxSandboxProcesses`
 * the cap on them in force, `isolation` the default of sessions that do not choose.
 */
export declare function codeModeRuntimeStats(): { parkedRuns: number; liveCells: number; liveVms: number; pendingTimers: number; workers: number; stuckWorkers: number; sandboxProcesses: number; maxSandboxProcesses: number; isolation: "process" | "thread" }

/**
 * Process-wide settings; call before the first session runs a cell. Misuse (an unknown
 * key, a value out of range) throws with `code: "invalid_input"`.
 */
export declare function configureCodeModeRuntime(options: CodeModeRuntimeOptions): void

/**
 * Masks credential literals in JS/TS source for session history: string literals
 * assigned to credential-named bindings or properties, recognisable tokens (`sk-…`,
 * `ghp_…`, `xox…-`, `AKIA…`, JWTs, PEM private keys), registered `secrets` and
 * `patterns` (RegExp objects, or strings in Rust regex syntax). Masks are `[REDACTED]`
 * inside the original quotes, so redacting twice is stable. Unparsable source gets the
 * token and pattern masks only. Throws (`code: "invalid_input"`) for an invalid pattern or option.
 */
export declare function redactSource(code: string, options?: { secrets?: string[]; patterns?: Array<string | RegExp> }): string

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

/** What a put did: `{ ok: true, version }` or `{ ok: false, current }`. */
export interface RunStorePutReply {
  ok: boolean
  version?: number
  current?: number | null
}

/** A run record as a store returns it. */
export interface RunStoreRecord {
  version: number
  bytes: Buffer
}

/** Opens (on first use) the SQLite run store at `path`; see docs/durable-runs.md. */
export declare function sqliteRunStore(path: string, options?: SqliteRunStoreOptions): SqliteRunStore

/**
 * What a gateway sends back to the model for an exec/wait result: `status`, then `value`
 * (completed), `error` and `code` (failed) or `runId` and `reason` (waiting), and
 * `output` — no telemetry or `nestedCalls`. Pure. With `budgetChars` (an integer of at
 * least 256), `JSON.stringify` of the answer is at most that many characters: output is
 * cut first, then the value or error, to truncation markers; a completed result stays
 * completed. Throws (`code: "invalid_input"`) for a value that is not a result or a bad
 * budget.
 */
export declare function toModelResult(result: CodeModeResult, options?: { budgetChars?: number }): ModelResult

/** Strips TypeScript types from a cell (oxc); errors are returned as data. */
export declare function transformTypeScript(code: string): { code: string } | { error: string; line: number; column: number }

/**
 * Human-readable problems of the code-mode parts of a gateway config, each
 * `"<path>: <problem>"`; `[]` when it is fine.
 */
export declare function validateCodeModeConfig(config: unknown): string[]
