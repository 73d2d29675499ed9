// "Did you mean" for misspelt names: the valid name nearest to a wrong one (edit distance),
// or the list of valid names when none is close.

function distance(a, b) {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return row[b.length];
}

/** The name in `valid` nearest to `wrong` (case-insensitive), if it is close enough to be a typo. */
export function nearest(wrong, valid) {
  const lower = String(wrong).toLowerCase();
  let best;
  let bestDistance = Infinity;
  for (const name of valid) {
    const d = distance(lower, name.toLowerCase());
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  if (bestDistance <= Math.max(2, Math.floor(lower.length / 3))) return best;
  // A longer spelling of a short name (`enviroment` for `env`) is a typo too.
  return valid.find((name) => name.length >= 3 && (lower.startsWith(name.toLowerCase()) || name.toLowerCase().startsWith(lower)));
}

/** `did you mean X?` or `expected one of: a, b, c`. */
export function suggestion(wrong, valid) {
  const near = nearest(wrong, valid);
  return near !== undefined ? `did you mean ${near}?` : `expected one of: ${valid.join(", ")}`;
}
