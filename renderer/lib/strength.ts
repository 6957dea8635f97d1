/**
 * A rough passphrase strength estimate: bits from length and character
 * variety, minus obvious patterns. Used to refuse weak passphrases, not as a
 * promise of strength.
 */
const COMMON = ['password', 'passwort', 'qwerty', 'letmein', 'welcome', 'admin', 'iloveyou', '123456', 'abc123', 'monkey', 'dragon', 'mnemo'];

export interface Strength {
  bits: number;
  label: 'too weak' | 'weak' | 'good' | 'strong';
  ok: boolean;
  hint: string;
}

export function estimate(pass: string): Strength {
  let pool = 0;
  if (/[a-z]/.test(pass)) pool += 26;
  if (/[A-Z]/.test(pass)) pool += 26;
  if (/[0-9]/.test(pass)) pool += 10;
  if (/[^a-zA-Z0-9]/.test(pass)) pool += 33;
  const unique = new Set(pass).size;
  // Repeats and short alphabets count for less than their length suggests.
  const effectiveLength = Math.min(pass.length, unique * 2.5);
  let bits = pool ? effectiveLength * Math.log2(pool) : 0;
  const lower = pass.toLowerCase();
  if (COMMON.some((w) => lower.includes(w))) bits -= 25;
  if (/(.)\1{2,}/.test(pass)) bits -= 10;
  if (/(0123|1234|2345|3456|4567|5678|6789|abcd|bcde|cdef)/i.test(pass)) bits -= 10;
  bits = Math.max(0, Math.round(bits));
  const ok = pass.length >= 12 && bits >= 60;
  const label = !ok ? (bits < 40 ? 'too weak' : 'weak') : bits < 90 ? 'good' : 'strong';
  const hint = pass.length < 12 ? 'Use at least 12 characters — several unrelated words work well.' : !ok ? 'Add more words, or mix in digits and symbols.' : 'OK.';
  return { bits, label, ok, hint };
}
