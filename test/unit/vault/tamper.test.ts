import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHeader, vaultIdBytes, type Header } from '../../../electron/core/vault/header';
import { storeKeys, unwrapWithPassphrase } from '../../../electron/core/vault/keys';
import { checkBlobs, type Unlocked } from '../../../electron/core/vault/ops';
import { Store } from '../../../electron/core/vault/store';
import { VaultError } from '../../../electron/core/vault/types';
import { Vault } from '../../../electron/core/vault/vault';
import { DEEP, randomSeed, sample } from '../../deep';
import { listFiles, PASS, tempVault, type TempVault } from './helpers';

/**
 * Flips single bytes in every encrypted file of a closed vault and checks that
 * the damage is found and named — by loading and verifying with the real Store
 * code and the key unwrapped once (so thousands of flips need one Argon2id).
 */
let t: TempVault;
let header: Header;
let vmk: Uint8Array;
const MEMORIES: Record<string, string> = {
  '/memories/alpha.md': 'first memory\n'.repeat(3),
  '/memories/team/beta.md': 'second memory',
  '/memories/gamma.md': 'third memory, written after a checkpoint',
};

beforeAll(async () => {
  // Format 1: the flips are checked with format 1's own Store (segments, manifest, journal) and version-1 header.
  t = await tempVault({ format2: false });
  await t.vault.memory.writeFile('/memories/alpha.md', MEMORIES['/memories/alpha.md']!, { mode: 'create', source: 'user' });
  await t.vault.memory.writeFile('/memories/team/beta.md', MEMORIES['/memories/team/beta.md']!, { mode: 'create', source: 'user' });
  await t.vault.internal.putJSON('settings', { model: 'x' });
  // close() checkpoints, so after reopening the first memories sit in a sealed segment and gamma in the journal.
  const v = await t.reopen();
  await v.setHistoryDepth(20);
  await v.memory.writeFile('/memories/gamma.md', MEMORIES['/memories/gamma.md']!, { mode: 'create', source: 'user' });
  // Lock first so close() has nothing to fold in and the journal keeps its record.
  v.lock();
  await v.close();
  header = parseHeader(new Uint8Array(await fs.readFile(path.join(t.dir, 'vault.json'))));
  vmk = await unwrapWithPassphrase(header, PASS);
});
afterAll(async () => {
  t.vault = await Vault.open(t.dir, { stateDir: t.stateDir, format2: false });
  await t.cleanup();
});

/** Loads and verifies the vault as it is on disk now: the problems found, and which memories still read correctly. */
async function inspect(): Promise<{ problems: string[]; readable: string[] }> {
  const store = new Store(t.dir, vaultIdBytes(header), storeKeys(vmk), header.manifest);
  try {
    const state = await store.load();
    const u: Unlocked = { store, state, commit: async () => undefined, commitBatch: async () => undefined, emit: () => undefined };
    const problems = [...store.problems, ...(await store.verifySegments()), ...(await checkBlobs(u))];
    const readable: string[] = [];
    for (const [p, text] of Object.entries(MEMORIES)) {
      const rec = state.files.get(p);
      if (!rec) continue;
      try {
        if (new TextDecoder().decode(await store.readBlob('blobs', rec.b, p)) === text) readable.push(p);
      } catch {
        // damaged: not readable
      }
    }
    return { problems, readable };
  } catch (e) {
    if (e instanceof VaultError && e.code === 'DAMAGED') return { problems: [`${e.subject}: ${e.message}`], readable: [] };
    throw e;
  } finally {
    await store.close();
  }
}

async function withFlip<T>(file: string, at: number, fn: () => Promise<T>): Promise<T> {
  const full = path.join(t.dir, file);
  const bytes = await fs.readFile(full);
  const original = bytes[at]!;
  bytes[at] = original ^ 0x20;
  await fs.writeFile(full, bytes);
  try {
    return await fn();
  } finally {
    bytes[at] = original;
    await fs.writeFile(full, bytes);
  }
}

