/**
 * Our memory tool against the SDK's reference, answer for answer, on
 * hand-written sequences that exercise every command and every error the
 * reference gets right. Only directory sizes are normalised.
 */
import { describe, expect, it } from 'vitest';
import { sharedFixture } from '../unit/fixture';
import { firstDifference, openPair, runBoth } from './harness';
import { SEQUENCES, view } from './sequences';

const pair = sharedFixture(openPair, (f) => f.reset());

describe('hand-written sequences give the same answers as the reference', () => {
  for (const [name, inputs] of Object.entries(SEQUENCES)) {
    it(name, async () => {
      const steps = await runBoth(pair(), inputs);
      expect(firstDifference(steps)).toBeUndefined();
      // The sequence must really exercise both outcomes it was written for, not only errors.
      expect(steps.some((s) => !s.ours.is_error)).toBe(true);
    });
  }

  it('error answers carry the Error: prefix and is_error, exactly as the tool runner sends them', async () => {
    const [step] = await runBoth(pair(), [view('/memories/missing.md')]);
    expect(step?.ours).toEqual({ content: 'Error: The path /memories/missing.md does not exist. Please provide a valid path.', is_error: true });
  });
});
