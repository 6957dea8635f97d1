/**
 * Key rotation: a new master key, every live blob re-encrypted under it into a
 * new manifest epoch, and vault.json switched over in one atomic replace. Until
 * that replace the old vault is untouched: the new epoch only appends to its
 * own journal (no checkpoint, no collection), and the old epoch's files are
 * removed by the caller only after the new vault.json is durable. So a crash
 * at any point leaves either the old keys or the new ones working, never
 * neither.
 */
import { randomBytes, toHex, wipe } from './crypto';
import { vaultIdBytes, type Header } from './header';
import { passphraseSlot, recoverySlot, storeKeys, wipeKeys } from './keys';
import { State, type HistRec } from './state';
import { liveSegments, Store, type StoreKeys } from './store';
import type { Unlocked } from './ops';
import type { KdfParams } from './types';

export interface Rotated {
  vmk: Uint8Array;
  keys: StoreKeys;
  store: Store;
  state: State;
  live: Set<string>;
  recoveryKey: string;
}

/**
 * Re-encrypts everything in `old` under a fresh master key and switches
 * vault.json to it. The returned store collects nothing until the caller sets
 * `named` (after this returns, vault.json names it). On failure every new key
 * is wiped and the old vault is as it was.
 */
export async function rotate(dir: string, header: Header, old: Unlocked, passphrase: string, writeHeader: (h: Header, vmk: Uint8Array) => Promise<void>, journalLimit?: number): Promise<Rotated> {
  const vmk = randomBytes(32);
  const keys = storeKeys(vmk);
  const manifest = toHex(randomBytes(16));
  const src = old.state;
  const state = State.empty(src.depth, Date.now());
  let store: Store | undefined;
  try {
    store = await Store.initialize(dir, vaultIdBytes(header), keys, manifest, state, journalLimit, { fs: old.store.fs });
    store.named = false;
    const target = store;
    const copy = async (kind: 'blobs' | 'internal', ref: HistRec['b'], subject: string) => {
      const plain = await old.store.readBlob(kind, ref, subject);
      const sealed = target.sealBlob(kind, plain);
      const size = plain.length;
      wipe(plain);
      return { sealed, size };
    };
    const add = async (op: Parameters<Store['append']>[1], blob?: Parameters<Store['append']>[2]) => {
      // Never checkpoint here: a checkpoint would collect the old epoch's files while vault.json still names them.
      state.apply(await target.appendHere(state, op, blob, false));
    };
    for (const [p, d] of src.dirs) await add({ t: 'mkdir', p, at: d.c });
    const paths = new Set([...src.files.keys(), ...src.hist.keys()]);
    for (const p of paths) {
      for (const h of src.hist.get(p) ?? []) {
        const { sealed } = await copy('blobs', h.b, p);
        await add({ t: 'write', p, b: sealed.ref, s: h.s, v: h.v, at: h.m, ...(h.w ? { w: h.w } : {}) }, sealed);
      }
      const f = src.files.get(p);
      if (f) {
        const { sealed } = await copy('blobs', f.b, p);
        await add({ t: 'write', p, b: sealed.ref, s: f.s, v: f.v, at: f.m, ...(f.w ? { w: f.w } : {}) }, sealed);
      } else {
        await add({ t: 'rm', p, at: Date.now() });
      }
    }
    // Writing a deleted file's history recreated its folders; remove the ones that were gone.
    for (const p of [...state.dirs.keys()].sort().reverse()) if (!src.dirs.has(p) && state.dirs.has(p)) await add({ t: 'rm', p, at: Date.now() });
    // Deletion records as they were (the re-created deletions above are not news); the checkpoint below stores them.
    state.trash.clear();
    for (const [p, t] of src.trash) if (state.hist.has(p) && !state.files.has(p)) state.trash.set(p, { ...t });
    for (const [k, ref] of src.internal) {
      const { sealed } = await copy('internal', ref, `internal:${k}`);
      await add({ t: 'iput', k, b: sealed.ref }, sealed);
    }
    // Keep the generation rising so this device's rollback mark stays meaningful.
    state.gen = Math.max(state.gen, src.gen + 1);
    await store.flush();
    await store.checkpoint(state, false);
    const passSlot = header.slots.find((s) => s.type === 'passphrase');
    const kdf: KdfParams = passSlot?.type === 'passphrase' ? passSlot.kdf : { opslimit: 2, memlimit: 64 * 1024 * 1024 };
    const recovery = recoverySlot(header, vmk);
    await writeHeader({ ...header, manifest, slots: [await passphraseSlot(header, passphrase, kdf, vmk), recovery.slot] }, vmk);
    return { vmk, keys, store, state, live: liveSegments(state), recoveryKey: recovery.text };
  } catch (e) {
    await store?.close();
    wipeKeys(keys);
    wipe(vmk);
    throw e;
  }
}
