// Diagnostics of the command. Everything goes to stderr: in stdio mode stdout carries the
// MCP protocol and nothing else.
import { createInterface } from "node:readline";
import { onePrefix } from "./errors.mjs";

/** Writes one line to stderr, prefixed with the command's name. */
export function log(message) {
  process.stderr.write(`codemode-native: ${message}\n`);
}

/** Copies a child's stderr to ours line by line, each line prefixed `[<name>] `. */
export function pipeLines(stream, name) {
  if (!stream) return;
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  lines.on("line", (line) => process.stderr.write(`[${name}] ${line}\n`));
  // A child that dies mid-line must not take the command down.
  lines.on("error", () => {});
  stream.on("error", () => {});
}

/** An error's message, for log lines and guest-visible errors (one "MCP error <code>: " at most). */
export function errorText(error) {
  return onePrefix(error instanceof Error ? error.message : String(error));
}
