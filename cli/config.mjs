// The command's config file: the `mcpServers` format MCP clients already use, plus a
// `codeMode` section and `namespacePrompts`. Validation collects every problem as "<path>: <problem>".
import { readFileSync } from "node:fs";
import { suggestion } from "./suggest.mjs";

const TOP_KEYS = ["mcpServers", "codeMode", "namespacePrompts"];
const STDIO_KEYS = ["type", "command", "args", "env", "cwd"];
const HTTP_KEYS = ["type", "url", "headers"];
const TRANSPORT_TYPES = ["stdio", "http", "streamable-http"];
const LIMIT_KEYS = [
  "timeoutMs",
  "memoryLimitBytes",
  "maxOutputBytes",
  "maxSnapshotBytes",
  "maxPendingToolCalls",
  "snapshotTtlSeconds",
  "searchDefaultLimit",
  "maxSearchLimit",
];
const CODE_MODE_KEYS = [...LIMIT_KEYS, "languages", "isolation"];
const LANGUAGES = ["javascript", "typescript"];
const ISOLATIONS = ["process", "thread"];

export class ConfigError extends Error {
  constructor(file, problems) {
    super(`invalid config ${file}:\n${problems.map((p) => `  ${p}`).join("\n")}`);
    this.problems = problems;
  }
}

const isPlainObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const describe = (v) =>
  v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? JSON.stringify(v) : typeof v;
// A config path segment: identifiers as `.name`, anything else quoted.
const key = (base, name) => (/^[A-Za-z_$][\w$-]*$/.test(name) ? `${base}.${name}` : `${base}[${JSON.stringify(name)}]`);

function unknownKeys(object, valid, path, problems) {
  for (const name of Object.keys(object)) {
    if (!valid.includes(name)) problems.push(`${key(path, name)}: unknown key; ${suggestion(name, valid)}`);
  }
}

function stringArray(value, path, problems) {
  if (!Array.isArray(value)) return problems.push(`${path}: expected an array of strings, got ${describe(value)}`);
  value.forEach((item, i) => {
    if (typeof item !== "string") problems.push(`${path}[${i}]: expected a string, got ${describe(item)}`);
  });
}

function stringMap(value, path, problems) {
  if (!isPlainObject(value)) return problems.push(`${path}: expected an object of strings, got ${describe(value)}`);
  for (const [name, item] of Object.entries(value)) {
    if (typeof item !== "string") problems.push(`${key(path, name)}: expected a string, got ${describe(item)}`);
  }
}

function nonEmptyString(value, path, problems) {
  if (typeof value !== "string" || value.trim() === "") problems.push(`${path}: expected a non-empty string, got ${describe(value)}`);
}

function server(name, def, path, problems) {
  if (!isPlainObject(def)) return problems.push(`${path}: expected an object with "command" or "url", got ${describe(def)}`);
  if (name.trim() === "") problems.push(`${path}: a server name must not be empty`);
  if (def.type !== undefined && !TRANSPORT_TYPES.includes(def.type)) {
    problems.push(`${path}.type: expected one of ${TRANSPORT_TYPES.join(", ")}, got ${describe(def.type)}`);
  }
  const isHttp = def.url !== undefined || def.type === "http" || def.type === "streamable-http";
  if (def.command !== undefined && def.url !== undefined) {
    return problems.push(`${path}: give either "command" (a local server) or "url" (a remote one), not both`);
  }
  if (isHttp) {
    unknownKeys(def, HTTP_KEYS, path, problems);
    if (def.url === undefined) return problems.push(`${path}.url: missing; a remote server needs a URL`);
    nonEmptyString(def.url, `${path}.url`, problems);
    if (typeof def.url === "string") {
      let url;
      try {
        url = new URL(def.url);
      } catch {
        problems.push(`${path}.url: not a valid URL: ${JSON.stringify(def.url)}`);
      }
      if (url && url.protocol !== "http:" && url.protocol !== "https:") problems.push(`${path}.url: expected an http or https URL`);
    }
    if (def.headers !== undefined) stringMap(def.headers, `${path}.headers`, problems);
    return;
  }
  unknownKeys(def, STDIO_KEYS, path, problems);
  if (def.command === undefined) return problems.push(`${path}: missing "command" (a local server) or "url" (a remote one)`);
  nonEmptyString(def.command, `${path}.command`, problems);
  if (def.args !== undefined) stringArray(def.args, `${path}.args`, problems);
  if (def.env !== undefined) stringMap(def.env, `${path}.env`, problems);
  if (def.cwd !== undefined) nonEmptyString(def.cwd, `${path}.cwd`, problems);
}

function codeMode(section, path, problems) {
  if (!isPlainObject(section)) return problems.push(`${path}: expected an object, got ${describe(section)}`);
  unknownKeys(section, CODE_MODE_KEYS, path, problems);
  for (const name of LIMIT_KEYS) {
    const value = section[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      problems.push(`${path}.${name}: expected a positive integer, got ${describe(value)}`);
    }
  }
  if (section.languages !== undefined) {
    if (!Array.isArray(section.languages) || section.languages.length === 0) {
      problems.push(`${path}.languages: expected a non-empty array of ${LANGUAGES.join(", ")}`);
    } else {
      section.languages.forEach((language, i) => {
        if (!LANGUAGES.includes(language)) problems.push(`${path}.languages[${i}]: expected one of ${LANGUAGES.join(", ")}, got ${describe(language)}`);
      });
    }
  }
  if (section.isolation !== undefined && !ISOLATIONS.includes(section.isolation)) {
    problems.push(`${path}.isolation: expected one of ${ISOLATIONS.join(", ")}, got ${describe(section.isolation)}`);
  }
}

/** Problems of a parsed config, each "<path>: <problem>"; [] when it is fine. */
export function validateConfig(config) {
  const problems = [];
  if (!isPlainObject(config)) return [`(root): expected an object with "mcpServers", got ${describe(config)}`];
  unknownKeys(config, TOP_KEYS, "(root)", problems);
  const servers = config.mcpServers;
  if (servers === undefined) problems.push(`mcpServers: missing; name at least one MCP server`);
  else if (!isPlainObject(servers)) problems.push(`mcpServers: expected an object of servers by name, got ${describe(servers)}`);
  else if (Object.keys(servers).length === 0) problems.push(`mcpServers: empty; name at least one MCP server`);
  else for (const [name, def] of Object.entries(servers)) server(name, def, key("mcpServers", name), problems);
  if (config.codeMode !== undefined) codeMode(config.codeMode, "codeMode", problems);
  if (config.namespacePrompts !== undefined && typeof config.namespacePrompts !== "boolean") {
    problems.push(`namespacePrompts: expected true or false, got ${describe(config.namespacePrompts)}`);
  }
  return problems.map((p) => p.replace(/^\(root\)\./, ""));
}

/**
 * The config in the shape the command uses: `servers` as `[{ name, kind, ...definition }]`,
 * `limits`, `isolation` and `namespacePrompts` (default true). Throws a ConfigError listing every problem.
 */
export function loadConfig(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(file, [`cannot read the file: ${error.message}`]);
  }
  let config;
  try {
    config = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(file, [`not valid JSON: ${error.message}`]);
  }
  const problems = validateConfig(config);
  if (problems.length > 0) throw new ConfigError(file, problems);
  const { isolation, ...limits } = config.codeMode ?? {};
  const servers = Object.entries(config.mcpServers).map(([name, def]) => ({
    name,
    kind: def.url !== undefined ? "http" : "stdio",
    ...def,
  }));
  return { servers, limits, isolation, namespacePrompts: config.namespacePrompts ?? true };
}