describe('tamper detection', () => {
  it('the untouched vault verifies clean', async () => {
    expect(await inspect()).toEqual({ problems: [], readable: Object.keys(MEMORIES) });
  });

  it('flipping any byte of vault.json is reported as damage to vault.json', async () => {
    const bytes = new Uint8Array(await fs.readFile(path.join(t.dir, 'vault.json')));
    for (let i = 0; i < bytes.length; i++) {
      const copy = bytes.slice();
      copy[i] = copy[i]! ^ 0x01;
      let err: unknown;
      try {
        parseHeader(copy);
      } catch (e) {
        err = e;
      }
      expect(err, `byte ${i}`).toBeInstanceOf(VaultError);
      expect((err as VaultError).subject).toBe('vault.json');
    }
  });

  it('flipping any byte of the manifest or of any segment is detected and named; untouched memories still open', async () => {
    const files = (await listFiles(t.dir)).filter((f) => f.startsWith('manifest.') || f.startsWith('segments/'));
    expect(files.filter((f) => f.startsWith('segments/')).length).toBeGreaterThanOrEqual(2);
    const seed = randomSeed('tamper: bytes flipped between the ends');
    let checked = 0;
    for (const file of files) {
      const size = (await fs.stat(path.join(t.dir, file))).size;
      // Under `npm run test:deep`, every byte of small files and a dense stride of larger ones; in `npm test`,
      // every byte of both ends (the headers and the last tag) and a sample of 48 bytes between them.
      const stride = size > 3000 ? 13 : 1;
      const ends: number[] = [];
      const between: number[] = [];
      for (let at = 0; at < size; at += at < 64 || at > size - 64 ? 1 : stride) (at < 64 || at > size - 64 ? ends : between).push(at);
      for (const at of [...ends, ...sample(between, 48, seed)].sort((a, b) => a - b)) {
        const { problems, readable } = await withFlip(file, at, inspect);
        expect(problems.length, `${file} byte ${at} (seed ${seed})`).toBeGreaterThan(0);
        const name = file.startsWith('manifest.') ? 'manifest' : file;
        const damagedMemories = Object.keys(MEMORIES).filter((m) => !readable.includes(m));
        expect(problems.some((p) => p.includes(name) || damagedMemories.some((m) => p.startsWith(m))), `${file} byte ${at}: ${problems.join('; ')}`).toBe(true);
        if (file.startsWith('segments/')) {
          // A flip in one place damages at most the memory stored there.
          expect(damagedMemories.length, `${file} byte ${at}`).toBeLessThanOrEqual(1);
        }
        checked++;
      }
    }
    console.log(`tamper: ${checked} bytes flipped in ${files.length} files${DEEP ? '' : ' (sampled)'}`);
    expect(checked).toBeGreaterThan(DEEP ? 500 : 100 * files.length);
  }, DEEP ? 600_000 : 120_000);

  it('a deleted or truncated segment is reported naming the memories it held', async () => {
    const segs = (await listFiles(t.dir)).filter((f) => f.startsWith('segments/'));
    const journal = await journalName();
    const sealed = segs.filter((s) => s !== journal);
    expect(sealed.length).toBeGreaterThan(0);
    for (const seg of sealed) {
      const full = path.join(t.dir, seg);
      const saved = await fs.readFile(full);
      await fs.writeFile(full, saved.subarray(0, saved.length - 50));
      const truncated = await inspect();
      await fs.rm(full);
      const removed = await inspect();
      await fs.writeFile(full, saved);
      expect(truncated.problems.length, seg).toBeGreaterThan(0);
      expect(removed.problems.length, seg).toBeGreaterThan(0);
      expect(removed.readable.length).toBeGreaterThan(0);
    }
  });

  it('cutting records off the end of the journal is reported as a rollback', async () => {
    const full = path.join(t.dir, await journalName());
    const saved = await fs.readFile(full);
    await fs.writeFile(full, saved.subarray(0, saved.length - 50));
    try {
      const v = await Vault.open(t.dir, { stateDir: t.stateDir, format2: false });
      const report = await v.unlock(PASS);
      v.lock();
      await v.close();
      expect(report.rolledBack).toBe(true);
    } finally {
      await fs.writeFile(full, saved);
    }
  });
});

/** The segment the manifest names as the journal. */
async function journalName(): Promise<string> {
  const store = new Store(t.dir, vaultIdBytes(header), storeKeys(vmk), header.manifest);
  await store.load();
  const id = store.journalId!;
  await store.close();
  return `segments/${id}`;
}
