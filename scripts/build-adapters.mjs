// Generates the CommonJS entries of the adapters and the run stores from their ESM sources,
// so one source serves `import` and `require`: adapters/X.mjs -> adapters/X.cjs (TypeScript's
// transpileModule, `./shared.mjs` read as `./shared.cjs`) and adapters/X.d.mts ->
// adapters/X.d.cts (the same declarations, read in CommonJS mode under NodeNext).
// The outputs are committed; `--check` exits 1 naming any that is out of date.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dirs = ['adapters', 'stores'].map((name) => path.join(root, name));
const check = process.argv.includes('--check');

function header(source) {
  return `// Generated from ${source} by scripts/build-adapters.mjs: edit ${source}, then run\n// \`node scripts/build-adapters.mjs\`.\n`;
}

function commonJs(file, text) {
  const esm = text.replaceAll('"./shared.mjs"', '"./shared.cjs"');
  const { outputText } = ts.transpileModule(esm, {
    fileName: file.replace(/\.mjs$/, '.ts'),
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, removeComments: false },
  });
  return header(file) + outputText;
}

const outputs = new Map();
for (const dir of dirs) {
  for (const file of fs.readdirSync(dir).sort()) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    const target = (name) => path.join(dir, name);
    if (file.endsWith('.d.mts')) outputs.set(target(file.replace(/\.d\.mts$/, '.d.cts')), header(file) + text);
    else if (file.endsWith('.mjs')) outputs.set(target(file.replace(/\.mjs$/, '.cjs')), commonJs(file, text));
  }
}

const stale = [];
for (const [target, text] of outputs) {
  const file = path.relative(root, target);
  const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null;
  if (current === text) continue;
  if (check) stale.push(file);
  else fs.writeFileSync(target, text);
}
if (stale.length > 0) {
  console.error(`out of date (run node scripts/build-adapters.mjs): ${stale.join(', ')}`);
  process.exit(1);
}
