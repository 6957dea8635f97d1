import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished, vi } from 'vitest';
import { nodeFs, type VaultFile, type VaultFs } from '../../../electron/core/vault/fsio';
import { Vault } from '../../../electron/core/vault/vault';
import { VaultError } from '../../../electron/core/vault/types';

export const PASS = 'correct horse battery staple';
export const FLOOR = { opslimit: 2, memlimit: 64 * 1024 * 1024 };

/**
 * The real disk with every file write going through `write`, which is handed
 * the real file's write to call (or not).
 */
export function wrapWrites(write: (real: VaultFile['write'], buf: Uint8Array, pos: number) => Promise<number>): VaultFs {
  return {
    ...nodeFs,
    async open(file, mode) {
      const f = await nodeFs.open(file, mode);
      return {
        ...f,
        dsync: f.dsync,
        write: (buf, pos) => write((b, p) => f.write(b, p), buf, pos),
      };
    },
  };
}

/** The real disk with `room` bytes left: a write past it stores what fits and fails with ENOSPC, as a full disk does. */
export function fullDisk(): { fs: VaultFs; room: { bytes: number } } {
  const room = { bytes: Infinity };
  const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  const wrapped = wrapWrites(async (real, buf, pos) => {
    if (buf.length <= room.bytes) {
      room.bytes -= buf.length;
      return real(buf, pos);
    }
    const fit = Math.max(0, Math.floor(room.bytes));
    room.bytes = 0;
    if (fit > 0) await real(buf.subarray(0, fit), pos);
    throw enospc();
  });
  return { fs: wrapped, room };
}

/** The real disk, counting every byte the vault writes (at its file layer). */
export function countingFs(): { fs: VaultFs; written: { bytes: number } } {
  const written = { bytes: 0 };
  return {
    written,
    fs: wrapWrites((real, buf, pos) => {
      written.bytes += buf.length;
      return real(buf, pos);
    }),
  };
}

export interface TempVault {
  root: string;
  dir: string;
  stateDir: string;
  vault: Vault;
  recoveryKey: string;
  reopen(): Promise<Vault>;
  cleanup(): Promise<void>;
}

/**
 * A fresh unlocked vault at the KDF floor in a temp dir. `format`: the vault's format chosen explicitly (created and
 * reopened so); absent, the default (MNEMO_FORMAT).
 */
export async function tempVault(format?: { format2: boolean }): Promise<TempVault> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-vault-'));
  const dir = path.join(root, 'vault');
  const stateDir = path.join(root, 'state');
  const { vault, recoveryKey } = await Vault.create(dir, PASS, { kdf: FLOOR, stateDir, ...format });
  const t: TempVault = {
    root,
    dir,
    stateDir,
    vault,
    recoveryKey,
    async reopen() {
      await t.vault.close();
      t.vault = await Vault.open(dir, { stateDir, ...format });
      await t.vault.unlock(PASS);
      return t.vault;
    },
    async cleanup() {
      await t.vault.close();
      await fs.rm(root, { recursive: true, force: true });
    },
  };
  return t;
}

/** Every file below `dir`, relative, sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push(path.relative(dir, path.join(e.parentPath, e.name)));
  }
  return out.sort();
}

/** Size, mtime and bytes of every entry below `dir`, the folders themselves included. */
export async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    const st = await fs.stat(d);
    out[path.relative(dir, d) || '.'] = `dir ${st.mtimeMs}`;
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else {
        const s = await fs.stat(p);
        out[path.relative(dir, p)] = `${s.size} ${s.mtimeMs} ${(await fs.readFile(p)).toString('base64')}`;
      }
    }
  };
  await walk(dir);
  return out;
}

/** The VaultError code a promise fails with, 'OK' if it succeeds (other errors as text). */
export const code = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (e) {
    return e instanceof VaultError ? e.code : String(e);
  }
  return 'OK';
};

/**
 * Pins the running test to format 1 (the single-writer vault) whatever MNEMO_FORMAT says, for a test about format 1
 * itself (its files, its rollback alarm, its lock in the vault folder): every vault it opens without an explicit
 * `format2`, in this process and in the child processes it starts, is format 1. Undone when the test finishes.
 */
export function pinFormat1(): void {
  vi.stubEnv('MNEMO_FORMAT', '1');
  onTestFinished(() => {
    vi.unstubAllEnvs();
  });
}
