/**
 * The guard on what Claude writes to memory. Memories are long-lived and are
 * read back into later conversations, so a credential that slips in would keep
 * resurfacing. The guard spots likely secrets and, per the user's setting,
 * refuses the write, redacts the secret, or lets it through.
 */
import type { GuardMode } from '../../shared/settings';

export const REDACTED = '[REDACTED]';

export type SecretKind =
  | 'anthropic-api-key'
  | 'api-key'
  | 'aws-access-key'
  | 'aws-secret-key'
  | 'github-token'
  | 'slack-token'
  | 'private-key'
  | 'card-number'
  | 'us-ssn'
  | 'password';

/** A likely secret at `start`..`end` (UTF-16 offsets) of the scanned text. */
export interface SecretFinding {
  kind: SecretKind;
  start: number;
  end: number;
}

/** How each kind is named in messages: never the value itself. */
export const SECRET_KIND_NAMES: Readonly<Record<SecretKind, string>> = {
  'anthropic-api-key': 'an Anthropic API key',
  'api-key': 'an API key',
  'aws-access-key': 'an AWS access key',
  'aws-secret-key': 'an AWS secret access key',
  'github-token': 'a GitHub token',
  'slack-token': 'a Slack token',
  'private-key': 'a private key',
  'card-number': 'a payment card number',
  'us-ssn': 'a US Social Security number',
  password: 'a password',
};

interface Detector {
  kind: SecretKind;
  pattern: RegExp;
  /** Which capture group is the secret (0: the whole match). */
  group?: number;
  /** Keeps a match only if this agrees; `match` is the whole regex match (with its groups). */
  accept?: (value: string, match: RegExpMatchArray) => boolean;
}

const PLACEHOLDERS = new Set(['none', 'null', 'unknown', 'unset', 'n/a', 'na', 'tbd', 'todo', 'redacted', 'hidden', 'xxx', 'xxxx', '****']);

/**
 * Whether the value after `password:` looks like a credential rather than prose
 * ("API key: stored in 1Password"): it holds a digit or symbol, is long, is
 * quoted, or ends the line on its own.
 */
