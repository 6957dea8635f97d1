/**
 * Real vaults of several computers on copies of one folder, carried as a sync engine carries them (the attacks on
 * forgetting: attack-forget-vaults.test.ts, attack-announce-vaults.test.ts).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { SyncSession } from '../../../electron/core/vault/sync/session2';
import type { Vault } from '../../../electron/core/vault/vault';
import { carry } from './two-computers';

export interface Computer {
  dir: string;
  v: Vault;
}

/** As `carry`, and the files `from`'s own device removed (compaction) go from `to` too. */
export async function mirror(from: Computer, to: { dir: string }): Promise<void> {
  await carry(from.dir, to.dir);
  const me = await from.v.internal.device!(false);
  if (!me) return;
  const own = path.join('devices', me);
  const theirs = new Set((await fs.readdir(path.join(from.dir, own), { recursive: true }).catch(() => [])) as string[]);
  for (const rel of (await fs.readdir(path.join(to.dir, own), { recursive: true }).catch(() => [])) as string[]) {
    const p = path.join(to.dir, own, rel);
    if (!theirs.has(rel) && (await fs.stat(p)).isFile()) await fs.rm(p);
  }
}

/** Every computer's files to every other, each ingesting, twice over. */
export async function syncAll(cs: Computer[]): Promise<void> {
  for (let round = 0; round < 2; round++) {
    for (const a of cs) for (const b of cs) if (a !== b) await mirror(a, b);
    for (const c of cs) await c.v.ingest();
  }
}

/** The format-2 session of an unlocked vault. */
export const session = (v: Vault) => (v as unknown as { session2: SyncSession }).session2;
