/** The strength estimate judges passphrases as a dictionary attack would, not by counting character classes. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { assessPassphrase, weakPassphraseMessage } from '../../../electron/core/passphrase-strength';

describe('assessPassphrase', () => {
  it.each(['Football2024!!', 'Summer2024!Summer', 'password123456', 'qwertyuiop1234', 'Password1234!', 'iloveyou2024!!', 'mnemomnemomnemo'])(
    '%s rates weak, though it mixes classes or is long',
    async (p) => {
      const a = await assessPassphrase(p);
      expect(a.acceptable).toBe(false);
      expect(a.score).toBeLessThanOrEqual(3);
      expect(a.warning.length).toBeGreaterThan(10);
      expect(a.suggestions.length).toBeGreaterThan(0);
    },
  );

  it.each(['amber-kettle-orbit-sonnet-42', 'velvet anchor tulip gravel', 'violet-harbour-compass-tundra-88'])('four random words (%s) rate strong', async (p) => {
    expect(await assessPassphrase(p)).toMatchObject({ score: 4, acceptable: true });
  });

  it('names the weakness: a common password, a date, a short passphrase', async () => {
    expect((await assessPassphrase('password123456')).warning).toMatch(/commonly used password/);
    expect((await assessPassphrase('14.03.1987!!')).warning).toMatch(/[Dd]ates/);
    expect((await assessPassphrase('Xq7#vL2p')).warning).toMatch(/shorter than 12 characters/);
  });

  it('counts words the attacker may know about the user as guessable', async () => {
    const p = 'XanthippeQuorvald88';
    expect((await assessPassphrase(p)).acceptable).toBe(true);
    expect((await assessPassphrase(p, ['xanthippe', 'quorvald'])).acceptable).toBe(false);
  });

  it('judges a very long passphrase without refusing it for its length', async () => {
    expect((await assessPassphrase('tangerine harbour violin meadow '.repeat(40))).acceptable).toBe(true);
  });

  it('judges a long passphrase by its first 64 characters, so a weak start is not hidden by a long tail', async () => {
    expect((await assessPassphrase('password'.repeat(8) + 'tangerine harbour violin meadow')).acceptable).toBe(false);
    const random = Array.from(randomBytes(1024), (b) => String.fromCharCode(33 + (b % 90))).join('');
    expect((await assessPassphrase(random)).acceptable).toBe(true);
  });

  it('refusal message says what is weak and what to do', async () => {
    const message = weakPassphraseMessage(await assessPassphrase('Football2024!!'));
    expect(message).toMatch(/too weak/);
    expect(message).toMatch(/word/i);
    expect(message).not.toContain('Football2024!!');
  });
});
