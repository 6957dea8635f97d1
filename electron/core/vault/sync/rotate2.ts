/**
 * Key rotation in format 2 (docs/sync-design.md §7, §12.10), and a new
 * recovery key, which is one. This computer:
 * 1. notes in its state folder that it is rotating to epoch E′ (so a crash
 *    before vault.json names E′ leaves nothing behind: `finishRotation`);
 * 2. writes its keys file in `devices/<me>/<E′>/`: the master keys of E and of
 *    every older epoch still read, sealed under E′'s key;
 * 3. opens the vault under E′ (reading E through that file) and writes its
 *    checkpoint there, every live blob sealed again under E′'s keys;
 * 4. replaces vault.json with a header of E′ (its passphrase, a new recovery
 *    key), and drops the note.
 * Until 4, vault.json names E and nothing a reader of E reads has changed; from
 * 4 on, every computer unlocks E′ with the same passphrase, reads E through the
 * keys file, writes its own keys file and checkpoint in E′ (`closeOldEpochs`),
 * and removes its own files of E once every computer has written in E′.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes, toHex, wipe } from '../crypto';
import { io } from '../files';
import type { VaultFs } from '../fsio';
import type { Header } from '../header';
import type { HeaderFile } from '../headerfile';
import { passphraseCost, passphraseSlot, recoverySlot, storeKeys, wipeKeys } from '../keys';
import { liveBlobs } from './blobs2';
import { isRetired } from './crdt';
import { isKeysFile, readOldEpochs, wipeOld, writeKeysFile, type OldEpoch } from './epochs';
import type { Store2 } from './store2';
import { L_DEVICE } from './ids';
import { deviceDir, parseFileName, tempPrefix } from './layout';
import type { SyncSession } from './session2';

/** The state-folder note of a rotation under way: `<vaultId>.rotating`, the epoch it rotates to. */
const noteFile = (stateDir: string, vaultId: string) => path.join(stateDir, `${vaultId}.rotating`);

async function writeNote(stateDir: string, vaultId: string, epoch: string): Promise<void> {
  const file = noteFile(stateDir, vaultId);
  const tmp = `${file}.tmp`;
  await fs.mkdir(stateDir, { recursive: true, mode: 0o700 });
  const fh = await fs.open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(JSON.stringify({ epoch }));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.rename(tmp, file);
}

async function readNote(stateDir: string, vaultId: string): Promise<string | undefined> {
  try {
    const j = JSON.parse(await fs.readFile(noteFile(stateDir, vaultId), 'utf8')) as { epoch?: unknown };
    return typeof j.epoch === 'string' && /^[0-9a-f]{32}$/.test(j.epoch) ? j.epoch : undefined;
  } catch {
    return undefined;
  }
}

const dropNote = (stateDir: string, vaultId: string) => fs.rm(noteFile(stateDir, vaultId), { force: true });

/**
 * A rotation this computer began and did not finish (a crash before vault.json named its epoch): its folder of that
 * epoch holds only copies of what the vault held (keys, checkpoint, packs) and nobody reads it: removed. A rotation
 * that did name its epoch only leaves the note: so does one whose epoch a keys file of this epoch names (`known`): it
 * was named once, and its folder may hold what this computer wrote since. Best effort.
 */
export async function finishRotation(o: { fs: VaultFs; dir: string; stateDir: string; vaultId: string; epoch: string; known: readonly string[]; device: string | undefined; readOnly: boolean }): Promise<void> {
  if (o.readOnly) return;
  const epoch = await readNote(o.stateDir, o.vaultId);
  if (!epoch) return;
  if (epoch !== o.epoch && !o.known.includes(epoch) && o.device) await removeOwnFolder(o.fs, path.join(o.dir, deviceDir(o.device, epoch)), o.device).catch(() => undefined);
  await dropNote(o.stateDir, o.vaultId).catch(() => undefined);
}

/** Removes a folder of this device: only names this format writes (and its own temps), then the folder if empty. */
async function removeOwnFolder(fsx: VaultFs, dir: string, device: string): Promise<void> {
  const names = await fsx.readdir(dir).catch(() => [] as string[]);
  for (const n of names) if (parseFileName(n) || isKeysFile(n) || n.startsWith(tempPrefix(device))) await fsx.unlink(path.join(dir, n));
  await fsx.syncDir(dir).catch(() => undefined);
  // (Left when something else is in it: anyone's file is never removed.)
  await fsx.rmdir(dir).catch(() => undefined);
}

