// The Python MCP SDK client for the cli suites: a venv under the OS temp dir with `mcp`
// pinned, made on first use (pip needs the network once) and reused after, offline.
// Not a test file itself.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const PY_MCP_VERSION = '2.3.0';
const VENV = path.join(tmpdir(), `codemode-native-py-mcp-${PY_MCP_VERSION}`);
const PYTHON = path.join(VENV, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');

/** Why the Python client cannot run here (no python3, or no venv module), or undefined. */
export function pythonMissing() {
  const probe = spawnSync('python3', ['-c', 'import venv, ensurepip'], { encoding: 'utf8' });
  if (probe.error !== undefined) return 'python3 is not installed';
  if (probe.status !== 0) return `python3 has no venv/ensurepip module: ${probe.stderr.trim()}`;
  return undefined;
}

/** The venv's python, with `mcp` installed (installed now if it is not yet). */
export function pythonWithMcp() {
  const installed = () => existsSync(PYTHON) && spawnSync(PYTHON, ['-c', `import mcp.client.client, importlib.metadata as m; assert m.version("mcp") == "${PY_MCP_VERSION}"`]).status === 0;
  if (!installed()) {
    execFileSync('python3', ['-m', 'venv', '--clear', VENV], { stdio: 'inherit' });
    execFileSync(PYTHON, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `mcp==${PY_MCP_VERSION}`], { stdio: 'inherit', timeout: 600_000 });
    if (!installed()) throw new Error(`mcp ${PY_MCP_VERSION} did not install into ${VENV}`);
  }
  return PYTHON;
}
