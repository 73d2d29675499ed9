// Runs the floor loop: `await runFloor(calls)` resolves with wall µs per call.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// Loaded as a Node addon (a `.so` under any other name would be read as JavaScript).
const addon = { exports: {} };
process.dlopen(addon, path.join(here, 'target/release/libcodemode_call_floor.so'));
const { floorStart, floorStartUv, floorAnswer, floorStartSock, floorSockAnswer } = addon.exports;

// `how`: 'tsfn' (a threadsafe function wakes Node), 'uv' (a libuv async handle of the
// addon's own), or 'sock' (each call a frame over a socketpair Node's loop polls).
export function runFloor(calls, tool = async (input) => ({ value: input.value + 1 }), how = 'tsfn') {
  const start = { tsfn: floorStart, uv: floorStartUv, sock: floorStartSock }[how];
  const answer = how === 'sock' ? floorSockAnswer : floorAnswer;
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    start((index) => {
      if (index < 0) {
        resolve(Number(process.hrtime.bigint() - t0) / 1000 / calls);
        return;
      }
      tool(JSON.parse('{"value":' + index + '}')).then((value) => answer(JSON.stringify(value)));
    }, calls);
  });
}
