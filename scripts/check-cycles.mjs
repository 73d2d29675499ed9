// Fails when modules of the Rust crate import each other in a cycle: folders are the
// architecture and imports flow one way. A module's edges are the `crate::`, `super::` and
// `self::` paths in its code outside `#[cfg(test)] mod … { }` blocks.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const root = process.argv[2] ?? 'src';

function rustFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return rustFiles(path);
    return entry.name.endsWith('.rs') ? [path] : [];
  });
}

/** `src/run/cell.rs` → `run::cell`; `mod.rs`/`lib.rs` name their folder. */
function moduleOf(path) {
  const parts = relative(root, path).slice(0, -3).split(sep);
  if (['mod', 'lib', 'main'].includes(parts.at(-1))) parts.pop();
  return parts.join('::');
}

function withoutTestModules(text) {
  const lines = text.split('\n');
  const kept = [];
  for (let i = 0; i < lines.length; i++) {
    const opensTests = lines[i].trim().startsWith('#[cfg(test)]') && /^\s*(pub\s+)?mod\s+\w+\s*\{/.test(lines[i + 1] ?? '');
    if (!opensTests) {
      kept.push(lines[i]);
      continue;
    }
    let depth = 0;
    for (i += 1; i < lines.length; i++) {
      depth += (lines[i].match(/\{/g) ?? []).length - (lines[i].match(/\}/g) ?? []).length;
      if (depth <= 0 && lines[i].includes('}')) break;
    }
  }
  return kept.join('\n');
}

const modules = new Map(rustFiles(root).map((path) => [moduleOf(path), path]));

/** The longest known module a path names, relative to `from`. */
function resolve(from, path) {
  let base = from === '' ? [] : from.split('::');
  let parts = path.split('::');
  if (parts[0] === 'crate') [base, parts] = [[], parts.slice(1)];
  else if (parts[0] === 'self') parts = parts.slice(1);
  else while (parts[0] === 'super') [base, parts] = [base.slice(0, -1), parts.slice(1)];
  const candidate = [...base, ...parts.filter((p) => /^[a-z_][a-z0-9_]*$/.test(p))];
  for (let n = candidate.length; n > 0; n--) {
    const name = candidate.slice(0, n).join('::');
    if (modules.has(name)) return name;
  }
  return null;
}

const edges = new Map();
for (const [name, path] of modules) {
  const code = withoutTestModules(readFileSync(path, 'utf8'));
  const targets = new Set();
  const add = (target) => {
    // A module's own ancestors (its mod.rs chain) are not dependencies.
    if (target && target !== name && !(name + '::').startsWith(target + '::')) targets.add(target);
  };
  for (const [ref] of code.matchAll(/\b(?:crate|super|self)(?:::\w+)+/g)) add(resolve(name, ref));
  for (const [, prefix, group] of code.matchAll(/\buse\s+((?:crate|super|self)(?:::\w+)*)::\{([^;]*)\}/gs)) {
    for (const [item] of group.matchAll(/\b[a-z_][a-z0-9_]*\b/g)) add(resolve(name, `${prefix}::${item}`));
  }
  edges.set(name, targets);
}

// Tarjan's strongly connected components; any component of two or more is a cycle.
let counter = 0;
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
function connect(v) {
  index.set(v, counter);
  low.set(v, counter++);
  stack.push(v);
  onStack.add(v);
  for (const w of edges.get(v)) {
    if (!index.has(w)) {
      connect(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) {
      low.set(v, Math.min(low.get(v), index.get(w)));
    }
  }
  if (low.get(v) === index.get(v)) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component.sort());
  }
}
for (const v of edges.keys()) if (!index.has(v)) connect(v);

if (cycles.length > 0) {
  for (const cycle of cycles) console.error(`import cycle: ${cycle.join(', ')}`);
  process.exit(1);
}
console.log(`no import cycles among ${modules.size} modules of ${root}/`);
