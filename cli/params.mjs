// Requests whose params fail the SDK's own schema. The SDK answers them with -32603 and
// Zod's issue list as JSON before any handler runs; a client deserves -32602 (invalid
// params) and a sentence: which param, what was wrong, and the nearest valid value.
import { nearest } from "./suggest.mjs";

const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

// Zod's type names as a person would say them.
const TYPE_NAMES = { record: "an object", object: "an object", string: "a string", number: "a number", boolean: "a boolean", array: "an array" };

function kindOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return TYPE_NAMES[typeof value] ?? typeof value;
}

function at(root, path) {
  return path.reduce((value, key) => (value !== null && typeof value === "object" ? value[key] : undefined), root);
}

// The Zod issues in an SDK error message, or undefined when it is not such a list.
function zodIssues(message) {
  if (typeof message !== "string" || !message.startsWith("[")) return undefined;
  try {
    const issues = JSON.parse(message);
    return Array.isArray(issues) && issues.every((i) => Array.isArray(i?.path) && typeof i.message === "string") ? issues : undefined;
  } catch {
    return undefined;
  }
}

/** One issue as a sentence about `request` (`{ method, params }`). */
export function issueText(issue, request) {
  const where = issue.path.join(".");
  const given = at(request, issue.path);
  if (issue.code === "invalid_type" && given === undefined) return `${where} is required`;
  if (issue.code === "invalid_type") return `${where} must be ${TYPE_NAMES[issue.expected] ?? issue.expected}, not ${kindOf(given)}`;
  if (issue.code === "invalid_value" && Array.isArray(issue.values)) {
    const values = issue.values.map(String);
    const near = typeof given === "string" ? nearest(given, values) : undefined;
    const hint = near !== undefined ? `; did you mean "${near}"?` : "";
    return `${where} is ${JSON.stringify(given)}${hint} It takes ${values.map((v) => `"${v}"`).join(", ")}`;
  }
  return `${where}: ${issue.message}`;
}

/**
 * The error to send instead of `error` (a JSON-RPC error object) answering `request`:
 * a -32603 carrying Zod issues becomes -32602 with one sentence per issue.
 */
export function clearerError(error, request) {
  if (error?.code !== INTERNAL_ERROR || request === undefined) return error;
  const issues = zodIssues(error.message);
  if (issues === undefined) return error;
  const text = issues.map((issue) => issueText(issue, request)).join("; ");
  return { code: INVALID_PARAMS, message: `Invalid params for ${request.method}: ${text}` };
}
