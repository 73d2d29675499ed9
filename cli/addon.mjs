// The addon and the package version, loaded once for the command's modules.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
export const native = require("../index.js");
export const VERSION = require("../package.json").version;
