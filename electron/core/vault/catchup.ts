/**
 * The catch-up of a vault that holds its lock per call (gate.ts): once the
 * lock is taken, before anything runs under it, the session in memory is
 * made equal to the vault on disk, which other processes of this device may
 * have changed while the lock was free. Cheap in the common case: vault.json
 * compared byte for byte, the manifest's identity read from its first bytes,
 * and only the journal bytes past the known end read and replayed.
 */
import { headerAuthentic, headerModified } from './header';
import type { HeaderFile } from './headerfile';
import type { Session } from './session';
import type { State } from './state';
import type { Store } from './store';
import { VaultError } from './types';
import { m } from '../i18n/message';

/** What a catch-up needs from the vault besides the session and vault.json. */
export interface CatchUpHost {
  /** A store for this vault's current header and the session's keys, not loaded yet. */
  newStore(): Store;
  /** True while `s` is still the vault's session (no lock came meanwhile). */
  isCurrent(): boolean;
  /** Ends the session: keys zeroed, files closed, listeners told (SessionQueue `lock`). */
  lock(): void;
}

export const keysChanged = (): VaultError => new VaultError('LOCKED', m('errors:vault.keysChanged'));

export const wentBack = (): VaultError =>
  new VaultError(
    'ROLLED_BACK',
    m('errors:vault.wentBack'),
  );

/**
 * Brings `s` up to the disk. vault.json first: naming another key epoch (a key
 * rotation elsewhere) or failing its MAC under this session's key ends the
 * session (LOCKED, DAMAGED); a passphrase changed elsewhere keeps the master
 * key and is taken as is. Then the journal tail, or, when someone
 * checkpointed (a new manifest), a fresh load with the segment readers and
 * journal handle of the old store closed. A generation lower than the
 * session's ends the session too (ROLLED_BACK). Notes the generation reached
 * in this device's high-water mark.
 */
export async function catchUp(s: Session, hf: HeaderFile, host: CatchUpHost): Promise<void> {
  let ended = false;
  try {
    await bringUp(s, hf, {
      ...host,
      lock: () => {
        ended = true;
        host.lock();
      },
    });
  } catch (e) {
    // Locked meanwhile by someone else: its keys were wiped under the catch-up, whose failure says nothing about the vault.
    if (!ended && !host.isCurrent()) throw new VaultError('LOCKED', m('errors:vault.locked'));
    throw e;
  }
}

async function bringUp(s: Session, hf: HeaderFile, host: CatchUpHost): Promise<void> {
  const next = await hf.changedOnDisk();
  if (next) {
    const failure =
      next.header.vaultId !== hf.header.vaultId || next.header.manifest !== hf.header.manifest
        ? keysChanged()
        : !headerAuthentic(next.header, s.vmk)
          ? headerModified()
          : (next.header.counter ?? 0) < (hf.header.counter ?? 0)
            ? wentBack()
            : undefined;
    if (failure) {
      host.lock();
      throw failure;
    }
    hf.adopt(next);
    await hf.noteSeen();
  }
  if (await s.store.catchUp(s.state)) {
    hf.hwm.note(s.state.gen);
    return;
  }
  const store = host.newStore();
  let state: State;
  try {
    state = await store.load();
  } catch (e) {
    await store.close();
    throw e;
  }
  if (state.gen < s.state.gen || !host.isCurrent()) {
    await store.close();
    if (host.isCurrent()) host.lock();
    throw wentBack();
  }
  const old = s.store;
  s.store = store;
  s.state = state;
  await old.close();
  hf.hwm.note(state.gen);
}
