// Builds the addon in release mode unless an up-to-date binary is already present,
// so `npm run demo` and `npm run bench` work on a fresh clone with one command.
import { execSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const binaries = readdirSync(root).filter((f) => f.startsWith("codemode-native.") && f.endsWith(".node"));

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const sourceTime = Math.max(newestSource(join(root, "src")), statSync(join(root, "Cargo.toml")).mtimeMs);
const outputs = [...binaries, ...(process.platform === "win32" ? [] : ["codemode-sandbox"])];
const built = binaries.length > 0 && outputs.every((b) => existsSync(join(root, b)) && statSync(join(root, b)).mtimeMs >= sourceTime);
const run = (cmd) => execSync(cmd, { cwd: root, stdio: "inherit" });

if (!existsSync(join(root, "node_modules", "@napi-rs", "cli"))) {
  console.log("codemode-native: installing dev dependencies (npm install)…");
  run("npm install --no-audit --no-fund");
}
if (!built) {
  console.log("codemode-native: building the addon in release mode (first build takes a few minutes)…");
  run("npx napi build --platform --release");
  run("node scripts/native-loader.mjs");
  run("node scripts/build-sandbox.mjs --release");
}
