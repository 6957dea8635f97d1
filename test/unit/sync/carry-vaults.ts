/**
 * Real vaults of several computers on copies of one folder, carried as a sync engine carries them (the attacks on
 * forgetting: attack-forget-vaults.test.ts, attack-announce-vaults.test.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { SyncSession } from '../../../electron/core/vault/sync/session2';
import type { OpenOptions } from '../../../electron/core/vault/types';
import { Vault } from '../../../electron/core/vault/vault';
import { carry, FLOOR, PASS } from './two-computers';

export interface Computer {
  dir: string;
  v: Vault;
}

/** As `carry`, and the files `from`'s own device removed (compaction) go from `to` too. */
export async function mirror(from: Computer, to: { dir: string }): Promise<void> {
  await carry(from.dir, to.dir);
  await carryRemovals(from, to);
}

/**
 * The files of `from`'s own device that `from` removed go from `to` too (as a sync engine carries a removal), before any
 * copy could carry them back: `syncAll` run right after never brings a removed file back.
 */
export async function carryRemovals(from: { dir: string; v: Vault }, to: { dir: string }): Promise<void> {
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

/**
 * A test file's computers: a temporary folder per test (removed after it, every vault closed), and `computers(n)`, n
 * computers on copies of one new format-2 vault (or one made by a format-1 build), each with its own state folder `s<i>` and checkpointing every 4 own
 * records; `reopen(i)` closes computer i and opens its folder again (with its state folder removed first if `lose`).
 */
export function vaultRoom(prefix: string) {
  const room = { root: '', recovery: '' };
  const opened: Vault[] = [];
  beforeEach(async () => {
    room.root = await fs.mkdtemp(path.join(os.tmpdir(), `mnemo-${prefix}-`));
  });
  afterEach(async () => {
    for (const v of opened.splice(0)) await v.close().catch(() => undefined);
    await fs.rm(room.root, { recursive: true, force: true });
  });
  const opts = (i: number, more: Partial<OpenOptions> = {}): OpenOptions => ({ stateDir: path.join(room.root, `s${i}`), format2: true, ackDelayMs: 0, journalLimit: 4, ...more });
  async function openAs(i: number, more: Partial<OpenOptions> = {}): Promise<Computer> {
    const dir = path.join(room.root, `v${i}`);
    const v = await Vault.open(dir, opts(i, more));
    await v.unlockWithRecoveryKey(room.recovery);
    opened.push(v);
    return { dir, v };
  }
  /** `made.v1`: the vault is made by a format-1 build (format 1 on disk until its first change, no computer known). */
  async function computers(n: number, made1: { v1?: boolean } = {}): Promise<Computer[]> {
    const first = path.join(room.root, 'v0');
    const made = await Vault.create(first, PASS, { kdf: FLOOR, ...opts(0), ...(made1.v1 ? { format2: false } : {}) });
    room.recovery = made.recoveryKey;
    await made.vault.close();
    const out: Computer[] = [];
    for (let i = 0; i < n; i++) {
      if (i) await fs.cp(first, path.join(room.root, `v${i}`), { recursive: true });
      out.push(await openAs(i));
    }
    return out;
  }
  async function reopen(c: Computer, i: number, lose = false): Promise<Computer> {
    await c.v.close();
    opened.splice(opened.indexOf(c.v), 1);
    if (lose) await fs.rm(path.join(room.root, `s${i}`), { recursive: true });
    return openAs(i);
  }
  /** Computer 1 (B) wrote b0, which every computer got; B's state and vault folders are copied to computer 2 while B is closed; both open. */
  async function cloned(cs: Computer[]): Promise<{ me: string; b: Computer; clone: Computer }> {
    await cs[1]!.v.memory.writeFile('/memories/b0.md', 'b0', { mode: 'upsert', source: 'user' });
    await syncAll(cs);
    await cs[1]!.v.close();
    await fs.cp(path.join(room.root, 's1'), path.join(room.root, 's2'), { recursive: true });
    await fs.cp(cs[1]!.dir, path.join(room.root, 'v2'), { recursive: true });
    const b = await openAs(1);
    const clone = await openAs(2);
    return { me: (await b.v.internal.device!(false))!, b, clone };
  }
  return { room, computers, reopen, openAs, cloned };
}
