// `codemode-native mcp` against connecting the same MCP servers directly: the tool payload a
// client receives (tools/list bytes) and what an upstream call costs through the command.
// Real servers over stdio (filesystem on a temp folder, memory), both isolation modes.
// Usage: npm run bench:mcp-command   (MCP_BENCH_SAMPLES=N, MCP_BENCH_LOOP=K)
import { mkdtempSync, rmSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SAMPLES = Number(process.env.MCP_BENCH_SAMPLES ?? 40);
const LOOP = Number(process.env.MCP_BENCH_LOOP ?? 200);
const MODES = process.platform === "linux" || process.platform === "darwin" ? ["process", "thread"] : ["thread"];

function binOf(pkg) {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = require(manifest);
  return path.join(path.dirname(manifest), typeof bin === "string" ? bin : Object.values(bin)[0]);
}

const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "mcp-bench-")));
const servers = {
  fs: { command: process.execPath, args: [binOf("@modelcontextprotocol/server-filesystem"), dir] },
  memory: { command: process.execPath, args: [binOf("@modelcontextprotocol/server-memory")], env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } },
};
const configFile = path.join(dir, "codemode.json");
writeFileSync(configFile, JSON.stringify({ mcpServers: servers, codeMode: { timeoutMs: 60_000 } }));

async function connect(command, args, env) {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command, args, env: env ?? {}, stderr: "ignore" }));
  return client;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
async function timeEach(n, fn) {
  for (let i = 0; i < 3; i++) await fn(); // warm-up
  const times = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
}
const listBytes = async (client) => Buffer.byteLength(JSON.stringify((await client.listTools()).tools));

async function exec(client, code) {
  const result = await client.callTool({ name: "exec", arguments: { code } });
  const model = JSON.parse(result.content[0].text);
  if (model.status !== "completed") throw new Error(`bench cell did not complete: ${result.content[0].text}`);
  return model.value;
}

// ---------- direct ----------
const direct = {};
for (const [name, def] of Object.entries(servers)) direct[name] = await connect(def.command, def.args, def.env);
const directBytes = { fs: await listBytes(direct.fs), memory: await listBytes(direct.memory) };
const directToolCount = (await direct.fs.listTools()).tools.length + (await direct.memory.listTools()).tools.length;
const call = () => direct.fs.callTool({ name: "list_allowed_directories", arguments: {} });
const directCallMs = await timeEach(SAMPLES, call);
const directLoopMs = await timeEach(Math.max(5, SAMPLES / 8), async () => {
  for (let i = 0; i < LOOP; i++) await call();
});

// ---------- through the command, per isolation mode ----------
const via = {};
for (const mode of MODES) {
  const client = await connect(process.execPath, [path.join(root, "bin", "codemode-native.mjs"), "mcp", "--config", configFile], {
    ...process.env,
    CODEMODE_NATIVE_ISOLATION: mode,
  });
  const bytes = await listBytes(client);
  const emptyMs = await timeEach(SAMPLES, () => exec(client, "return 1"));
  const oneMs = await timeEach(SAMPLES, () => exec(client, "return (await MCP.fs.listAllowedDirectories({})).isError"));
  const loopMs = await timeEach(Math.max(5, SAMPLES / 8), () =>
    exec(client, `for (let i = 0; i < ${LOOP}; i++) await MCP.fs.listAllowedDirectories({}); return ${LOOP}`)
  );
  via[mode] = { bytes, emptyMs, oneMs, loopMs };
  await client.close();
}
await Promise.all(Object.values(direct).map((c) => c.close()));
rmSync(dir, { recursive: true, force: true });

// ---------- table ----------
const f = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`);
const directTotal = directBytes.fs + directBytes.memory;
const rows = [["measure", "direct", ...MODES.map((m) => `command (${m})`)]];
rows.push([`tools/list payload (${directToolCount} tools direct)`, `${directTotal} B`, ...MODES.map((m) => `${via[m].bytes} B (${(directTotal / via[m].bytes).toFixed(1)}× smaller)`)]);
rows.push(["one call as one client request (median)", f(directCallMs), ...MODES.map((m) => `${f(via[m].oneMs)} (+${f(via[m].oneMs - directCallMs)})`)]);
rows.push(["exec without a call (median)", "", ...MODES.map((m) => f(via[m].emptyMs))]);
rows.push([`per call, ${LOOP} sequential calls in one program (median)`, f(directLoopMs / LOOP), ...MODES.map((m) => {
  const per = (via[m].loopMs - via[m].emptyMs) / LOOP;
  return `${f(per)} (+${f(per - directLoopMs / LOOP)})`;
})]);
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
const line = (r) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
console.log(line(rows[0]));
console.log(`| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`);
for (const r of rows.slice(1)) console.log(line(r));
console.log(`\nsamples: ${SAMPLES} (loop rows: ${Math.max(5, SAMPLES / 8)} programs of ${LOOP} calls); direct = SDK Client over stdio to the same server; fs call = list_allowed_directories`);
