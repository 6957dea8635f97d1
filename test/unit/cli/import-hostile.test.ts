import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { initVault, mnemo, snapshot } from './helpers';

describe('mnemo import of a hostile folder', () => {
  it('a file and a folder whose names normalise to the same path are refused and nothing is imported', async () => {
    const { root, vault, env } = await initVault();
    const src = path.join(root, 'src');
    const nfc = 'caf\u00e9';
    const nfd = 'cafe\u0301';
    await fs.mkdir(path.join(src, nfd), { recursive: true });
    await fs.writeFile(path.join(src, nfd, 'x.md'), 'inside the folder');
    await fs.writeFile(path.join(src, nfc), 'a file with the folder’s name');
    const res = await mnemo(['import', src, '--vault', vault], { env });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/both a file and a folder in the import; nothing was imported/);
    const verify = await mnemo(['verify', '--vault', vault], { env });
    expect(verify.code).toBe(0);
    expect((await mnemo(['ls', '/memories', '--vault', vault], { env })).stdout).not.toMatch(/caf/);
  });
});

describe('mnemo backup into the vault itself', () => {
  it('a backup folder inside the vault folder is refused up front, naming the problem, and the vault is unchanged', async () => {
    const { vault, env } = await initVault();
    const before = await snapshot(vault);
    for (const target of [path.join(vault, 'bk'), path.join(vault, 'segments', 'bk'), vault]) {
      const res = await mnemo(['backup', target, '--vault', vault], { env });
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/inside the vault folder/);
      expect(res.stderr).not.toMatch(/unexpectedly|ENAMETOOLONG/);
    }
    expect(await snapshot(vault)).toEqual(before);
  });
});
