// A deterministic TypeScript cell of about `lines` lines, the kind a model writes in code mode:
// interfaces, type aliases, generics, annotated helpers, `as` / `satisfies`, optional chaining,
// awaited tool calls, and a top-level `return`.
export function makeTsCell(lines = 200) {
  const head = [
    'interface Contact { id: string; name: string; email?: string; tags: string[]; score: number }',
    'interface Page<T> { items: T[]; cursor?: string | null; total: number }',
    'type Status = "open" | "closed" | "pending";',
    'type ById<T extends { id: string }> = Record<string, T>;',
    'const index = <T extends { id: string }>(xs: readonly T[]): ById<T> => Object.fromEntries(xs.map((x) => [x.id, x])) as ById<T>;',
    'function clamp(n: number, lo: number = 0, hi: number = 100): number { return Math.min(hi, Math.max(lo, n)); }',
    'const config = { limit: 25, retries: 3, status: "open" as Status } satisfies { limit: number; retries: number; status: Status };',
    'let seen: Set<string> = new Set<string>();',
  ];
  const body = [];
  for (let i = 0; head.length + body.length + 8 + 3 <= lines; i++) {
    body.push(
      `interface Row${i} extends Contact { rank${i}: number; note${i}?: string }`,
      `async function fetch${i}(cursor: string | null, limit: number = config.limit): Promise<Page<Row${i}>> {`,
      `  const rows: Row${i}[] = Array.from({ length: limit }, (_, k): Row${i} => ({ id: \`c${i}-\${k}\`, name: "n" + k, tags: ["t${i}"], score: k * ${i + 1}, rank${i}: k }));`,
      `  return { items: rows, cursor: cursor ?? null, total: rows.length } as Page<Row${i}>;`,
      '}',
      `const page${i}: Page<Row${i}> = await fetch${i}(null);`,
      `const best${i} = page${i}.items.filter((r: Row${i}) => r.score > ${i} && !seen.has(r.id)).map((r) => ({ ...r, score: clamp(r.score) }));`,
      `for (const r of best${i}) { seen.add(r.id); if ((r.note${i} as string | undefined)?.length) break; }`,
    );
  }
  const tail = ['const byId = index(Array.from(seen, (id: string) => ({ id })));', 'const summary: { seen: number; keys: number } = { seen: seen.size, keys: Object.keys(byId).length };', 'return summary;'];
  while (head.length + body.length + 3 < lines) body.push(`// step ${body.length}: keep the page cursor for the next call`);
  return [...head, ...body, ...tail].join('\n');
}
