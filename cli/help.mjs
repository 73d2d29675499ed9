// The text of --help: usage, flags and the config file format.

export const MAIN_HELP = `Usage: codemode-native <command> [options]

Commands:
  mcp    serve a set of MCP servers to any MCP client as two tools, exec and wait

Run "codemode-native mcp --help" for its options and config file.
`;

export const MCP_HELP = `Usage: codemode-native mcp <file> [--http <host:port> [--allow-remote] [--token-env <NAME>]]
       codemode-native mcp --config <file> [...]
       CODEMODE_NATIVE_MCP_CONFIG=<file> codemode-native mcp [...]

Serves the MCP servers named in <file> as one MCP server with exactly two tools, exec and
wait. The model writes a JavaScript or TypeScript program that calls the upstream tools as
MCP.<server>.<tool>({ ... }); their schemas stay out of the prompt. Each MCP connection gets
its own code-mode session. Logs go to stderr: a "ready (<n> servers, <n> tools) on …" line
once every server has connected or failed once, and a line for each failure.

Options:
  <file>, --config <file>
                       the config file (JSON, below); required, unless the environment
                       variable CODEMODE_NATIVE_MCP_CONFIG names it
  --http <host:port>   serve Streamable HTTP at http://<host:port>/mcp instead of stdio
                       (port 0 picks a free port; the URL is logged to stderr)
  --allow-remote       allow --http on an address other than loopback
  --token-env <NAME>   with --http: every request must send "Authorization: Bearer <token>",
                       where <token> is the value of the environment variable NAME
  -h, --help           this text

Config file:
  {
    "mcpServers": {
      "<name>": { "command": "node", "args": ["server.js"], "env": { "KEY": "value" }, "cwd": "/dir" },
      "<name>": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer …" } }
    },
    "codeMode": {
      "timeoutMs": 10000, "memoryLimitBytes": 67108864, "maxOutputBytes": 65536,
      "maxSnapshotBytes": 10485760, "maxPendingToolCalls": 16, "snapshotTtlSeconds": 900,
      "searchDefaultLimit": 8, "maxSearchLimit": 50, "languages": ["javascript", "typescript"],
      "isolation": "process"
    },
    "namespacePrompts": true
  }

  mcpServers   required; a local server has "command" (and optional "args", "env", "cwd"),
               a remote one has "url" (and optional "headers"); "type" may say
               "stdio", "http" or "streamable-http". "env" adds to a safe default environment.
  codeMode     optional; the session limits (positive integers, clamped to their ranges)
               and "isolation": "process" (a sandbox process per session, the default on
               Linux and macOS) or "thread".
  namespacePrompts
               optional, default true: upstream prompts are named "<server>__<prompt>";
               false keeps their own names (a name two servers share is the first one's).

A bad config exits with status 2, naming each bad field (e.g. "mcpServers.fs.args[1]:
expected a string, got 7"). An upstream server that fails or exits is restarted with
backoff (250 ms doubling to 30 s); meanwhile calls to it fail with an error naming it.
`;
