/**
 * The secret guard: what it recognises, what it leaves alone, and how each
 * mode (block, redact, allow) changes what the memory tool stores and says.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GuardMode } from '../../../electron/shared/settings';
import { findSecrets, guardText, luhnValid, REDACTED, type SecretKind } from '../../../electron/core/memory/guard';
import { memoryTool, openTestVault, snapshotEntries, type TestVault } from './helpers';

const ANTHROPIC = 'sk-ant-api03-' + 'Abc123_-'.repeat(10);
const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq9\nabcdefghijklmnop\n-----END RSA PRIVATE KEY-----';

const SECRETS: ReadonlyArray<[SecretKind, string, string]> = [
  ['anthropic-api-key', `my key is ${ANTHROPIC} ok`, ANTHROPIC],
  ['api-key', 'OPENAI=sk-proj-' + 'a1B2c3D4'.repeat(5), 'sk-proj-' + 'a1B2c3D4'.repeat(5)],
  ['api-key', 'stripe sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc', 'sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc'],
  ['aws-access-key', 'aws id AKIAIOSFODNN7EXAMPLE here', 'AKIAIOSFODNN7EXAMPLE'],
  ['aws-secret-key', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  ['github-token', 'token ghp_' + 'x'.repeat(36), 'ghp_' + 'x'.repeat(36)],
  ['github-token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv'],
  ['slack-token', 'slack xoxb-123456789012-abcdefABCDEF', 'xoxb-123456789012-abcdefABCDEF'],
  ['private-key', `key:\n${PEM}\nafter`, PEM],
  ['card-number', 'visa 4111 1111 1111 1111 exp 12/30', '4111 1111 1111 1111'],
  ['card-number', 'mc 5555555555554444.', '5555555555554444'],
  ['card-number', 'amex 3782-822463-10005', '3782-822463-10005'],
  ['us-ssn', 'SSN 123-45-6789', '123-45-6789'],
  ['password', 'wifi password: correct-horse', 'correct-horse'],
  ['password', '"db_password": "s3cr3t!!"', '"s3cr3t!!"'],
  ['password', 'API_KEY=abcd1234efgh', 'abcd1234efgh'],
  ['password', 'router passphrase: sunshine', 'sunshine'],
  ['password', 'pwd = hunter2 (old one)', 'hunter2'],
];

const INNOCENT = [
  'card 4111 1111 1111 1112 fails Luhn',
  'timestamp 1700000000000 and 1732291200',
  'call +1 555-123-4567 or 555 123 4567',
  'born 1990-04-12, ISBN 978-3-16-148410-0, version 1.12.0',
  'password: none',
  'password: [REDACTED]',
  'password: <ask the user>',
  'The user keeps their passwords in 1Password and never shares them.',
  'sk-short and sk-ant-',
  'SSN-like but invalid: 000-12-3456, 666-12-3456, 123-00-4567',
  'order 123-45-678 shipped',
  'token budget: 4096 tokens',
  'API key: stored in 1Password, ask before using',
  'password: see the shared vault for it',
];

describe('findSecrets', () => {
  it.each(SECRETS)('finds %s in %j and marks exactly the secret', (kind, text, secret) => {
    const found = findSecrets(text);
    expect(found.map((f) => f.kind)).toEqual([kind]);
    expect(text.slice(found[0]!.start, found[0]!.end)).toBe(secret);
  });

  it.each(INNOCENT)('leaves %j alone', (text) => {
    expect(findSecrets(text)).toEqual([]);
  });

  it('Luhn accepts valid card numbers and rejects a changed digit', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('4111111111111121')).toBe(false);
  });

  it('redacts every secret of a text and keeps the rest', () => {
    const text = `a ${ANTHROPIC} b\npassword: hunter22\nc 4111111111111111 d`;
    expect(guardText(text, 'redact')).toEqual({ text: `a ${REDACTED} b\npassword: ${REDACTED}\nc ${REDACTED} d`, redacted: expect.any(Array) });
    expect(guardText(text, 'redact').redacted.map((r) => r.kind)).toEqual(['anthropic-api-key', 'password', 'card-number']);
  });
});

describe('the guard in the memory tool', () => {
  let tv: TestVault;
  let mode: GuardMode = 'block';
  let run: ReturnType<typeof memoryTool>['run'];
  beforeAll(async () => {
    tv = await openTestVault();
    run = memoryTool(tv.vault, { guardMode: () => mode }).run;
  });
  afterAll(async () => {
    await tv.close();
  });
  beforeEach(async () => {
    await tv.clear();
    mode = 'block';
  });

  it('block refuses a create naming the kind of secret, never its value, and stores nothing', async () => {
    const result = await run({ command: 'create', path: '/memories/keys.md', file_text: `Claude key: ${ANTHROPIC}` });
    expect(result).toEqual({
      content:
        'Error: No change was made: the text looks like it contains an Anthropic API key. Secrets must not be stored in memory. ' +
        'Leave the value out (you can note that it exists and where the user keeps it) and try again.',
      is_error: true,
    });
    expect(snapshotEntries(tv.vault)).toEqual([]);
  });

  it('block names several kinds at once and refuses str_replace and insert as well', async () => {
    await run({ command: 'create', path: '/memories/n.md', file_text: 'note\n' });
    const replaced = await run({ command: 'str_replace', path: '/memories/n.md', old_str: 'note', new_str: `AKIAIOSFODNN7EXAMPLE ${PEM}` });
    expect(replaced.content).toContain('an AWS access key and a private key');
    expect(replaced.content).not.toContain('AKIAIOSFODNN7EXAMPLE');
    const inserted = await run({ command: 'insert', path: '/memories/n.md', insert_line: 0, insert_text: 'SSN 123-45-6789' });
    expect(inserted.content).toContain('a US Social Security number');
    expect(inserted.content).not.toContain('6789');
    expect(await tv.vault.memory.readFile('/memories/n.md')).toBe('note\n');
  });

  it('redact stores [REDACTED] in place of the secret and tells Claude the text differs', async () => {
    mode = 'redact';
    const created = await run({ command: 'create', path: '/memories/wifi.md', file_text: 'home wifi password: correct-horse\n' });
    expect(created).toEqual({
      content:
        'File created successfully at: /memories/wifi.md\n' +
        'Note: 1 likely secret (a password) was replaced with [REDACTED] before saving; the stored text differs from what you sent.',
      is_error: false,
    });
    expect(await tv.vault.memory.readFile('/memories/wifi.md')).toBe('home wifi password: [REDACTED]\n');
    const replaced = await run({ command: 'str_replace', path: '/memories/wifi.md', old_str: 'home', new_str: 'card 4111111111111111 home' });
    expect(replaced.content).toMatch(/\nNote: 1 likely secret \(a payment card number\) was replaced/);
    await run({ command: 'insert', path: '/memories/wifi.md', insert_line: 0, insert_text: `${ANTHROPIC}\n` });
    expect(await tv.vault.memory.readFile('/memories/wifi.md')).toBe('[REDACTED]\ncard [REDACTED] home wifi password: [REDACTED]\n');
  });

  it('allow stores the text unchanged, and the mode is read again on every call', async () => {
    mode = 'allow';
    expect((await run({ command: 'create', path: '/memories/a.md', file_text: 'password: hunter22' })).is_error).toBe(false);
    expect(await tv.vault.memory.readFile('/memories/a.md')).toBe('password: hunter22');
    mode = 'block';
    expect((await run({ command: 'create', path: '/memories/b.md', file_text: 'password: hunter22' })).is_error).toBe(true);
  });

  it('a secret in a file name is refused in block and redact modes, since a name cannot be redacted', async () => {
    for (const m of ['block', 'redact'] as const) {
      mode = m;
      const created = await run({ command: 'create', path: `/memories/${ANTHROPIC}.md`, file_text: 'x' });
      expect(created.content).toMatch(/^Error: No change was made: the text looks like it contains an Anthropic API key/);
      expect(created.content).not.toContain(ANTHROPIC);
    }
    await run({ command: 'create', path: '/memories/ok.md', file_text: 'x' });
    const renamed = await run({ command: 'rename', old_path: '/memories/ok.md', new_path: '/memories/4111111111111111.md' });
    expect(renamed.content).toContain('a payment card number');
    expect(snapshotEntries(tv.vault).map((e) => e.path)).toEqual(['/memories/ok.md']);
  });
});