function isCredentialValue(value: string, match: RegExpMatchArray): boolean {
  const quoted = /^["'`]/.test(value);
  const v = value.replace(/^["'`]|["'`,;.]$/g, '');
  if (v.length < 4 || PLACEHOLDERS.has(v.toLowerCase()) || v === REDACTED || /^[*x•.\-_]+$/i.test(v) || /^[<[{(]/.test(v)) return false;
  const restOfLine = match[2] ?? '';
  return quoted || /[^A-Za-z]/.test(v) || v.length >= 16 || restOfLine.trim() === '';
}

/** The Luhn checksum every payment card number satisfies. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

// Issuer prefixes and lengths of the major card networks: with Luhn this keeps
// timestamps, phone numbers and order ids from reading as cards.
function isCardNumber(raw: string): boolean {
  const digits = raw.replace(/[ -]/g, '');
  const n = digits.length;
  const p2 = Number(digits.slice(0, 2));
  const p4 = Number(digits.slice(0, 4));
  const network =
    (digits.startsWith('4') && (n === 13 || n === 16 || n === 19)) ||
    (((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) && n === 16) ||
    ((p2 === 34 || p2 === 37) && n === 15) ||
    ((digits.startsWith('6011') || digits.startsWith('65') || (p4 >= 6440 && p4 <= 6499)) && n >= 16 && n <= 19) ||
    ((p2 === 36 || p2 === 38 || (p4 >= 3000 && p4 <= 3059)) && n === 14) ||
    (p4 >= 3528 && p4 <= 3589 && n >= 16 && n <= 19) ||
    (p2 === 62 && n >= 16 && n <= 19);
  return network && luhnValid(digits);
}

const DETECTORS: readonly Detector[] = [
  { kind: 'private-key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g },
  { kind: 'anthropic-api-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { kind: 'api-key', pattern: /\bsk-(?:proj-|live-|test-)?[A-Za-z0-9_-]{32,}/g },
  { kind: 'api-key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: 'api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'aws-access-key', pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}\b/g },
  { kind: 'aws-secret-key', pattern: /\baws_?secret_?(?:access_?)?key\b["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b/gi, group: 1 },
  { kind: 'github-token', pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b/g },
  { kind: 'github-token', pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/g },
  { kind: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: 'card-number', pattern: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d])/g, accept: isCardNumber },
  { kind: 'us-ssn', pattern: /(?<![\d-])(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}(?![\d-])/g },
  {
    kind: 'password',
    pattern:
      /(?<![A-Za-z0-9])(?:password|passwd|pwd|passcode|passphrase|pass phrase|api[ _-]?key|secret[ _-]?key|client[ _-]?secret|access[ _-]?token|auth[ _-]?token|bearer[ _-]?token|private[ _-]?key)\b["']?\s*[:=]\s*("[^"\n]+"|'[^'\n]+'|`[^`\n]+`|[^\s]+)(?=([^\n]*))/gi,
    group: 1,
    accept: isCredentialValue,
  },
];

/** Every likely secret in `text`, in order, without overlaps. */
export function findSecrets(text: string): SecretFinding[] {
  const found: SecretFinding[] = [];
  for (const detector of DETECTORS) {
    for (const match of text.matchAll(detector.pattern)) {
      const value = match[detector.group ?? 0];
      if (value === undefined || (detector.accept && !detector.accept(value, match))) continue;
      const offset = detector.group ? match[0].lastIndexOf(value) : 0;
      const start = (match.index ?? 0) + offset;
      found.push({ kind: detector.kind, start, end: start + value.length });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretFinding[] = [];
  for (const f of found) {
    const last = merged[merged.length - 1];
    if (last && f.start < last.end) {
      last.end = Math.max(last.end, f.end);
      continue;
    }
    merged.push({ ...f });
  }
  return merged;
}

/** A write the guard refused. Its message names the kinds of secret, never their values. */
export class SecretGuardError extends Error {
  constructor(readonly kinds: SecretKind[]) {
    super(
      `No change was made: the text looks like it contains ${describeKinds(kinds)}. ` +
        'Secrets must not be stored in memory. Leave the value out (you can note that it exists and where the user keeps it) and try again.',
    );
    this.name = 'SecretGuardError';
  }
}

function describeKinds(kinds: readonly SecretKind[]): string {
  const names = [...new Set(kinds)].map((k) => SECRET_KIND_NAMES[k]);
  return names.length <= 1 ? (names[0] ?? 'a secret') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

export interface GuardResult {
  /** The text to store. */
  text: string;
  /** Secrets replaced by `[REDACTED]` (redact mode only). */
  redacted: SecretFinding[];
}

/**
 * Applies the guard to text Claude wants to store: `block` throws
 * `SecretGuardError`, `redact` replaces each secret with `[REDACTED]`, `allow`
 * passes the text through untouched.
 */
export function guardText(text: string, mode: GuardMode): GuardResult {
  if (mode === 'allow') return { text, redacted: [] };
  const findings = findSecrets(text);
  if (findings.length === 0) return { text, redacted: [] };
  if (mode === 'block') throw new SecretGuardError(findings.map((f) => f.kind));
  let out = '';
  let at = 0;
  for (const f of findings) {
    out += text.slice(at, f.start) + REDACTED;
    at = f.end;
  }
  return { text: out + text.slice(at), redacted: findings };
}

/** The note added to a result when redaction changed what was stored. */
export function redactionNote(redacted: readonly SecretFinding[]): string {
  if (redacted.length === 0) return '';
  const count = redacted.length === 1 ? '1 likely secret' : `${redacted.length} likely secrets`;
  return `\nNote: ${count} (${describeKinds(redacted.map((r) => r.kind))}) ${redacted.length === 1 ? 'was' : 'were'} replaced with ${REDACTED} before saving; the stored text differs from what you sent.`;
}

/**
 * Checks a path Claude wants to create: a secret in a file name cannot be
 * redacted, so it is refused in both `block` and `redact` modes.
 */
export function guardPath(path: string, mode: GuardMode): void {
  if (mode === 'allow') return;
  const findings = findSecrets(path.replace(/\//g, '\n'));
  if (findings.length > 0) throw new SecretGuardError(findings.map((f) => f.kind));
}
