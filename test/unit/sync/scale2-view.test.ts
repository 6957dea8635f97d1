/**
 * Format 2 on ONE computer at scale: the work one change, an unlock and a list do, counted (entries of the state
 * visited, files read), never timed. DESIGN.md §3: "A memory operation's cost must not grow with the number of files in
 * the vault". Sizes are sampled under `npm test` and full under MNEMO_DEEP=1 (test/deep.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, onTestFinished, vi } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import { nodeFs, type VaultFs } from '../../../electron/core/vault/fsio';
import { Vault } from '../../../electron/core/vault/vault';
import type { SyncState } from '../../../electron/core/vault/sync/crdt';
import { DEEP } from '../../deep';
import { readCounting } from './read-counting';
import { FLOOR, PASS } from '../vault/helpers';
import { session } from './carry-vaults';

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-scale2v-'));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

const T = DEEP ? 3_600_000 : 240_000;
const MANY = DEEP ? 10_000 : 1000;
const LIMITS = { overwrite: false, source: 'user' as const, maxFileBytes: 1 << 20, maxTotalBytes: 2 ** 31 };


/** A format-2 vault of `n` small memories (imports of 500, as `mnemo import`), unlocked. */
async function vaultOf(n: number, name: string, fsx?: VaultFs): Promise<{ vault: Vault; dir: string; stateDir: string }> {
  const dir = path.join(root, name);
  const stateDir = path.join(root, `${name}-state`);
  const { vault } = await Vault.create(dir, PASS, { kdf: FLOOR, stateDir, format2: true, ackDelayMs: 0, ...(fsx ? { fs: fsx } : {}) });
  for (let from = 0; from < n; from += 500) {
    await vault.importFiles(
      Array.from({ length: Math.min(500, n - from) }, (_, k) => ({ path: `/memories/d${(from + k) % 50}/n${from + k}.md`, text: `note ${from + k}\n` })),
      LIMITS,
    );
  }
  return { vault, dir, stateDir };
}

/**
 * Counts the entries of the state's memory files (`state.files`) any code walks from now on: the state's map is
 * swapped for one that counts what its iterators hand out. Lookups by id are not counted.
 */
function countWalks(v: Vault): { n: number } {
  const seen = { n: 0 };
  const st = session(v).store.state as SyncState;
  class Counting<K, V> extends Map<K, V> {
    override *entries(): MapIterator<[K, V]> {
      for (const e of super.entries()) {
        seen.n++;
        yield e;
      }
    }
    override *keys(): MapIterator<K> {
      for (const [k] of this.entries()) yield k;
    }
    override *values(): MapIterator<V> {
      for (const [, x] of this.entries()) yield x;
    }
    override [Symbol.iterator](): MapIterator<[K, V]> {
      return this.entries();
    }
    override forEach(fn: (value: V, key: K, map: Map<K, V>) => void): void {
      for (const [k, x] of this.entries()) fn(x, k, this);
    }
  }
  st.files = new Counting(st.files);
  return seen;
}

/** Entries of the memory files walked by `change`, done `times` times, per time. */
async function walksPer(v: Vault, times: number, change: (i: number) => Promise<unknown>): Promise<number> {
  const seen = countWalks(v);
  for (let i = 0; i < times; i++) await change(i);
  return seen.n / times;
}

/*
 * FOUND, then fixed for an own write of one memory (session2.ts `commit`, view.ts `patched`): every change rebuilt the
 * whole view of the state (a new VersionGraph and tree over every file id and every version ever written), so a write's
 * work grew with the memories in the vault. Measured before (`npm run bench`): one small write in a vault of 8,000
 * memories ~140-190 ms against ~1 ms in format 1. A write, a delete or a move of one file now patches the view; a
 * write that settles a conflict, a folder's delete or move and what another computer brings still build it again.
 */
it(
  'a write to one memory does not walk every memory of the vault',
  async () => {
    // Measured without the tests' check of each patched view against one built from scratch (it walks them all).
    vi.stubEnv('MNEMO_VIEW_CHECK', '0');
    onTestFinished(() => void vi.unstubAllEnvs());
    const small = await vaultOf(20, 'small');
    const few = await walksPer(small.vault, 10, (i) => small.vault.memory.writeFile('/memories/one.md', `edit ${i}`, { mode: 'upsert', source: 'user' }));
    await small.vault.close();
    const big = await vaultOf(MANY, 'big');
    const many = await walksPer(big.vault, 10, (i) => big.vault.memory.writeFile('/memories/one.md', `edit ${i}`, { mode: 'upsert', source: 'user' }));
    // The counter counts: deleting a folder still lays the view out again, walking every memory.
    const folder = await walksPer(big.vault, 1, () => big.vault.memory.remove('/memories/d1', 'user'));
    await big.vault.close();
    expect(folder).toBeGreaterThanOrEqual(MANY);
    // The same write, 50 times more memories around it: it may walk a few more entries, not all of them.
    expect(many).toBeLessThanOrEqual(2 * few + 50);
  },
  T,
);