export interface Rotated {
  session: SyncSession;
  recoveryKey: string;
}

/**
 * Rotates the keys of session `s` (unlocked, writable, with its device id): see above. `open` opens the vault under
 * a header and master key, with older epochs given. On failure nothing is named, every new key is wiped and this
 * computer's folder of the new epoch is removed.
 */
export async function rotate2(
  s: SyncSession,
  hf: HeaderFile,
  passphrase: string,
  open: (header: Header, vmk: Uint8Array, older: OldEpoch[]) => Promise<SyncSession>,
): Promise<Rotated> {
  const st = s.store;
  const me = st.device!;
  const header = hf.header;
  const stateDir = s.host.stateDir;
  const vmk = randomBytes(32);
  const epoch = toHex(randomBytes(16));
  const keys = storeKeys(vmk);
  // Every key this computer reads with now: the one it rotates from first.
  const older: OldEpoch[] = [{ epoch: header.manifest, vmk: s.vmk.slice(), keys: storeKeys(s.vmk) }, ...st.older.map((e) => ({ epoch: e.epoch, vmk: e.vmk.slice(), keys: storeKeys(e.vmk) }))];
  let next: SyncSession | undefined;
  let naming = false;
  const dir = path.join(st.o.dir, deviceDir(me, epoch));
  // A rotation of this computer that failed once vault.json's write was tried: settled first (its folder goes unless
  // the header names it; here it does not, or the header would have been followed and this session ended).
  await finishRotation({ fs: st.fs, dir: st.o.dir, stateDir, vaultId: s.host.vaultId, epoch: header.manifest, known: st.older.map((e) => e.epoch), device: me, readOnly: false });
  try {
    const recovery = recoverySlot(header, vmk);
    const slots = [await passphraseSlot(header, passphrase, passphraseCost(header), vmk), recovery.slot];
    const nextHeader: Header = { ...header, manifest: epoch, slots };
    await io('errors:io.action.saveIndex', () => writeNote(stateDir, s.host.vaultId, epoch));
    await io('errors:io.action.saveIndex', () => writeKeysFile(st.fs, st.o.dir, st.o.vaultId, keys.manifest, me, epoch, older));
    next = await open(nextHeader, vmk, older);
    // Everything this computer holds, in its checkpoint of the new epoch, the blobs sealed again under its keys.
    await next.checkpoint();
    naming = true;
    await hf.write(nextHeader, vmk);
    await dropNote(stateDir, s.host.vaultId).catch(() => undefined);
    wipeKeys(keys);
    return { session: next, recoveryKey: recovery.text };
  } catch (e) {
    if (next) {
      await next.store.close(false).catch(() => undefined);
      next.wipe();
    } else {
      wipe(vmk);
      wipeOld(older);
    }
    wipeKeys(keys);
    // Nothing names the new epoch: its folder goes. Once vault.json was being written it may name it on disk whatever
    // the write said (its rename done, the folder's sync failed): the note stays, and the next open decides by the
    // header it unlocks (`finishRotation`).
    if (!naming) {
      await removeOwnFolder(st.fs, dir, me).catch(() => undefined);
      await dropNote(stateDir, s.host.vaultId).catch(() => undefined);
    }
    throw e;
  }
}

/**
 * The close of older epochs on this computer (docs/sync-design.md §12.10), at each unlock and catch-up while an older
 * epoch's files are read: once it has its own files there, it writes its keys file and a checkpoint in this epoch
 * (which seals every blob found only under an older key again); once every other computer known and not forgotten
 * has written in this epoch too, and every blob its old files held lies in this epoch, it removes its own files of
 * the older epochs. Nothing of another computer is ever removed.
 */
