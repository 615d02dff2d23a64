/**
 * When a row's rounds are enough to judge it against its budget.
 *
 * Each round's ratio compares two loads a few seconds apart on a shared host whose speed drifts, so
 * one round of a query the database limits often reads 10 % or more either side of the median. With a
 * fixed seven rounds, a row at parity then falls under 0.95 now and then by chance alone, and a run of
 * some sixty rows rarely has none under it (docs/benchmarks.md, Method). So a row is loaded until the
 * median's confidence interval lies on one side of its budget, or until the rounds run out: the
 * verdict stays the median against the budget, read from as many rounds as it takes to be more than
 * chance.
 */

/**
 * The distribution-free interval of a median: the k-th lowest and k-th highest of n observations cover
 * the median with probability 1 − 2·P(B ≤ k − 1), B ~ Binomial(n, ½). No assumption on the rounds'
 * distribution (a drifting host's is not normal). Written here because it is a dozen lines of the
 * binomial law, not worth a statistics package. Below six observations no k reaches 95 %: the interval
 * is then the lowest and highest, with less confidence than asked.
 */
export function medianInterval(xs: readonly number[], confidence = 0.95): { low: number; high: number } {
  const sorted = [...xs].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) throw new Error('medianInterval: no observations');
  const tail = (1 - confidence) / 2;
  // Ranks k and n − k + 1 cover the median with 1 − 2·P(B ≤ k − 1): the largest k whose tail fits.
  let term = 2 ** -n; // P(B = 0)
  let cumulative = term; // P(B ≤ k − 1)
  let k = 1;
  while (k + 1 <= (n + 1) / 2) {
    term = (term * (n - k + 1)) / k; // P(B = k)
    if (cumulative + term > tail) break;
    cumulative += term;
    k++;
  }
  return { low: sorted[k - 1] as number, high: sorted[n - k] as number };
}

/** A budget on the rounds' ratios: at least `min` (req/s), or at most `max` (CPU time per request). */
export type Budget = { min: number } | { max: number };

/** Whether the rounds settle the budget either way: the median's interval lies wholly on one side. */
export function decided(ratios: readonly number[], budget: Budget): boolean {
  const { low, high } = medianInterval(ratios);
  return 'min' in budget ? low >= budget.min || high < budget.min : high <= budget.max || low > budget.max;
}
