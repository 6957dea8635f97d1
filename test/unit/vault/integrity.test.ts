import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { code, fingerprint, PASS, tempVault, type TempVault, pinFormat1 } from './helpers';

let t: TempVault | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

const write = (v: Vault, p: string, text: string) => v.memory.writeFile(p, text, { mode: 'upsert', source: 'user' });


describe('key rotation', () => {
  it('rotating a vault whose new epoch passes the 16 MiB checkpoint size leaves a vault that opens with the passphrase and verifies', async () => {
    t = await tempVault();
    // Eighteen versions of a near-limit file: the new epoch's journal passes 16 MiB during the rotation.
    const text = (i: number) => `version ${i}\n` + String(i % 10).repeat(1_000_000);
    for (let i = 0; i < 18; i++) {
      await write(t.vault, '/memories/big.md', text(i));
      // Reopening checkpoints, so the old versions sit in several segments, read one by one during the rotation.
      if (i % 4 === 3) await t.reopen();
    }
    await t.reopen();
    await write(t.vault, '/memories/z.md', 'copied after the new journal passed 16 MiB');
    expect(await code(t.vault.rotateKeys(PASS))).toBe('OK');
    const v = await t.reopen();
    expect(await v.memory.readFile('/memories/big.md')).toBe(text(17));
    expect(await v.readVersion('/memories/big.md', 1)).toBe(text(0));
    expect(await v.memory.readFile('/memories/z.md')).toBe('copied after the new journal passed 16 MiB');
    expect(await v.verify()).toEqual({ ok: true, problems: [] });
  }, 120_000);
});

describe('tail loss', () => {
  it('a vault whose manifest and journal were both deleted is reported as damaged, not opened as an older state', async () => {
    // Format 1: its tail-loss check is of the manifest and journal files, and its space figures are format 1's compaction (format 2 compacts per device: its own tests)
    pinFormat1();
    t = await tempVault();
    await write(t.vault, '/memories/a.md', 'before the checkpoint');
    const v = await t.reopen();
    await write(v, '/memories/b.md', 'the newest change, in the journal');
    v.lock();
    await v.close();
    const manifest = (await fs.readdir(t.dir)).find((f) => f.startsWith('manifest.') && !f.includes('.', 'manifest.'.length))!;
    await fs.rm(path.join(t.dir, manifest));
    for (const seg of await fs.readdir(path.join(t.dir, 'segments'))) {
      const at = (await fs.stat(path.join(t.dir, 'segments', seg))).mtimeMs;
      // The newest segment is the journal holding b.md.
      const newest = Math.max(...(await Promise.all((await fs.readdir(path.join(t.dir, 'segments'))).map(async (s) => (await fs.stat(path.join(t!.dir, 'segments', s))).mtimeMs))));
      if (at === newest) await fs.rm(path.join(t.dir, 'segments', seg));
    }
    t.vault = await Vault.open(t.dir, { stateDir: t.stateDir });
    expect(await code(t.vault.unlock(PASS))).toBe('DAMAGED');
  });
});

describe('read-only opens', () => {
  it('opening read-only, unlocking, listing, reading, verifying and closing changes no byte, file or mtime in the vault folder', async () => {
    t = await tempVault();
    await write(t.vault, '/memories/a.md', 'alpha');
    await write(t.vault, '/memories/d/b.md', 'beta');
    // Leave a journal with pending records, a temp file and a torn tail: each would be tidied by a writable open.
    t.vault.lock();
    await t.vault.close();
    await fs.writeFile(path.join(t.dir, '.tmp-0123456789abcdef'), 'left by a crash');
    const before = await fingerprint(t.dir);
    const v = await Vault.open(t.dir, { stateDir: t.stateDir, readOnly: true });
    t.vault = v;
    await v.unlock(PASS);
    expect(v.memory.list('/memories', Infinity).map((e) => e.path)).toEqual(['/memories/a.md', '/memories/d', '/memories/d/b.md']);
    expect(await v.memory.readFile('/memories/d/b.md')).toBe('beta');
    expect((await v.verify()).ok).toBe(true);
    await v.close();
    expect(await fingerprint(t.dir)).toEqual(before);
  });

  it('a write, delete, setting or key change on a read-only vault fails clearly and changes nothing', async () => {
    t = await tempVault();
    await write(t.vault, '/memories/a.md', 'alpha');
    t.vault.lock();
    await t.vault.close();
    const before = await fingerprint(t.dir);
    const v = await Vault.open(t.dir, { stateDir: t.stateDir, readOnly: true });
    t.vault = v;
    await v.unlock(PASS);
    expect(await code(write(v, '/memories/a.md', 'changed'))).toBe('INVALID');
    expect(await code(v.memory.remove('/memories/a.md', 'user'))).toBe('INVALID');
    expect(await code(v.internal.putJSON('settings', {}))).toBe('INVALID');
    expect(await code(v.rotateKeys(PASS))).toBe('INVALID');
    expect(await v.memory.readFile('/memories/a.md')).toBe('alpha');
    await v.close();
    expect(await fingerprint(t.dir)).toEqual(before);
  });
});

describe('space', () => {
  it('after 1,000 rewrites of one 2 KB file the vault folder stays under ten times its live data plus history, before close', async () => {
    // Format 1: its tail-loss check is of the manifest and journal files, and its space figures are format 1's compaction (format 2 compacts per device: its own tests)
    pinFormat1();
    t = await tempVault();
    const text = (i: number) => `rewrite ${i}\n`.padEnd(2048, 'abcdefgh');
    for (let i = 0; i < 1000; i++) await write(t.vault, '/memories/note.md', text(i));
    let total = 0;
    for (const f of await fs.readdir(t.dir, { recursive: true, withFileTypes: true })) if (f.isFile()) total += (await fs.stat(path.join(f.parentPath, f.name))).size;
    const history = t.vault.history('/memories/note.md').reduce((n, h) => n + h.size, 0);
    const live = 2048 + history;
    expect(total).toBeLessThan(10 * live);
    expect(await t.vault.memory.readFile('/memories/note.md')).toBe(text(999));
    expect((await t.vault.verify()).ok).toBe(true);
  }, 60_000);
});
