/**
 * A vault that lost only vault.json is damaged, not absent: following the
 * CLI's advice must never destroy it. `init` makes a vault only in a new or
 * empty folder and never deletes anything.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAST_KDF, initVault, memoryLines, mnemo, snapshot, tempDir } from './helpers';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await fs.rm(r, { recursive: true, force: true });
});

describe('a vault folder without its vault.json', () => {
  it('is reported as damaged (exit 4) by ls, naming what is missing and how a backup restores it; init refuses it and deletes nothing', async () => {
    const t = await initVault();
    roots.push(t.root);
    expect((await mnemo(['memory', '--vault', t.vault], { env: t.env, stdin: memoryLines({ command: 'create', path: '/memories/keep.md', file_text: 'precious' }) })).code).toBe(0);
    const header = await fs.readFile(path.join(t.vault, 'vault.json'));
    await fs.rm(path.join(t.vault, 'vault.json'));
    const before = await snapshot(t.vault);

    const ls = await mnemo(['ls', '--vault', t.vault], { env: t.env });
    expect(ls.code).toBe(4);
    expect(ls.stderr).toMatch(/vault\.json/);
    expect(ls.stderr).toMatch(/backup/i);
    expect(ls.stderr).not.toMatch(/mnemo init/);

    const init = await mnemo(['init', '--vault', t.vault, ...FAST_KDF], { env: t.env });
    expect(init.code).toBe(4);
    expect(init.stderr).toMatch(/vault\.json/);
    expect(await snapshot(t.vault)).toEqual(before);

    // Putting the saved header back restores everything.
    await fs.writeFile(path.join(t.vault, 'vault.json'), header);
    const cat = await mnemo(['cat', '/memories/keep.md', '--vault', t.vault], { env: t.env });
    expect(cat.code, cat.stderr).toBe(0);
    expect(cat.stdout).toContain('precious');
  });

  it('init refuses a folder that holds anything else, and changes nothing in it', async () => {
    const root = await tempDir();
    roots.push(root);
    const dir = path.join(root, 'stuff');
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'notes.txt'), 'mine');
    const env = { MNEMO_PASSPHRASE: 'lantern orbit meadow quartz 8142 ferry', XDG_STATE_HOME: path.join(root, 'state'), HOME: root };
    const before = await snapshot(dir);
    const init = await mnemo(['init', '--vault', dir, ...FAST_KDF], { env });
    expect(init.code).toBe(1);
    expect(init.stderr).toMatch(/not empty/);
    expect(await snapshot(dir)).toEqual(before);
    expect((await fs.readdir(dir)).sort()).toEqual(['notes.txt']);
  });

  it('init still makes a vault in an empty folder', async () => {
    const root = await tempDir();
    roots.push(root);
    const dir = path.join(root, 'empty');
    await fs.mkdir(dir);
    const env = { MNEMO_PASSPHRASE: 'lantern orbit meadow quartz 8142 ferry', XDG_STATE_HOME: path.join(root, 'state'), HOME: root };
    const init = await mnemo(['init', '--vault', dir, ...FAST_KDF], { env });
    expect(init.code, init.stderr).toBe(0);
  });
});
