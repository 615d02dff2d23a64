/**
 * "Did you mean …": the names a start-up message offers for a mistyped table or column.
 */
/** Names, at most 30 of them. */
export function listed(names: readonly string[]): string {
  return names.length <= 30
    ? names.join(', ')
    : `${names.slice(0, 30).join(', ')} … (${names.length} in all)`;
}

/**
 * Up to three of `candidates` that look like a mistyped `name`: the same but for case, a few edits
 * away (a third of its length), the same words in another order or number (`user_roles` and
 * `role_user`), or one inside the other (`dept` and `dept_id`).
 */
export function closest(name: string, candidates: readonly string[]): string[] {
  const wanted = name.toLowerCase();
  const scored: { candidate: string; score: number }[] = [];
  for (const candidate of candidates) {
    const other = candidate.toLowerCase();
    const bare = other.slice(other.lastIndexOf('.') + 1);
    const edits = Math.min(editDistance(wanted, other), editDistance(wanted, bare));
    const distance = words(wanted) === words(bare) ? Math.min(edits, 1) : edits;
    const inside =
      Math.min(wanted.length, bare.length) >= 3 && (bare.includes(wanted) || wanted.includes(bare));
    if (distance <= Math.max(1, Math.floor(wanted.length / 3)) || inside)
      scored.push({ candidate, score: distance });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
    .slice(0, 3)
    .map(({ candidate }) => candidate);
}

/** The words of a snake_case or dotted name, singular, in order: `user_roles` → `role user`. */
function words(name: string): string {
  return name
    .split(/[^a-z0-9]+/)
    .map((word) => word.replace(/s$/, ''))
    .sort()
    .join(' ');
}

/** Levenshtein distance, with a swap of two neighbours counting as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] as number;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  return at(a.length, b.length);
}
