/** The commands that only read never change a byte, a file or an mtime in the vault folder. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprint } from '../vault/helpers';
import { initVault, memoryLines, mnemo } from './helpers';

let t: Awaited<ReturnType<typeof initVault>>;
beforeAll(async () => {
  t = await initVault();
  const res = await mnemo(['memory', '--vault', t.vault], { env: t.env, stdin: memoryLines({ command: 'create', path: '/memories/a.md', file_text: 'alpha' }, { command: 'str_replace', path: '/memories/a.md', old_str: 'alpha', new_str: 'beta' }) });
  expect(res.code).toBe(0);
  // A torn tail and a temp file are what a writer would tidy; a reader must leave them.
  await fs.writeFile(path.join(t.vault, 'vault.json.tmp'), 'left over');
});
afterAll(async () => {
  await fs.rm(t.root, { recursive: true, force: true });
});

describe('read-only commands', () => {
  it.each([
    ['verify', []],
    ['ls', []],
    ['cat', ['/memories/a.md']],
    ['export', ['EXPORT', '--plaintext']],
    ['backup', ['BACKUP']],
  ])('%s leaves the vault folder exactly as it was', async (command, args) => {
    const before = await fingerprint(t.vault);
    const target = path.join(t.root, `${command}-out`);
    const res = await mnemo([command, ...args.map((a) => (a === 'EXPORT' || a === 'BACKUP' ? target : a)), '--vault', t.vault], { env: t.env });
    expect(res.code, res.stderr).toBe(0);
    expect(await fingerprint(t.vault)).toEqual(before);
  });
});
