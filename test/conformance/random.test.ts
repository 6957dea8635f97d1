/**
 * Seeded random sequences of a few hundred calls each, run against the
 * reference and against ours; every answer must match (directory sizes
 * aside). The generator steers clear of the reference's known bugs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstDifference, openPair, runBoth, type Pair, type Step } from './harness';
import { nextCall, prng } from './random';

let pair: Pair;
beforeAll(async () => {
  pair = await openPair();
});
afterAll(async () => {
  await pair.close();
});

const SEEDS = [1, 2, 3, 4, 20261122];
const CALLS = 300;

describe('seeded random sequences give the same answers as the reference', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: ${CALLS} calls`, async () => {
      await pair.reset();
      const rng = prng(seed);
      const steps: Step[] = [];
      for (let i = 0; i < CALLS; i++) {
        steps.push(...(await runBoth(pair, [nextCall(rng, pair.referenceRoot)])));
      }
      expect(firstDifference(steps)).toBeUndefined();
      // A sequence that only ever failed would prove little: most commands must have succeeded somewhere.
      const succeeded = new Set(steps.filter((s) => !s.ours.is_error).map((s) => (s.input as { command: string }).command));
      expect([...succeeded].sort()).toEqual(['create', 'delete', 'insert', 'rename', 'str_replace', 'view']);
    });
  }
});
