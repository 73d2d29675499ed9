// Installs isolated-vm on demand into bench/.peers/ (gitignored) and builds it with node-gyp
// against this Node's own headers, so `npm ci` for the project never runs its install script.
// Usage: node bench/peers/ensure-isolated-vm.mjs → prints { ok, version | error } as JSON.
// A failure is reported, never thrown: the bench then shows isolated-vm as "missing".
import { existsSync, mkdirSync, writeFileSync, appendFileSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const IVM_VERSION = '5.0.4'; // the last line that supports Node 20
const PEERS = fileURLToPath(new URL('../.peers/', import.meta.url));
const PKG = path.join(PEERS, 'node_modules', 'isolated-vm');
const LOG = path.join(PEERS, 'install.log');

function run(cmd, args, cwd) {
  appendFileSync(LOG, `\n$ ${cmd} ${args.join(' ')}   (in ${cwd})\n`);
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' } });
  appendFileSync(LOG, (r.stdout ?? '') + (r.stderr ?? ''));
  if (r.error || r.status !== 0) throw new Error(`${cmd} ${args[0]} failed (${r.error?.message ?? `exit ${r.status}`}); see ${LOG}`);
}

export function ensureIsolatedVm() {
  try {
    mkdirSync(PEERS, { recursive: true });
    const binary = path.join(PKG, 'out', 'isolated_vm.node');
    const installed = existsSync(path.join(PKG, 'package.json')) && JSON.parse(readFileSync(path.join(PKG, 'package.json'), 'utf8')).version;
    if (installed === IVM_VERSION && existsSync(binary)) return { ok: true, version: installed, built: false };
    writeFileSync(LOG, `isolated-vm ${IVM_VERSION} install, ${new Date().toISOString()}\n`);
    if (!existsSync(path.join(PEERS, 'package.json'))) writeFileSync(path.join(PEERS, 'package.json'), '{ "private": true }\n');
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    // --ignore-scripts: fetch only; the build below uses the local headers instead of downloading them
    if (installed !== IVM_VERSION) run(npm, ['install', '--prefix', PEERS, '--no-save', '--ignore-scripts', `isolated-vm@${IVM_VERSION}`], PEERS);
    const nodeDir = path.dirname(path.dirname(process.execPath));
    const npmGyp = path.join(nodeDir, 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    const gyp = existsSync(npmGyp) ? [process.execPath, [npmGyp]] : ['npx', ['--yes', 'node-gyp']];
    const haveHeaders = existsSync(path.join(nodeDir, 'include', 'node', 'node.h'));
    run(gyp[0], [...gyp[1], 'rebuild', '--release', '-j', 'max', ...(haveHeaders ? [`--nodedir=${nodeDir}`] : [])], PKG);
    if (!existsSync(binary)) throw new Error(`build finished but ${binary} is missing; see ${LOG}`);
    return { ok: true, version: IVM_VERSION, built: true };
  } catch (err) {
    return { ok: false, error: String(err?.message ?? err) };
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(JSON.stringify(ensureIsolatedVm()) + '\n');