export async function closeOldEpochs(s: SyncSession): Promise<void> {
  const st = s.store;
  const me = st.device;
  if (!me || st.o.readOnly || !st.older.length || !st.journal) return;
  const own = st.folders.get(me);
  const oldTop = Math.max(0, ...(own?.segments ?? []).filter((x) => x.ep).flatMap((x) => x.records.map((r) => (r.seq === undefined ? 0 : r.seq + r.count - 1))), ...[...(own?.old?.keys() ?? [])].filter((n) => n.startsWith('c-')).map(seqOf));
  const oldDirs: Array<{ dir: string; ep: string }> = [];
  for (const e of st.older) {
    const dir = path.join(st.o.dir, deviceDir(me, e.epoch));
    const names = await st.fs.readdir(dir).catch(() => [] as string[]);
    if (names.some((n) => parseFileName(n) || isKeysFile(n))) oldDirs.push({ dir, ep: e.epoch });
  }
  if (!oldDirs.length) {
    if (st.older.length && !(await ownKeysHold(st, me))) await io('errors:io.action.saveIndex', () => writeKeysFile(st.fs, st.o.dir, st.o.vaultId, st.o.keys.manifest, me, st.o.epoch, st.older));
    return;
  }
  const here = await st.fs.readdir(st.folderOf(me)).catch(() => [] as string[]);
  // Its keys file holds every older key it reads with (one learnt since, from a rival rotation, too).
  if (!(await ownKeysHold(st, me))) await io('errors:io.action.saveIndex', () => writeKeysFile(st.fs, st.o.dir, st.o.vaultId, st.o.keys.manifest, me, st.o.epoch, st.older));
  const covered = Math.max(0, ...here.filter((n) => parseFileName(n)?.kind === 'c').map(seqOf));
  if (!covered || covered < oldTop) await s.checkpoint();
  // May they go? Every other computer writes in this epoch (so none still reads only the old one), and this one's
  // checkpoint here covers its old seqs and every blob its old files held.
  const now = await st.fs.readdir(st.folderOf(me)).catch(() => [] as string[]);
  if (Math.max(0, ...now.filter((n) => parseFileName(n)?.kind === 'c').map(seqOf)) < oldTop) return;
  await st.ingest();
  for (const dev of st.state.devices.keys()) {
    if (dev === me || dev === L_DEVICE || isRetired(st.state, dev)) continue;
    const f = st.folders.get(dev);
    const joined = f && (f.segments.some((x) => !x.ep) || f.checkpoints.some((n) => !f.old?.has(n)));
    if (!joined) return;
  }
  const mineOld = st.folders.get(me);
  const blocked = () => [...liveBlobs(st.state).keys()].some((id) => !st.blobs.current(id) && st.blobs.placesOf(id, me).some((p) => p.ep !== undefined));
  // Another computer may have sealed it again (its rotation's checkpoint): where, its newest checkpoint says, which
  // this session may not have read (one opened later joins no checkpoint it does not need). Else sealed again here.
  // Once per session: a blob that cannot be read (damaged) would otherwise cost a checkpoint at every ingest.
  if (blocked() && !resealTried.has(st)) {
    resealTried.add(st);
    await st.learnIndexes();
    if (blocked()) await s.checkpoint();
  }
  if (blocked()) return;
  for (const { dir, ep } of oldDirs) {
    await removeOwnFolder(st.fs, dir, me);
    for (const x of mineOld?.segments ?? []) if (x.ep === ep) st.blobs.dropFile(me, x.name, ep);
    for (const [n, e] of mineOld?.old ?? []) if (e === ep) st.blobs.dropFile(me, n, ep);
  }
  await st.ingest();
}

const seqOf = (name: string): number => parseInt(name.slice(2, 14), 16);

/** The stores whose blobs held back the close once and were looked for and sealed again (closeOldEpochs). */
const resealTried = new WeakSet<object>();

/** True when this device's own keys files of this epoch hold every older key it reads with. */
export async function ownKeysHold(st: Store2, me: string): Promise<boolean> {
  // Known once per session and set of older keys: every catch-up of a per-call vault (CLI, MCP) asks, and the answer
  // only changes when a key is learnt (or this computer writes its keys file, which it then notes here).
  if (keysHeld.get(st) === st.older.length) return true;
  const have = await readOldEpochs(st.fs, st.o.dir, st.o.vaultId, st.o.epoch, st.o.keys.manifest, me).catch(() => [] as OldEpoch[]);
  const ok = st.older.every((e) => have.some((h) => h.epoch === e.epoch));
  wipeOld(have);
  if (ok) keysHeld.set(st, st.older.length);
  return ok;
}

/** Per store, how many older keys its own keys files were last found to hold (ownKeysHold). */
const keysHeld = new WeakMap<object, number>();
