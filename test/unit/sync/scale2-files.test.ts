/**
 * Format 2 on ONE computer at scale (the default since 2ec6d05): what this computer's own folder
 * `devices/<id>/<ep>/` and the vault's bytes do after many writes. Counts of files and bytes only, never time.
 * Sizes are sampled under `npm test` and full under MNEMO_DEEP=1 (test/deep.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { DEEP } from '../../deep';
import { FLOOR, PASS } from '../vault/helpers';

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-scale2-'));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

const T = DEEP ? 3_600_000 : 240_000;
/** Records per segment (journal2.ts SEGMENT_RECORDS). */
const SEGMENT_RECORDS = 256;

async function made(journalLimit?: number): Promise<{ dir: string; vault: Vault }> {
  const dir = path.join(root, 'vault');
  const { vault } = await Vault.create(dir, PASS, { kdf: FLOOR, stateDir: path.join(root, 'state'), format2: true, ackDelayMs: 0, ...(journalLimit ? { journalLimit } : {}) });
  return { dir, vault };
}

/** This computer's own folder (the one device folder of a one-computer vault) with its files' sizes. */
async function ownFolder(dir: string): Promise<Map<string, number>> {
  const devs = await fs.readdir(path.join(dir, 'devices'));
  expect(devs).toHaveLength(1);
  const eps = await fs.readdir(path.join(dir, 'devices', devs[0]!));
  const out = new Map<string, number>();
  for (const ep of eps) {
    const d = path.join(dir, 'devices', devs[0]!, ep);
    if (!(await fs.stat(d)).isDirectory()) continue;
    for (const name of await fs.readdir(d)) out.set(name, (await fs.stat(path.join(d, name))).size);
  }
  return out;
}

async function bytesOf(dir: string): Promise<number> {
  let n = 0;
  for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n += (await fs.stat(path.join(e.parentPath, e.name))).size;
  return n;
}

const write = (v: Vault, p: string, text: string) => v.memory.writeFile(p, text, { mode: 'upsert', source: 'user' });

/*
 * FOUND and fixed (compact2.ts SMALL_PACKS): each checkpoint that moved a live blob made a new pack, and a pack under
 * 64 KB was never redone however dead, so a new memory now and then left one more small pack per checkpoint, forever
 * (25 files after 1,200 writes at a checkpoint limit of 64, growing by one per checkpoint).
 */
it(
  "many small writes leave a bounded number of files in this computer's folder (compaction keeps up)",
  async () => {
    // Sampled: a small checkpoint limit, so the same windows turn over many times; deep: 5,000 writes at the default.
    const limit = DEEP ? undefined : 64;
    const writes = DEEP ? 5000 : 1200;
    const { dir, vault } = await made(limit);
    const perSegment = Math.min(SEGMENT_RECORDS, limit ?? 4096);
    // The windows of segments two kept checkpoints may still need and the open one, two checkpoints, the packs (a few
    // small ones before they are merged; this vault's live bytes fill no big one) and the keys file.
    const bound = 3 * Math.ceil((limit ?? 4096) / perSegment) + 2 + 2 + 8 + 1;
    let most = 0;
    for (let i = 0; i < writes; i++) {
      // Ten memories edited again and again, and a new one every tenth write (each stays live in the pack it moves to).
      await write(vault, i % 10 === 9 ? `/memories/new/n${i}.md` : `/memories/m${i % 10}.md`, `note ${i}\n`);
      if (i % 7 === 0 || i === writes - 1) most = Math.max(most, (await ownFolder(dir)).size);
    }
    await vault.close();
    const end = await ownFolder(dir);
    expect(most).toBeLessThanOrEqual(bound);
    expect(end.size).toBeLessThanOrEqual(bound);
    expect([...end.keys()].filter((n) => n.startsWith('c-')).length).toBeLessThanOrEqual(2);
  },
  T,
);

/*
 * FOUND (not fixed: not small): every version ever written stays in the state, so in every checkpoint, for as long as
 * the vault lives. A `forget` only adds the version's vid to `state.forgotten`; neither the version record in
 * `files[fid].versions` nor the vid is ever collapsed (docs/sync-design.md §4 "Metadata growth" promises collapse once
 * causally stable, which on one computer is at once). Measured here: 4,000 writes to ONE memory (checkpoint limit 256)
 * leave two checkpoints of 1.7 MB each and 3.7 MB in all, against about 150 KB in format 1, growing by ~430 bytes per
 * write forever; every checkpoint writes it all again (quadratic bytes over a vault's life), every unlock reads it, and
 * every write's view rebuild walks it (scale2-view.test.ts).
 */
it.fails(
  "a memory written again and again: the vault's bytes and its checkpoint stop growing once the history window is full",
  async () => {
    const half = DEEP ? 2000 : 300;
    const opts = { stateDir: path.join(root, 'state'), format2: true, ackDelayMs: 0, journalLimit: 64 };
    const first = await made(64);
    const dir = first.dir;
    let vault = first.vault;
    await vault.setHistoryDepth(5);
    const sizes: Array<{ ckpt: number; total: number }> = [];
    for (let round = 0; round < 2; round++) {
      if (round) {
        vault = await Vault.open(dir, opts);
        await vault.unlock(PASS);
      }
      for (let i = 0; i < half; i++) await write(vault, '/memories/one.md', `edit ${round}:${i}\n`);
      await vault.close();
      const own = await ownFolder(dir);
      sizes.push({ ckpt: Math.max(...[...own].filter(([n]) => n.startsWith('c-')).map(([, s]) => s)), total: await bytesOf(dir) });
    }
    const [a, b] = sizes as [{ ckpt: number; total: number }, { ckpt: number; total: number }];
    // Twice the writes, the same one memory with the same 5 versions kept: allow a quarter more, plus 8 KB.
    expect(b.ckpt).toBeLessThanOrEqual(a.ckpt * 1.25 + 8192);
    expect(b.total).toBeLessThanOrEqual(a.total * 1.25 + 8192);
  },
  T,
);

it(
  "a 1 MB memory edited again and again: the vault's bytes and files stay bounded by its kept versions, while the vault is open",
  async () => {
    const edits = DEEP ? 200 : 60;
    const MB = 1 << 20;
    const { dir, vault } = await made();
    await vault.setHistoryDepth(2);
    let most = 0;
    let files = 0;
    for (let i = 0; i < edits; i++) {
      await write(vault, '/memories/big.md', `${String(i).padStart(8, '0')}${'x'.repeat(MB - 16)}\n`);
      most = Math.max(most, await bytesOf(dir));
      files = Math.max(files, (await ownFolder(dir)).size);
    }
    await vault.close();
    // 3 versions kept (depth 2 + the current) are 3 MB; format 1 lets its journal reach 16 MB before it compacts. Two
    // kept checkpoints' windows of that, the packs of the live bytes, and slack.
    expect(most).toBeLessThanOrEqual(48 * MB);
    expect(files).toBeLessThanOrEqual(48);
    expect(await bytesOf(dir)).toBeLessThanOrEqual(48 * MB);
  },
  T,
);
