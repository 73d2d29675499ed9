// Diagnostics of the command. Everything goes to stderr: in stdio mode stdout carries the
// MCP protocol and nothing else.
import { createInterface } from "node:readline";
import { onePrefix } from "./errors.mjs";

/** MCP logging levels, least severe first. */
export const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

// Who else hears the command's log lines: connections pass them on to their clients as
// notifications/message (logger "codemode-native") at `level`.
export const logListeners = new Set();

/** Writes one line to stderr, prefixed with the command's name; `level`: an MCP logging level. */
export function log(message, level = "info") {
  process.stderr.write(`codemode-native: ${message}\n`);
  for (const listener of logListeners) listener(message, level);
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
