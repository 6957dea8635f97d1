/**
 * Two computers on one vault for the format-2 tests: two state folders on
 * copies of one vault folder, their `devices/` folders (and a newer
 * vault.json) copied across as a sync engine would.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Vault } from '../../../electron/core/vault/vault';

export const PASS = 'correct horse battery staple';
export const FLOOR = { opslimit: 2, memlimit: 64 * 1024 * 1024 };

/**
 * Copies what `from` has that `to` lacks, as a sync engine that knows which copy is newer would: journals only grow,
 * checkpoints and packs never change, and vault.json changes here only at the upgrade (version 2). Never an own file
 * with an older copy of itself.
 */
export async function carry(from: string, to: string): Promise<void> {
  for (const rel of (await fs.readdir(from, { recursive: true })) as string[]) {
    if (rel !== 'vault.json' && !rel.startsWith('devices')) continue;
    const src = path.join(from, rel);
    if (!(await fs.stat(src)).isFile()) continue;
    const bytes = await fs.readFile(src);
    const old = await fs.readFile(path.join(to, rel)).catch(() => undefined);
    const newer = rel === 'vault.json' ? old && JSON.parse(String(bytes)).version > JSON.parse(String(old)).version : !old || bytes.length > old.length;
    if (!newer) continue;
    await fs.mkdir(path.dirname(path.join(to, rel)), { recursive: true });
    await fs.writeFile(path.join(to, rel), bytes);
  }
}

const opts = (root: string, state: string, format2 = true) => ({ stateDir: path.join(root, state), format2, ackDelayMs: 0 });

/** Under `root`: A made the vault (format 2 unless `v1`; `before` runs on it first), B opened a copy of it. */
export async function twoComputers(root: string, v1 = false, before?: (va: Vault) => Promise<void>): Promise<{ va: Vault; vb: Vault; sync: () => Promise<void> }> {
  const a = path.join(root, 'va');
  const b = path.join(root, 'vb');
  const made = await Vault.create(a, PASS, { kdf: FLOOR, ...opts(root, 'a', !v1) });
  await before?.(made.vault);
  await made.vault.close();
  await fs.cp(a, b, { recursive: true });
  const va = await Vault.open(a, opts(root, 'a'));
  await va.unlockWithRecoveryKey(made.recoveryKey);
  const vb = await Vault.open(b, opts(root, 'b'));
  await vb.unlockWithRecoveryKey(made.recoveryKey);
  const sync = async () => {
    await carry(a, b);
    await carry(b, a);
    await va.ingest();
    await vb.ingest();
  };
  return { va, vb, sync };
}

/**
 * A copy of this computer (`cloneDir`, written under the same device id `me`) meets this computer's folder `dir` as a
 * sync engine leaves it when both wrote on in one file: this computer's kept as a `.sync-conflict-…` copy and the
 * clone's put in place (Syncthing does so when the other side's change wins); the clone's other files carried over.
 */
export async function cloneOver(cloneDir: string, dir: string, me: string): Promise<void> {
  const mine = path.join(dir, 'devices', me);
  for (const rel of (await fs.readdir(path.join(cloneDir, 'devices', me), { recursive: true })) as string[]) {
    const from = path.join(cloneDir, 'devices', me, rel);
    if (!(await fs.stat(from)).isFile()) continue;
    const here = await fs.readFile(path.join(mine, rel)).catch(() => undefined);
    if (!here) await fs.cp(from, path.join(mine, rel));
    else if (!here.equals(await fs.readFile(from))) {
      await fs.writeFile(path.join(mine, `${rel}.sync-conflict-20261127-120000-ABCDEFG`), here);
      await fs.cp(from, path.join(mine, rel));
    }
  }
}
