// Runs the node:test suites once per isolation mode, as CI does: guests in sandbox
// processes (the default where supported), then on the addon's threads.
import { spawnSync } from "node:child_process";

const modes = process.platform === "linux" || process.platform === "darwin" ? ["process", "thread"] : ["thread"];
for (const mode of modes) {
  console.log(`\n# node:test suites with isolation: "${mode}"`);
  const run = spawnSync(process.execPath, ["--test", "--test-concurrency=1", "__test__/"], {
    stdio: "inherit",
    env: { ...process.env, CODEMODE_NATIVE_ISOLATION: mode },
  });
  if (run.status !== 0) {
    console.error(`node:test suites failed with isolation: "${mode}"`);
    process.exit(run.status ?? 1);
  }
}
