// `npm run fuzz`: runs every cargo-fuzz target for FUZZ_SECONDS (default 60) each, one
// after another at low priority, and prints executions per target.
//
// Env: FUZZ_SECONDS (per target), FUZZ_TARGETS (comma list, default all),
// FUZZ_SANITIZER (default "none": the stable toolchain cannot build AddressSanitizer's
// std; set "address" on a nightly toolchain), FUZZ_JOBS is not used: the machine is shared.
// New inputs go to fuzz/target/work/<target> (gitignored); the committed corpus in
// fuzz/corpus/<target> is only read. Crashes land in fuzz/artifacts/<target>/. Each target
// (fuzz/fuzz_targets/<target>.rs) feeds its check in fuzz/oracles/src/ (codemode-native-oracles).
import { spawnSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const fuzzDir = join(root, "fuzz");
const ALL = ["front_end", "json_bridge", "schema_render", "search", "output_budget"];
const seconds = Number.parseInt(process.env.FUZZ_SECONDS ?? "60", 10);
const targets = (process.env.FUZZ_TARGETS ?? ALL.join(",")).split(",").map((t) => t.trim()).filter(Boolean);
const sanitizer = process.env.FUZZ_SANITIZER ?? "none";
// cargo-fuzz passes nightly-only flags (-Zsanitizer, -Cpasses=sancov); the pinned stable
// toolchain accepts them with RUSTC_BOOTSTRAP=1.
const env = { ...process.env, RUSTC_BOOTSTRAP: "1" };

if (!Number.isFinite(seconds) || seconds < 1) {
  console.error(`FUZZ_SECONDS must be a positive integer (got ${process.env.FUZZ_SECONDS}).`);
  process.exit(2);
}
for (const t of targets) {
  if (!ALL.includes(t)) {
    console.error(`Unknown fuzz target ${t}; targets: ${ALL.join(", ")}.`);
    process.exit(2);
  }
}

const probe = spawnSync("cargo", ["fuzz", "--version"], { cwd: root, env, encoding: "utf8" });
if (probe.status !== 0) {
  console.error(
    [
      "cargo-fuzz is not installed (`cargo fuzz --version` failed).",
      "Install it once with:   cargo install cargo-fuzz",
      "No nightly toolchain is needed: this script sets RUSTC_BOOTSTRAP=1 and builds",
      `with --sanitizer ${sanitizer}. Then run \`npm run fuzz\` again.`,
    ].join("\n")
  );
  process.exit(2);
}

function niceArgs(args) {
  // Lower priority where `nice` exists: fuzzing must not starve a shared machine.
  const hasNice = process.platform !== "win32" && spawnSync("nice", ["true"]).status === 0;
  return hasNice ? ["nice", ["-n", "10", ...args]] : [args[0], args.slice(1)];
}

function build() {
  const [cmd, args] = niceArgs(["cargo", "fuzz", "build", "--sanitizer", sanitizer]);
  const built = spawnSync(cmd, args, { cwd: fuzzDir, env, stdio: "inherit" });
  if (built.status !== 0) {
    console.error("cargo fuzz build failed.");
    process.exit(built.status ?? 1);
  }
}

function run(target) {
  const work = join(fuzzDir, "target", "work", target);
  const artifacts = join(fuzzDir, "artifacts", target);
  mkdirSync(work, { recursive: true });
  mkdirSync(artifacts, { recursive: true });
  const [cmd, args] = niceArgs([
    "cargo", "fuzz", "run", "--sanitizer", sanitizer, target,
    work, join(fuzzDir, "corpus", target),
    "--",
    `-max_total_time=${seconds}`,
    "-print_final_stats=1",
    "-timeout=10",
    "-rss_limit_mb=3072",
    `-artifact_prefix=${artifacts}/`,
  ]);
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, { cwd: fuzzDir, env, stdio: ["ignore", "inherit", "pipe"] });
    let tail = "";
    child.stderr.on("data", (chunk) => {
      process.stderr.write(chunk);
      tail = (tail + chunk.toString()).slice(-20000);
    });
    child.on("close", (code) => {
      const execs = /stat::number_of_executed_units:\s*(\d+)/.exec(tail);
      const corpus = readdirSync(work).length;
      resolve({
        target,
        ok: code === 0,
        execs: execs ? Number(execs[1]) : null,
        wallSeconds: Math.round((Date.now() - started) / 1000),
        newInputs: corpus,
      });
    });
  });
}

build();
const results = [];
for (const target of targets) {
  console.error(`\n=== fuzzing ${target} for ${seconds}s ===`);
  results.push(await run(target));
}
console.log("\ntarget          executions  wall s  exec/s  status");
for (const r of results) {
  const rate = r.execs && r.wallSeconds ? Math.round(r.execs / r.wallSeconds) : "-";
  console.log(
    `${r.target.padEnd(15)} ${String(r.execs ?? "?").padStart(10)}  ${String(r.wallSeconds).padStart(6)}  ${String(rate).padStart(6)}  ${r.ok ? "ok" : "FAILED (see fuzz/artifacts/" + r.target + "/)"}`
  );
}
const failed = results.filter((r) => !r.ok);
if (failed.length > 0) {
  console.log(
    "\nA failing input is in fuzz/artifacts/<target>/. Minimize it with `RUSTC_BOOTSTRAP=1 cargo fuzz tmin --sanitizer none <target> <file>` (in fuzz/), add it to fuzz/corpus/<target>/, fix the bug, and `cargo test --no-default-features --test fuzz_corpus`."
  );
  process.exit(1);
}
