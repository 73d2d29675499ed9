// ESM entry of codemode-native. The native addon is CommonJS (napi-rs's loader in
// index.js picks the platform binary); this file re-exports it so that
// `import { CodeModeSession } from "codemode-native"` works as well as `require`.
// Named exports come from index.js's static `module.exports.X =` lines, which Node's
// CommonJS export detection reads, so new #[napi] exports appear here without edits.
export * from './index.js';
export { default } from './index.js';
