// An approval round trip beside the calls it replaces, per isolation mode:
// `node bench/approval.mjs [rounds] [runs]` prints median µs per run for
//   park     exec until `waiting`: a tool that calls ctx.suspend (the run parks at once)
//   resume   resolveCall + wait until `completed`
//   answered exec of the same cell whose tool answers at once (the peer: no parking)
//   yield    exec that yields + wait (the other way a run parks without a deadline)
// with the ratio of park + resume to answered (bench/README.md, Approvals).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { CodeModeSession } = require('../index.js');
const ROUNDS = Number(process.argv[2]) || 5;
const RUNS = Number(process.argv[3]) || 200;
const MODES = (process.env.APPROVAL_MODES ?? 'thread,process').split(',');
const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
const CODE = 'const a = await approve({ n: 1 }); return a.ok';
const check = (r, status) => {
  if (r.status !== status) throw new Error(JSON.stringify(r).slice(0, 300));
  return r;
};

async function round(isolation) {
  const tools = (execute) => [{ name: 'approve', description: 'approve', parameters: { type: 'object' }, execute }];
  const external = new CodeModeSession({ sessionId: `a-${isolation}`, isolation, tools: tools((input, ctx) => ctx.suspend({ ask: input })), limits: { timeoutMs: 60_000 } });
  const answered = new CodeModeSession({ sessionId: `b-${isolation}`, isolation, tools: tools(() => ({ ok: true })), limits: { timeoutMs: 60_000 } });
  const yielding = new CodeModeSession({ sessionId: `c-${isolation}`, isolation, limits: { timeoutMs: 60_000 } });
  const park = [];
  const resume = [];
  const direct = [];
  const yields = [];
  // Warm both sessions' VMs and sandbox processes first.
  check(await answered.exec({ code: CODE }), 'completed');
  for (let i = 0; i < RUNS; i++) {
    let t = process.hrtime.bigint();
    const first = check(await external.exec({ code: CODE }), 'waiting');
    park.push(Number(process.hrtime.bigint() - t) / 1e3);
    t = process.hrtime.bigint();
    await external.resolveCall({ runId: first.runId, callId: first.pendingToolCalls[0].id, value: { ok: true } });
    check(await external.wait({ runId: first.runId }), 'completed');
    resume.push(Number(process.hrtime.bigint() - t) / 1e3);
    t = process.hrtime.bigint();
    check(await answered.exec({ code: CODE }), 'completed');
    direct.push(Number(process.hrtime.bigint() - t) / 1e3);
    t = process.hrtime.bigint();
    const y = check(await yielding.exec({ code: 'await yield_control(); return true' }), 'waiting');
    check(await yielding.wait({ runId: y.runId }), 'completed');
    yields.push(Number(process.hrtime.bigint() - t) / 1e3);
  }
  await Promise.all([external.close(), answered.close(), yielding.close()]);
  return { park: median(park), resume: median(resume), answered: median(direct), yield: median(yields) };
}

const rows = [];
for (const mode of MODES) {
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await round(mode));
  const pick = (key) => median(rounds.map((x) => x[key]));
  const row = { mode, park: pick('park'), resume: pick('resume'), answered: pick('answered'), yield: pick('yield') };
  row.ratio = (row.park + row.resume) / row.answered;
  rows.push(row);
}
const f = (x) => x.toFixed(0).padStart(8);
console.log(`rounds ${ROUNDS} x runs ${RUNS}, medians in µs per run`);
console.log('mode      park   resume answered  yield+wait  (park+resume)/answered');
for (const r of rows) console.log(`${r.mode.padEnd(7)}${f(r.park)} ${f(r.resume)} ${f(r.answered)} ${f(r.yield)}    ${r.ratio.toFixed(2)}`);
