// Command-line arguments of `codemode-native mcp`. Misuse throws a UsageError whose message
// says what is wrong (an unknown flag names the nearest valid one).
import { suggestion } from "./suggest.mjs";

export class UsageError extends Error {}

const VALUE_FLAGS = ["--config", "--http", "--token-env"];
const SWITCHES = ["--allow-remote", "--help", "-h"];

/** `host:port` (IPv6 in brackets) as `{ host, port }`. */
export function parseHostPort(text) {
  const match = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) throw new UsageError(`--http: expected host:port (e.g. 127.0.0.1:8808 or [::1]:8808), got ${JSON.stringify(text)}`);
  return { host: match[1] ?? match[2], port };
}

/** The options of `mcp` from the arguments after it. */
export function parseMcpArgs(argv) {
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
      if (!arg.startsWith("-")) throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
      throw new UsageError(`unknown option ${flag}; ${suggestion(flag, [...VALUE_FLAGS, "--allow-remote", "--help"])}`);
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === "") throw new UsageError(`${flag} needs a value`);
    if (flag === "--config") options.config = value;
    else if (flag === "--http") options.http = parseHostPort(value);
    else options.tokenEnv = value;
  }
  if (options.help) return options;
  if (options.config === undefined) throw new UsageError("--config <file> is required");
  if (options.tokenEnv !== undefined && options.http === undefined) throw new UsageError("--token-env applies to --http only");
  if (options.allowRemote && options.http === undefined) throw new UsageError("--allow-remote applies to --http only");
  return options;
}
