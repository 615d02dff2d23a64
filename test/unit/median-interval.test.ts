import { describe, expect, it } from 'vitest';
import { decided, medianInterval } from '../../bench/verdict.js';

/** P(B ≤ j) for B ~ Binomial(n, ½), exactly, from binomial coefficients in integers. */
function binomialCdf(n: number, j: number): number {
  let coefficient = 1n;
  let sum = 0n;
  for (let i = 0; i <= j; i++) {
    sum += coefficient;
    coefficient = (coefficient * BigInt(n - i)) / BigInt(i + 1);
  }
  return Number(sum) / 2 ** n;
}

describe('the benchmark’s interval of a median (bench/verdict.ts)', () => {
  it('takes the largest ranks whose two tails stay within 5 %, for every count of rounds up to 60', () => {
    for (let n = 1; n <= 60; n++) {
      // Observations 1…n in a shuffled order: the interval's ends are then their ranks.
      const xs = Array.from({ length: n }, (_, i) => i + 1).sort(
        (a, b) => ((a * 7919) % 13) - ((b * 7919) % 13),
      );
      let k = 1;
      while (k + 1 <= (n + 1) / 2 && binomialCdf(n, k) <= 0.025) k++;
      expect(medianInterval(xs), `n = ${n}`).toEqual({ low: k, high: n - k + 1 });
    }
  });

  it('gives the textbook ranks: all of 7 rounds, the 6th to 16th of 21', () => {
    expect(medianInterval([3, 1, 4, 1.5, 9, 2, 6])).toEqual({ low: 1, high: 9 });
    const ranks = medianInterval(Array.from({ length: 21 }, (_, i) => 21 - i));
    expect(ranks).toEqual({ low: 6, high: 16 });
  });

  it('settles a budget only when the interval lies on one side of it', () => {
    const atParity = [0.92, 0.97, 1.0, 1.01, 1.02, 1.03, 1.05];
    expect(decided(atParity, { min: 0.95 })).toBe(false);
    expect(decided(atParity, { min: 0.9 })).toBe(true);
    expect(decided([0.8, 0.85, 0.86, 0.87, 0.88, 0.9, 0.94], { min: 0.95 })).toBe(true);
    expect(decided([1.02, 1.03, 1.04, 1.06, 1.08, 1.09, 1.1], { max: 1.05 })).toBe(false);
    expect(decided([0.9, 0.92, 0.95, 0.96, 0.97, 0.99, 1.0], { max: 1.05 })).toBe(true);
    expect(decided([1.06, 1.07, 1.1, 1.1, 1.2, 1.2, 1.3], { max: 1.05 })).toBe(true);
  });

  it('refuses no observations', () => {
    expect(() => medianInterval([])).toThrow(/no observations/);
  });
});
