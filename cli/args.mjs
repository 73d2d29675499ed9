// Command-line arguments of `codemode-native mcp`. Misuse throws a UsageError whose message
// says what is wrong (an unknown flag names the nearest valid one). The config file is
// `--config <file>`, a positional `<file>` (MCP Inspector takes `--config` for itself), or
// the environment variable CONFIG_ENV, in that order.
import { suggestion } from "./suggest.mjs";

export class UsageError extends Error {}

/** The environment variable that names the config file when the arguments do not. */
export const CONFIG_ENV = "CODEMODE_NATIVE_MCP_CONFIG";

const VALUE_FLAGS = ["--config", "--http", "--token-env"];
const SWITCHES = ["--allow-remote", "--help", "-h"];

/** `host:port` (IPv6 in brackets) as `{ host, port }`. */
export function parseHostPort(text) {
  const match = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) throw new UsageError(`--http: expected host:port (e.g. 127.0.0.1:8808 or [::1]:8808), got ${JSON.stringify(text)}`);
  return { host: match[1] ?? match[2], port };
}

/** The options of `mcp` from the arguments after it; `env`: where CONFIG_ENV is read. */
export function parseMcpArgs(argv, env = process.env) {
  let positional;
  const options = { config: undefined, http: undefined, allowRemote: false, tokenEnv: undefined, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (SWITCHES.includes(flag)) {
      if (eq > 0) throw new UsageError(`${flag} takes no value`);
      if (flag === "--allow-remote") options.allowRemote = true;
      else options.help = true;
      continue;
    }
    if (!VALUE_FLAGS.includes(flag)) {
      if (!arg.startsWith("-") && positional === undefined && arg !== "") {
        positional = arg;
        continue;
      }
      if (!arg.startsWith("-")) throw new UsageError(`unexpected argument ${JSON.stringify(arg)}: give one config file`);
      throw new UsageError(`unknown option ${flag}; ${suggestion(flag, [...VALUE_FLAGS, "--allow-remote", "--help"])}`);
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === "") throw new UsageError(`${flag} needs a value`);
    if (flag === "--config" && options.config !== undefined) throw new UsageError("--config given twice");
    if (flag === "--config") options.config = value;
    else if (flag === "--http") options.http = parseHostPort(value);
    else options.tokenEnv = value;
  }
  if (positional !== undefined && options.config !== undefined) {
    throw new UsageError(`two config files: --config ${JSON.stringify(options.config)} and ${JSON.stringify(positional)}; give one`);
  }
  options.config ??= positional;
  if (options.help) return options;
  if (options.config === undefined && env[CONFIG_ENV]) options.config = env[CONFIG_ENV];
  if (options.config === undefined) throw new UsageError(`a config file is required: codemode-native mcp <file>, --config <file>, or ${CONFIG_ENV}=<file>`);
  if (options.tokenEnv !== undefined && options.http === undefined) throw new UsageError("--token-env applies to --http only");
  if (options.allowRemote && options.http === undefined) throw new UsageError("--allow-remote applies to --http only");
  return options;
}
