// The arguments of an exec or wait call, checked against the tool's declared input schema
// before the session sees them: the schema says `additionalProperties: false`, so an unknown
// key is refused (naming it, and the right key when it is a near miss), and a missing
// required key is named as the schema names it.
import { nearest } from "./suggest.mjs";

// What other tools call these arguments; edit distance alone does not find them.
const ALIASES = {
  source: "code",
  script: "code",
  program: "code",
  command: "code",
  js: "code",
  javascript: "code",
  lang: "language",
  run_id: "runId",
  runid: "runId",
  run: "runId",
  id: "runId",
};

// The valid name `name` most likely stands for, if any.
function meant(name, valid) {
  const alias = ALIASES[name.toLowerCase()];
  return alias !== undefined && valid.includes(alias) ? alias : nearest(name, valid);
}

const list = (names) => names.map((n) => `"${n}"`).join(", ");

/**
 * Why `input` does not fit `schema` (an object schema with `properties` and `required`), as
 * one sentence starting with the tool's name; undefined when it fits. Only the keys are
 * checked: values are the session's to judge.
 */
export function argumentProblem(tool, input, schema) {
  const valid = Object.keys(schema.properties ?? {});
  const unknown = Object.keys(input).filter((name) => !valid.includes(name));
  if (unknown.length === 1) {
    const near = meant(unknown[0], valid);
    const hint = near !== undefined ? `; did you mean "${near}"?` : ".";
    return `${tool}: unknown argument "${unknown[0]}"${hint} ${tool} takes ${list(valid)}.`;
  }
  if (unknown.length > 1) {
    const named = unknown.map((name) => {
      const near = meant(name, valid);
      return near !== undefined ? `"${name}" (did you mean "${near}"?)` : `"${name}"`;
    });
    return `${tool}: unknown arguments ${named.join(", ")}. ${tool} takes ${list(valid)}.`;
  }
  const missing = (schema.required ?? []).filter((name) => !Object.hasOwn(input, name));
  if (missing.length > 0) return `${tool}: missing required argument${missing.length > 1 ? "s" : ""} ${list(missing)}. ${tool} takes ${list(valid)}.`;
  return undefined;
}
