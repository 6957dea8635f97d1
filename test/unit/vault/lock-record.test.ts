import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock } from '../../../electron/core/vault/lockfile';
import { VaultError } from '../../../electron/core/vault/types';
import { cryptoReady } from '../../../electron/core/vault/crypto';

let roots: string[] = [];
afterEach(async () => {
  for (const r of roots) await fs.rm(r, { recursive: true, force: true });
  roots = [];
});
async function tempDir(): Promise<string> {
  await cryptoReady();
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-lockrec-'));
  roots.push(root);
  return root;
}

async function refusal(dir: string): Promise<VaultError> {
  const err = await acquireLock(dir).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(VaultError);
  return err as VaultError;
}

describe('a hostile .lock record', () => {
  it('a FIFO named .lock neither blocks the open nor is read; the vault locks and unlocks', async () => {
    const dir = await tempDir();
    execFileSync('mkfifo', [path.join(dir, '.lock')]);
    const release = await acquireLock(dir);
    release();
  });

  it('a .lock that links to an endless device is not followed; the vault locks', async () => {
    const dir = await tempDir();
    await fs.symlink('/dev/zero', path.join(dir, '.lock'));
    const release = await acquireLock(dir);
    release();
    // The link itself was replaced by this process's record and then removed; /dev/zero is untouched.
    await expect(fs.lstat(path.join(dir, '.lock'))).rejects.toThrow();
  });

  it('another computer’s name is shown short and without control characters', async () => {
    const dir = await tempDir();
    const host = '\u001b]0;pwned\u0007\u001b[2J' + 'h'.repeat(3000) + '\r\nfake line';
    await fs.writeFile(path.join(dir, '.lock'), JSON.stringify({ host, pid: 1, started: 1 }));
    const err = await refusal(dir);
    expect(err.code).toBe('IN_USE');
    // eslint-disable-next-line no-control-regex
    expect(err.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(err.message.length).toBeLessThan(400);
    expect(err.message).toMatch(/delete the file \.lock/);
  });

  it('another computer’s name is shown without bidi controls or invisible characters', async () => {
    const dir = await tempDir();
    // Right-to-left override and isolates, zero-width and other invisible characters, a Hangul filler, a BOM.
    const hidden = ['\u202e', '\u202a', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c', '\u200b', '\u200d', '\u2060', '\ufeff', '\u115f', '\u3164', '\u180e', '\ufe0f'];
    await fs.writeFile(path.join(dir, '.lock'), JSON.stringify({ host: `lap${hidden.join('')}top\u202egnp.exe`, pid: 1, started: 1 }));
    const err = await refusal(dir);
    expect(err.code).toBe('IN_USE');
    for (const h of hidden) expect(err.message, `U+${h.codePointAt(0)!.toString(16)}`).not.toContain(h);
    expect(err.message).toMatch(/open on lap\?+top\?gnp\.exe /);
  });

  it('a record naming another computer still refuses the vault when it is read through no link', async () => {
    const dir = await tempDir();
    await fs.writeFile(path.join(dir, '.lock'), JSON.stringify({ host: 'other-laptop', pid: 42, started: 7 }));
    const err = await refusal(dir);
    expect(err.message).toMatch(/open on other-laptop/);
  });
});
