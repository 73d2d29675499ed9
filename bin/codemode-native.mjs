#!/usr/bin/env node
// The codemode-native command. `mcp` serves MCP servers as exec and wait (cli/mcp.mjs).
import { runMcp } from "../cli/mcp.mjs";
import { MAIN_HELP } from "../cli/help.mjs";
import { log, errorText } from "../cli/log.mjs";

// An upstream misbehaving must not take the command down; say what happened and go on.
process.on("unhandledRejection", (reason) => log(`unexpected: ${errorText(reason)}`));

const [command, ...rest] = process.argv.slice(2);
let status;
if (command === "mcp") {
  status = await runMcp(rest);
} else if (command === "--help" || command === "-h" || command === "help") {
  process.stdout.write(MAIN_HELP);
  status = 0;
} else if (command === undefined) {
  // Perhaps a client started it without "mcp": stdout may be its protocol stream.
  process.stderr.write(MAIN_HELP);
  status = 2;
} else {
  process.stderr.write(`codemode-native: unknown command ${JSON.stringify(command)}\n${MAIN_HELP}`);
  status = 2;
}
// Upstream children are closed by now; nothing else should keep the process up.
process.exit(status);
