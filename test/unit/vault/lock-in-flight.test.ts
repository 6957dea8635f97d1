import { afterEach, describe, expect, it } from 'vitest';
import type { Vault } from '../../../electron/core/vault/vault';
import { PASS, tempVault, type TempVault } from './helpers';

let t: TempVault | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

const TICKS = [0, 1, 4, 16, 64, 256];
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};
const upsert = (v: Vault, p: string, text: string) => v.memory.writeFile(p, text, { mode: 'upsert', source: 'user' });

/** Starts `n` writes without waiting; resolves with the acknowledged ones and the codes of the refused ones. */
function startWrites(v: Vault, n: number): { done: Promise<void>; acked: Map<string, string>; codes: Set<string> } {
  const acked = new Map<string, string>();
  const codes = new Set<string>();
  const done = Promise.all(
    Array.from({ length: n }, (_, i) => {
      const p = `/memories/w${i}.md`;
      const text = `write ${i} `.repeat(2000);
      return upsert(v, p, text).then(
        () => void acked.set(p, text),
        (e: { code?: string }) => void codes.add(e.code ?? 'none'),
      );
    }),
  ).then(() => undefined);
  return { done, acked, codes };
}

describe('locking while the vault is busy', () => {
  for (const ticks of TICKS) {
    it(`a write in flight when the vault locks ${ticks} turns in is kept or refused as locked, never failed as a disk error`, async () => {
      t = await tempVault();
      const w = startWrites(t.vault, 40);
      await turns(ticks);
      t.vault.lock();
      await w.done;
      expect([...w.codes].filter((c) => c !== 'LOCKED')).toEqual([]);
      await t.vault.unlock(PASS);
      expect((await t.vault.verify()).problems).toEqual([]);
      for (const [p, text] of w.acked) expect(await t.vault.memory.readFile(p)).toBe(text);
    });

    it(`unlocking right after a lock ${ticks} turns into a stream of writes keeps every acknowledged write and a vault that verifies`, async () => {
      t = await tempVault();
      const w = startWrites(t.vault, 40);
      await turns(ticks);
      t.vault.lock();
      await t.vault.unlock(PASS);
      await w.done;
      await upsert(t.vault, '/memories/after.md', 'after');
      const v = await t.reopen();
      expect((await v.verify()).problems).toEqual([]);
      for (const [p, text] of w.acked) expect(await v.memory.readFile(p)).toBe(text);
      expect(await v.memory.readFile('/memories/after.md')).toBe('after');
    });

    it(`a rotation running when the vault locks ${ticks} turns in never reports memories as damaged and leaves the vault locked`, async () => {
      t = await tempVault();
      for (let i = 0; i < 30; i++) await upsert(t.vault, `/memories/m${i}.md`, `memory ${i} `.repeat(2000));
      let failure: { code?: string; message?: string } | undefined;
      const rotation = t.vault.rotateKeys(PASS).catch((e: { code?: string; message?: string }) => void (failure = e));
      await turns(ticks);
      t.vault.lock();
      await rotation;
      expect(failure?.code === undefined || failure.code === 'LOCKED').toBe(true);
      expect(t.vault.isUnlocked()).toBe(false);
      await t.vault.unlock(PASS);
      expect((await t.vault.verify()).problems).toEqual([]);
      for (let i = 0; i < 30; i++) expect(await t.vault.memory.readFile(`/memories/m${i}.md`)).toBe(`memory ${i} `.repeat(2000));
      const v = await t.reopen();
      expect((await v.verify()).problems).toEqual([]);
    });

    it(`reads in flight when the vault locks ${ticks} turns in answer or are refused as locked, never called damaged`, async () => {
      t = await tempVault();
      for (let i = 0; i < 30; i++) await upsert(t.vault, `/memories/r${i}.md`, `read ${i} `.repeat(2000));
      const codes = new Set<string>();
      const reads = Promise.all(Array.from({ length: 30 }, (_, i) => t!.vault.memory.readFile(`/memories/r${i}.md`).catch((e: { code?: string }) => void codes.add(e.code ?? 'none'))));
      await turns(ticks);
      t.vault.lock();
      await reads;
      expect([...codes].filter((c) => c !== 'LOCKED')).toEqual([]);
      await t.vault.unlock(PASS);
      expect((await t.vault.verify()).problems).toEqual([]);
    });
  }
});