/*
 * FOUND and fixed (session2.ts `commit`, view.ts `same`): a conversation's save, which changes no memory at all, walked
 * every memory too, several times per save (12,000 entries per save at 1,000 memories). An internal value's put or
 * delete now keeps the view's graph and tree when nothing else was applied since they were built.
 */
it(
  'saving a turn of a conversation does not walk the memories of the vault',
  async () => {
    const big = await vaultOf(MANY, 'big');
    const conversations = new Conversations(big.vault);
    const c = await conversations.create();
    const per = await walksPer(big.vault, 5, (i) =>
      conversations.update(c.id, (x) => ({ ...x, updated: Date.now(), messages: [...x.messages, { role: 'user', content: `q${i}` }, { role: 'assistant', content: `a${i}` }], transcript: [...x.transcript, { role: 'user', text: `q${i}`, at: 0 }, { role: 'assistant', text: `a${i}`, at: 0, tools: [] }] })),
    );
    await big.vault.close();
    expect(per).toBeLessThanOrEqual(50);
  },
  T,
);

it(
  'an unlock and a list read each file of the vault at most a few times, however many memories and writes',
  async () => {
    const writes = DEEP ? 2000 : 1000;
    const { vault, dir, stateDir } = await vaultOf(MANY, 'many');
    for (let i = 0; i < writes; i++) await vault.memory.writeFile(`/memories/w${i % 20}.md`, `edit ${i}`, { mode: 'upsert', source: 'user' });
    await vault.close();
    let files = 0;
    for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) files++;
    const { fs: counting, reads } = readCounting();
    const again = await Vault.open(dir, { stateDir, format2: true, ackDelayMs: 0, fs: counting });
    await again.unlock(PASS);
    const atUnlock = reads.n;
    const listed = again.memory.list('/memories', Infinity).filter((e) => e.kind === 'file');
    expect(listed).toHaveLength(MANY + 20);
    expect(await again.memory.readFile('/memories/w0.md')).toMatch(/^edit /);
    const afterRead = reads.n;
    await again.close();
    // Every file (segments, checkpoints, packs, header, keys, state-folder files) once or twice, not once per memory.
    expect(atUnlock).toBeLessThanOrEqual(2 * files + 10);
    // A list reads nothing; a read of one memory reads its blob (and nothing per memory of the vault).
    expect(afterRead - atUnlock).toBeLessThanOrEqual(3);
  },
  T,
);

/*
 * FOUND (not fixed: not small): an unlock reads and decrypts every record of every own segment still on disk, also
 * those its own newest checkpoint covers (scan.ts reads each segment whole; they stay until a second checkpoint covers
 * them, up to two windows of 4,096 records). After 1,000 writes to one memory (one checkpoint, at close) an unlock
 * took ~90-250 ms here against ~2-6 ms in format 1 (`npm run bench`). Bounded by the record limit, not growing forever.
 */
it.fails(
  "an unlock reads little more than this computer's newest checkpoint when the checkpoint covers every own record",
  async () => {
    const writes = DEEP ? 3000 : 600;
    const dir = path.join(root, 'one');
    const stateDir = path.join(root, 'one-state');
    const { vault } = await Vault.create(dir, PASS, { kdf: FLOOR, stateDir, format2: true, ackDelayMs: 0 });
    for (let i = 0; i < writes; i++) await vault.memory.writeFile('/memories/one.md', `edit ${i}`, { mode: 'upsert', source: 'user' });
    // (The close writes a checkpoint covering every own record.)
    await vault.close();
    let ckpt = 0;
    for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile() && /^[cp]-/.test(e.name)) ckpt += (await fs.stat(path.join(e.parentPath, e.name))).size;
    const read = { bytes: 0 };
    const counting: VaultFs = {
      ...nodeFs,
      async readFile(f) {
        const b = await nodeFs.readFile(f);
        read.bytes += b.length;
        return b;
      },
      async open(f, mode) {
        const h = await nodeFs.open(f, mode);
        return {
          ...h,
          dsync: h.dsync,
          async read(buf, pos) {
            const n = await h.read(buf, pos);
            read.bytes += n;
            return n;
          },
        };
      },
    };
    const again = await Vault.open(dir, { stateDir, format2: true, ackDelayMs: 0, fs: counting });
    await again.unlock(PASS);
    await again.close();
    // The checkpoint and packs, the header, the format-1 part of the upgrade, and 64 KB of slack.
    expect(read.bytes).toBeLessThanOrEqual(ckpt + 64 * 1024);
  },
  T,
);
