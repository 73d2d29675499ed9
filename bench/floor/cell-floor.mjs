// The cell floor (bench/floor/src/cell.rs): `await runCellFloor(cells, fresh)` resolves with
// wall µs per sequential cell, each one frame from the Node thread to a child process that
// evaluates it in a VM made ahead, and one frame back read by Node's loop.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const addon = { exports: {} };
process.dlopen(addon, path.join(here, 'target/release/libcodemode_call_floor.so'));
const { floorCellStart, floorCellRun } = addon.exports;
const CHILD = path.join(here, 'target/release/cell_child');

// One child per mode; each answer settles the oldest cell waiting.
const children = new Map();
function child(fresh) {
  if (!children.has(fresh)) {
    const waiting = [];
    // Two children would share the addon's one socket slot: one mode per process.
    if (children.size) throw new Error('cell floor: one mode per process');
    floorCellStart(CHILD, fresh, (text) => waiting.shift()(JSON.parse(text)));
    children.set(fresh, waiting);
  }
  return children.get(fresh);
}

export async function runCellFloor(cells, fresh = false) {
  const waiting = child(fresh);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < cells; i++) {
    const value = await new Promise((resolve) => {
      waiting.push(resolve);
      floorCellRun('1 + 1');
    });
    if (value !== 2) throw new Error(`cell floor answered ${value}`);
  }
  return Number(process.hrtime.bigint() - t0) / 1000 / cells;
}
