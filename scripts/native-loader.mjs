// Runs after `napi build`: the CLI's generated loader (index.js) always tries a WASI
// fallback (`codemode-native-wasm32-wasi`) when no native binding loads, and that attempt's
// error then leads "Cannot find native binding", naming a package this project never
// builds. Here WASI is tried only when asked for (NAPI_RS_FORCE_WASI), so a missing
// binding names only the real targets of package.json `napi.targets`.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const file = join(dirname(fileURLToPath(import.meta.url)), "..", "index.js");
const FALLBACK = "if (!nativeBinding || forceWasi) {\n";
const FORCED_ONLY = "if (forceWasi) {\n";
const text = readFileSync(file, "utf8");
const count = text.split(FALLBACK).length - 1;
if (count === 1) {
  writeFileSync(file, text.replace(FALLBACK, FORCED_ONLY));
} else if (!text.includes(FORCED_ONLY)) {
  // A new napi CLI shaped the loader differently: say so rather than ship the old text.
  console.error(`native-loader: expected one WASI fallback in ${file}, found ${count}; update scripts/native-loader.mjs`);
  process.exit(1);
}
