// Builds the sandbox executable of `isolation: "process"` and puts it next to the addon
// (`codemode-sandbox` in the package root), where the addon looks for it. `--release`
// for the optimised build that `npm run build` makes.
import { execFileSync } from "node:child_process";
import { copyFileSync, chmodSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const release = process.argv.includes("--release");
const exe = process.platform === "win32" ? "codemode-sandbox.exe" : "codemode-sandbox";
if (process.platform === "win32") {
  console.log("codemode-native: no sandbox executable on Windows (isolation is \"thread\" there)");
  process.exit(0);
}
// CI cross-builds: `--target <triple>`, and `--zig` for musl (cargo-zigbuild).
const targetAt = process.argv.indexOf("--target");
const target = targetAt > 0 ? process.argv[targetAt + 1] : null;
const args = [process.argv.includes("--zig") ? "zigbuild" : "build", "--no-default-features", "--features", "sandbox-bin,mimalloc", "--bin", "codemode-sandbox"];
if (release) args.push("--release");
if (target) args.push("--target", target);
execFileSync("cargo", args, { cwd: root, stdio: "inherit" });
const built = join(root, "target", ...(target ? [target] : []), release ? "release" : "debug", exe);
// Copied beside and renamed over: a running sandbox keeps its old file (writing into a
// running executable fails with ETXTBSY).
const staged = join(root, `${exe}.building`);
copyFileSync(built, staged);
chmodSync(staged, 0o755);
renameSync(staged, join(root, exe));
