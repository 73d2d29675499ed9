// Runs the floor loop: `await runFloor(calls)` resolves with wall µs per call.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// Loaded as a Node addon (a `.so` under any other name would be read as JavaScript).
const addon = { exports: {} };
process.dlopen(addon, path.join(here, 'target/release/libcodemode_call_floor.so'));
const { floorStart, floorStartUv, floorAnswer } = addon.exports;

// `uv`: wake Node with a libuv async handle of the addon's own instead of a threadsafe function.
export function runFloor(calls, tool = async (input) => ({ value: input.value + 1 }), uv = false) {
  return new Promise((resolve) => {
    const start = process.hrtime.bigint();
    (uv ? floorStartUv : floorStart)((index) => {
      if (index < 0) {
        resolve(Number(process.hrtime.bigint() - start) / 1000 / calls);
        return;
      }
      tool(JSON.parse('{"value":' + index + '}')).then((value) => floorAnswer(JSON.stringify(value)));
    }, calls);
  });
}
