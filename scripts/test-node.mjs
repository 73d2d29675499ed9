// Runs the node:test suites once per isolation mode, as CI does: guests in sandbox
// processes (the default where supported), then on the addon's threads. Suites that make
// no session (type checks, the TypeScript transform, config helpers, the loader) run in
// the first pass only: the mode cannot change what they test.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";

const MODE_FREE = new Set(["types.test.mjs", "transform.test.mjs", "config.test.mjs", "loader.test.mjs"]);
const suites = readdirSync("__test__")
  .filter((name) => name.endsWith(".test.mjs"))
  .sort();

const modes = process.platform === "linux" || process.platform === "darwin" ? ["process", "thread"] : ["thread"];
modes.forEach((mode, pass) => {
  const files = suites.filter((name) => pass === 0 || !MODE_FREE.has(name)).map((name) => `__test__/${name}`);
  console.log(`\n# node:test suites with isolation: "${mode}" (${files.length} files)`);
  const run = spawnSync(process.execPath, ["--test", "--test-concurrency=1", ...files], {
    stdio: "inherit",
    env: { ...process.env, CODEMODE_NATIVE_ISOLATION: mode },
  });
  if (run.status !== 0) {
    console.error(`node:test suites failed with isolation: "${mode}"`);
    process.exit(run.status ?? 1);
  }
});
