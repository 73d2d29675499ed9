// Types of index.mjs, the ESM entry: the declarations napi generates in index.d.ts (read as
// CommonJS beside index.js), re-exported so `import` under NodeNext/Node16 sees an ES module.
export * from "./index.js";
import * as binding from "./index.js";
export default binding;
