// `codemode-native mcp`: reads the config, starts the upstream servers and serves exec
// and wait over stdio or HTTP until the client goes (stdio) or a signal arrives.
// Returns the exit status: 0 when served and shut down, 2 for bad usage or config.
import { parseMcpArgs, UsageError } from "./args.mjs";
import { loadConfig, ConfigError } from "./config.mjs";
import { MCP_HELP } from "./help.mjs";
import { Hub } from "./upstreams.mjs";
import { serveStdio } from "./stdio.mjs";
import { serveHttp, isLoopback } from "./http.mjs";
import { log, errorText } from "./log.mjs";
import { summarize, readyLine } from "./ready.mjs";
import { native } from "./addon.mjs";

// The addon checks limits and isolation itself; a session made and closed at once surfaces
// that check at startup instead of at the first connection.
function checkCodeMode(codeMode) {
  try {
    const probe = new native.CodeModeSession({ sessionId: "config-check", limits: codeMode.limits, ...(codeMode.isolation ? { isolation: codeMode.isolation } : {}) });
    probe.close().catch(() => {});
  } catch (error) {
    throw new ConfigError("codeMode", [errorText(error)]);
  }
}

function prepare(argv) {
  const options = parseMcpArgs(argv);
  if (options.help) return { options };
  if (options.http && !options.allowRemote && !isLoopback(options.http.host)) {
    throw new UsageError(`--http ${options.http.host}: not a loopback address; anyone who can reach it could run code through your MCP servers. Add --allow-remote (and --token-env) to serve it anyway`);
  }
  let token;
  if (options.tokenEnv !== undefined) {
    token = process.env[options.tokenEnv];
    if (token === undefined || token === "") throw new UsageError(`--token-env ${options.tokenEnv}: that environment variable is not set or empty`);
  }
  const config = loadConfig(options.config);
  const codeMode = { limits: config.limits, isolation: config.isolation };
  checkCodeMode(codeMode);
  return { options, config, codeMode, token };
}

function signalled() {
  return new Promise((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.once(signal, () => resolve(signal));
  });
}

export async function runMcp(argv) {
  let prepared;
  try {
    prepared = prepare(argv);
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof ConfigError)) throw error;
    log(error.message);
    if (error instanceof UsageError) process.stderr.write(`Run "codemode-native mcp --help" for usage.\n`);
    return 2;
  }
  const { options, config, codeMode, token } = prepared;
  if (options.help) {
    process.stdout.write(MCP_HELP);
    return 0;
  }
  const hub = new Hub(config.servers, { namespacePrompts: config.namespacePrompts });
  const names = config.servers.map((s) => s.name);
  log(`starting ${names.length === 1 ? "1 MCP server" : `${names.length} MCP servers`}: ${names.join(", ")}`);
  const started = hub.start();
  // Said once, when every upstream has connected or failed once; clients may connect before.
  const announce = async (where) => {
    await started;
    const summary = await summarize(hub.upstreams);
    if (!hub.upstreams.some((u) => u.state === "closed")) log(readyLine(summary, where));
  };
  if (options.http === undefined) {
    announce("stdio");
    await Promise.race([serveStdio(hub, codeMode), signalled()]);
    await hub.close();
    return 0;
  }
  let served;
  try {
    served = await serveHttp(hub, codeMode, { ...options.http, token });
  } catch (error) {
    log(`cannot listen on ${options.http.host}:${options.http.port}: ${errorText(error)}`);
    await hub.close();
    return 1;
  }
  log(`listening on ${served.url}`);
  announce(served.url);
  const signal = await signalled();
  log(`${signal}: shutting down`);
  await served.close();
  await hub.close();
  return 0;
}
