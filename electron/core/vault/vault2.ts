/**
 * How a Vault opens, catches up with and verifies a vault as format 2 (the
 * multi-device format of docs/sync-design.md, behind the `format2` flag):
 * the v1 files, if any, are read by today's Store opened read-only and seen
 * as the frozen pseudo-device L (§8); every device's folder by Store2. The
 * device lock lives in the state folder, keyed by vault id (§6).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deriveSubkey, fromUtf8, sameBytes, SUBKEY, wipe } from './crypto';
import { nameKey, succeed2 } from './devices';
import { keysChanged, wentBack } from './catchup';
import { io } from './files';
import type { VaultFs } from './fsio';
import { headerModified, vaultIdBytes, VERSION_2, type Header } from './header';
import type { HeaderFile } from './headerfile';
import { storeKeys, unwrapWithPassphrase, wipeKeys } from './keys';
import { Store } from './store';
import { sealBlob2 } from './sync/blobs2';
import { kputOp, regOp } from './sync/build';
import { isRetired, type SyncState } from './sync/crdt';
import { loadDevice } from './sync/device';
import { L_DEVICE } from './sync/ids';
import { fromV1 } from './sync/from-v1';
import { memoryOps2 } from './sync/ops2';
import { changesBetween, shownHeads } from './sync/follow';
import { DeviceMarks } from './sync/marks';
import { SyncSession, type SyncHost } from './sync/session2';
import { Store2 } from './sync/store2';
import { readOldEpochs, wipeOld, type OldEpoch } from './sync/epochs';
import { closeOldEpochs, finishRotation, ownKeysHold, rotate2, type Rotated } from './sync/rotate2';
import { verify2 } from './sync/contents2';
import { readOnlyError, VaultError, type FormatOptions, type UnlockReport, type VerifyReport } from './types';
import { keyed, m } from '../i18n/message';

/** Set in the internal store once vault.json carries a MAC, so a header stripped of it is refused on any device. */
export const HEADER_MAC_MARK = 'vault/header-mac';

/** True when vaults are opened and made in format 2: the option, else unless MNEMO_FORMAT=1 (tests of format 1 itself). */
export function format2On(o: FormatOptions): boolean {
  return o.format2 ?? process.env.MNEMO_FORMAT !== '1';
}

/**
 * The folder of the device lock of vault `vaultId` (§6): `<stateDir>/locks/<vaultId>/`, holding the
 * lockfile.ts lock and its record, made here if missing (the state folder is this computer's own).
 */
export function deviceLockDir(stateDir: string, vaultId: string): string {
  if (!/^[0-9a-f]{32}$/.test(vaultId)) throw new Error('deviceLockDir: not a vault id');
  const dir = path.join(stateDir, 'locks', vaultId);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // A read-only open locks the file shared, so it must exist before any writer made it.
    fs.closeSync(fs.openSync(path.join(dir, '.vault.lock'), 'a', 0o600));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new VaultError('IO', code === 'EACCES' || code === 'EPERM' ? m('errors:lock.deviceLockDenied') : m('errors:lock.deviceLock'));
  }
  return dir;
}

export interface Open2 {
  dir: string;
  fs: VaultFs;
  header: Header;
  stateDir: string;
  readOnly: boolean;
  journalLimit: number;
  host: SyncHost;
  /** Older key epochs known already (a rotation made here: rotate2.ts); the keys files of this epoch add theirs. */
  older?: OldEpoch[];
  /** Opened by a rotation under its header not yet written: its own note must stay (rotate2.ts `finishRotation`). */
  rotating?: boolean;
}

/**
 * The key epoch of the vault folder's v1 files (a manifest or its leftovers) among `epochs`, if it holds any; `hidden`
 * when it holds v1 files of no epoch among them (their key, in a keys file, has not arrived yet).
 */
async function v1Epoch(o: Open2, epochs: string[]): Promise<{ epoch?: string; hidden: boolean }> {
  const names = await io('errors:io.action.readVault', () => o.fs.readdir(o.dir));
  const epoch = epochs.find((e) => names.some((n) => n.startsWith(`manifest.${e}`)));
  return { ...(epoch ? { epoch } : {}), hidden: !epoch && names.some((n) => /^manifest\.[0-9a-f]{32}/.test(n)) };
}

/** Unlocks a vault as format 2 with master key `vmk` (kept by the session; the caller wipes it on failure). */
export async function openSession2(o: Open2, vmk: Uint8Array): Promise<SyncSession> {
  const keys = storeKeys(vmk);
  const contentKey = deriveSubkey(vmk, SUBKEY.contentId);
  const vaultId = vaultIdBytes(o.header);
  let v1: Store | undefined;
  let store: Store2 | undefined;
  const older: OldEpoch[] = [...(o.older ?? [])];
  try {
    let lState: SyncState | undefined;
    const marks = new DeviceMarks(o.stateDir, o.header.vaultId);
    await marks.load();
    const record = await loadDevice(o.stateDir, o.header.vaultId);
    const device = record?.id;
    // Older epochs whose files are still read: their keys are in this epoch's keys files (epochs.ts).
    for (const e of await io('errors:io.action.readVault', () => readOldEpochs(o.fs, o.dir, vaultId, o.header.manifest, keys.manifest))) {
      if (older.some((x) => x.epoch === e.epoch)) wipeOld([e]);
      else older.push(e);
    }
    // (Not in the session a rotation opens under its new header, `o.rotating`: its note stays until vault.json names it.)
    if (!o.rotating) await finishRotation({ fs: o.fs, dir: o.dir, stateDir: o.stateDir, vaultId: o.header.vaultId, epoch: o.header.manifest, known: older.map((e) => e.epoch), device, readOnly: o.readOnly });
    store = new Store2({ fs: o.fs, dir: o.dir, vaultId, keys, epoch: o.header.manifest, device, readOnly: o.readOnly, marks, segmentRecords: o.journalLimit, older });
    // A succession a crash or a close cut short (succeed2 finishes it: announce2).
    store.left = record?.left;
    const found = await v1Epoch(o, [o.header.manifest, ...older.map((e) => e.epoch)]);
    const v1ep = found.epoch;
    store.v1Hidden = found.hidden;
    if (v1ep) {
      // The v1 part, read as v1 reads it and never written again: the pseudo-device L (under an older key after a rotation).
      const ep = v1ep === o.header.manifest ? undefined : v1ep;
      v1 = new Store(o.dir, vaultId, store.keysOf(ep), v1ep, o.journalLimit, { fs: o.fs, readOnly: true });
      const state = await v1.load();
      const l = fromV1(state.toSnapshot(v1.journalId ?? '', []));
      lState = l.state;
      store.blobs.v1 = { store: v1, refs: l.blobs, ...(ep ? { ep } : {}) };
      store.v1Gen = state.gen;
      store.problems.push(...v1.problems);
    }
    await store.load(lState);
    // A MAC-less header on a vault that once had one: the MAC was stripped. Or one that says format 2, which is always
    // written with a MAC (the upgrade gives one): a v1 header edited, which would otherwise skip the upgrade and its MAC.
    if (o.header.mac === undefined && (o.header.version >= VERSION_2 || store.state.kv.get(HEADER_MAC_MARK)?.vals.size)) throw headerModified();
    const s = new SyncSession(vmk, keys, contentKey, store, o.host);
    await s.refresh();
    return s;
  } catch (e) {
    await store?.close(false);
    await v1?.close();
    wipeKeys(keys);
    wipe(contentKey);
    wipeOld(older);
    throw e;
  }
}

/** The first change of a v1 vault under format 2 (§8): vault.json at version 2, with a MAC, and the mark if the vault has none. */
export async function upgradeHeader(s: SyncSession, hf: HeaderFile, first: () => Promise<void>): Promise<void> {
  // On the newest header: rewriting one this session read before a passphrase change made elsewhere would cross it,
  // and might undo it (the same counter, the old passphrase). Another computer may also have upgraded it already.
  // Followed before `first` writes anything: keys an old build rotated meanwhile end the session here, with no
  // record left under the old keys (a folder of this device no key here reads, then taken for its files gone back).
  await hf.follow(s.vmk, { keysChanged, wentBack });
  if (hf.header.version < VERSION_2) {
    await first();
    await hf.write({ ...hf.header, version: VERSION_2 }, s.vmk, true);
  }
  // The mark unless the vault has it: a header from before MACs may have got its MAC from a passphrase change made here
  // first (still format 1), and without the mark a MAC stripped later would pass on a computer that never saw it.
  if (s.store.state.kv.get(HEADER_MAC_MARK)?.vals.size) return;
  const { bytes, ref } = sealBlob2(s.store.o.vaultId, s.keys, 'internal', new Uint8Array([1]));
  await s.store.append(kputOp(s.view, HEADER_MAC_MARK, ref), bytes);
  await s.refresh();
}

/**
 * vault.json as another computer may have left it: when it or its copies
 * changed, the best authentic copy is taken and kept alone (headerfile-copies.ts
 * `follow`); another key epoch, a header that is not ours, or one gone back
 * ends the session. A passphrase changed elsewhere keeps the master key.
 */
export async function followHeader(s: SyncSession, hf: HeaderFile, lock: () => void): Promise<void> {
  try {
    await hf.follow(s.vmk, { keysChanged, wentBack });
  } catch (e) {
    lock();
    throw e;
  }
}

/**
 * The master key `current` unwraps, for a passphrase change in format 2:
 * vault.json is taken as another computer may have changed it first (so the
 * change builds on the newest), and the passphrase this session was unlocked
 * with still counts when it opens this session's key (the user may not know
 * one set elsewhere meanwhile).
 */
export async function currentKey2(s: SyncSession, hf: HeaderFile, current: string, lock: () => void): Promise<Uint8Array> {
  await followHeader(s, hf, lock);
  const before = hf.unlockedWith;
  try {
    return await unwrapWithPassphrase(hf.header, current);
  } catch (e) {
    if (!(e instanceof VaultError) || e.code !== 'BAD_PASSPHRASE' || !before || before === hf.header) throw e;
    const vmk = await unwrapWithPassphrase(before, current);
    if (sameBytes(vmk, s.vmk)) return vmk;
    wipe(vmk);
    throw e;
  }
}

/**
 * The catch-up of a per-call vault in format 2 (gate.ts): vault.json first
 * (followHeader), then an ingest of every device folder, this device's own
 * included (another process of this computer may have appended to it or
 * checkpointed).
 */
export async function catchUp2(s: SyncSession, hf: HeaderFile, lock: () => void): Promise<void> {
  await followHeader(s, hf, lock);
  await s.store.ingest();
  if (s.store.device) await s.store.resumeOwn();
  await s.refresh();
  await announce2(s);
}

/**
 * A key rotation (or a new recovery key) in format 2 (sync/rotate2.ts), on the newest vault.json: `passphrase` must
 * open it and this session's key, and the new header keeps it. Returns the session under the new keys.
 */
export async function rotateKeys2(s: SyncSession, hf: HeaderFile, passphrase: string, base: Omit<Open2, 'header' | 'older'>, lock: () => void): Promise<Rotated> {
  if (base.readOnly) throw readOnlyError();
  await followHeader(s, hf, lock);
  const vmk = await unwrapWithPassphrase(hf.header, passphrase);
  const same = sameBytes(vmk, s.vmk);
  wipe(vmk);
  if (!same) throw new VaultError('BAD_PASSPHRASE', m('errors:unlock.wrongPassphraseShort'));
  // Its device id minted (and a v1 vault upgraded) first: the new epoch's files are its own.
  await s.nextVid();
  const result = await rotate2(s, hf, passphrase, (header, key, older) => openSession2({ ...base, header, older, rotating: true }, key));
  await hf.noteSeen(true);
  return result;
}

/** The headers of rival rotations (sync/rivals.ts) go once this computer's keys file holds their keys. */
export async function dropRivals(s: SyncSession, hf: HeaderFile): Promise<void> {
  const me = s.store.device;
  if (me && (await ownKeysHold(s.store, me))) await hf.dropOlder(s.store.older);
}

/** `verify` of a format-2 session: damage apart from what is still arriving. */
export async function verifySession2(s: SyncSession, hf: HeaderFile): Promise<VerifyReport> {
  const { problems, waiting } = await verify2(s);
  // A header from before MACs, on a vault that never had one, gets its MAC with the upgrade (its first change): not damage.
  const neverMaced = hf.header.mac === undefined && !s.store.state.kv.get(HEADER_MAC_MARK)?.vals.size;
  if (!neverMaced && !(await hf.authenticOnDisk(s.vmk))) problems.unshift('vault.json: the vault header was modified (its MAC does not match)');
  for (const name of await hf.foreignOnDisk(s.vmk, s.store.older)) problems.push(`${name}: a copy of vault.json that this vault's key does not authenticate: not written with this vault's keys, so it is ignored`);
  if (hf.rolledBack) problems.unshift('vault: rolled back: older than the newest generation this device has seen (accept it with accept-rollback)');
  return { ok: problems.length === 0, problems, ...(waiting.length ? { waiting } : {}) };
}

/** What a format-2 unlock reports: damage found while loading, notices, and what is still arriving. */
export function unlockReport2(s: SyncSession, rolledBack: boolean): UnlockReport {
  const waiting = waitingLines(s);
  const { notices, noticeKeys } = noticesOf(s, 0);
  return {
    rolledBack,
    damaged: [...s.store.problems, ...s.store.report.damage],
    ...(notices ? { notices, noticeKeys } : {}),
    ...(waiting.length ? { waiting } : {}),
  };
}

/** A session's notices from the `from`th on, as text and by key, and how many it has in all. */
export function noticesOf(s: SyncSession | undefined, from: number): Pick<UnlockReport, 'notices' | 'noticeKeys'> & { count: number } {
  const all = s?.store.notices ?? [];
  const fresh = all.slice(from);
  return { count: all.length, ...(fresh.length ? { notices: fresh.map((n) => n.text), noticeKeys: fresh.map(keyed) } : {}) };
}

const waitingLines = (s: SyncSession) => s.store.report.waiting.map((w) => `device ${w.device.slice(0, 8)}…: ${w.what}`);

/** The name a device first gives itself (the computer's host name, shortened; renamed by the user later). */
const deviceName = () => (os.hostname().trim() || 'computer').slice(0, 64);

/**
 * A computer that has not written to a vault other computers write to says it is there (its host name, the register
 * `device-name:<dev>`) as soon as it sees them (at unlock, or when an ingest first finds another computer), before it
 * can change anything: they then wait until it has seen what replaced a value before they forget the value (kv.ts
 * `superseded`), so its later changes, made offline on what it read, still merge against the value they replace. The
 * first computer (which wrote before it saw others) names itself then, and one the user forgot on another computer says
 * it again when it comes back, which makes it known again (crdt.ts `isRetired`). A single-writer vault is left
 * unchanged (its first change upgrades it, and its values, pseudo-device L, are never forgotten). Not being able to
 * write it (a full disk) keeps no one out: the first change then says it, or fails.
 */
export async function announce2(s: SyncSession): Promise<void> {
  // A computer gone on under a new id: the old name may arrive after its first write (succeed2 writes only what is missing).
  if (!s.host.readOnly && s.store.left && s.store.device) await succeed2(s, s.store.left).catch(() => undefined);
  if (!s.host.readOnly && s.store.giveWay.redo.length && (await redoDropped(s))) await s.store.removeDropped();
  // After a key rotation: this computer's keys file and checkpoint in the new epoch, then its old files go (rotate2.ts).
  if (!s.host.readOnly && s.store.older.length) await closeOldEpochs(s).catch(() => undefined);
  const known = () => [...s.store.state.devices.keys()];
  const others = () => known().some((d) => d !== L_DEVICE && d !== s.store.device);
  // Known, named, and not forgotten ("Forget this computer" on another one, which this one has seen since it last wrote).
  const named = (me: string) => s.view.kv.register(nameKey(me), 'newest') !== undefined;
  const counted = (me: string | undefined) => me !== undefined && known().includes(me) && named(me) && !isRetired(s.store.state, me);
  if (s.host.readOnly || counted(s.store.device) || !others()) return;
  try {
    // A first write may say it already (the upgrade of a vault this session read as single-writer).
    await s.nextVid();
    const me = s.store.device;
    // Its own name register only: a name the user gave it (`device-label:`, devices.ts) stays as it is.
    if (me && !counted(me)) await s.commit(regOp(s.view, nameKey(me), deviceName()));
    // Confirmed at once: the others apply a record only once its writer has confirmed it.
    await s.store.ack();
  } catch {
    // As above: said with the first change instead.
  }
}

/**
 * The memory texts this computer wrote on a branch it gave way on (give-way.ts), written again under its
 * new id as new versions (source system, their author kept): at the same path, over whatever is there now, which stays
 * in the history. One that cannot be written (its path is now a folder's) counts as lost. True when all were written
 * (only then do the files that held them go: give-way.ts `remove`).
 */
async function redoDropped(s: SyncSession): Promise<boolean> {
  const mem = memoryOps2(() => s);
  let all = true;
  for (const r of s.store.giveWay.redo.splice(0)) {
    try {
      await mem.writeFile(r.path, fromUtf8(r.text), { mode: 'upsert', source: 'system', ...(r.by ? { by: r.by } : {}) });
    } catch {
      s.store.giveWay.redoLost++;
      all = false;
    } finally {
      wipe(r.text);
    }
  }
  return all;
}

/** `Vault.ingest`: confirms this device's last changes, reads every device folder again, and says what is still arriving. */
export async function ingest2(s: SyncSession, hf: HeaderFile, readOnly: boolean, lock: () => void): Promise<string[]> {
  if (!readOnly) await s.store.ack();
  await followHeader(s, hf, lock);
  const before = shownHeads(s.view);
  const applied = await s.ingest();
  // This computer's own files were put back from an older copy while it was open: go on past what came back.
  if (s.store.overtaken && !readOnly) await s.store.resumeOwn();
  if (applied) {
    s.arrivals++;
    for (const change of changesBetween(before, s.view)) s.host.emit(change);
  }
  await announce2(s);
  return waitingLines(s);
}

/**
 * When a format-2 change is confirmed (an `ack`, §2.5): at once per call (the
 * lock is let go next) or with a delay of 0, else once a burst of changes is
 * over, as a queued task holding the lock.
 */
export class AckTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly delayMs: number,
    private readonly task: (fn: () => Promise<void>) => Promise<void>,
    private readonly current: () => SyncSession | undefined,
  ) {}

  async after(s: SyncSession | undefined, perCall: boolean): Promise<void> {
    if (!s) return;
    if (perCall || this.delayMs === 0) return s.store.ack();
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.current() === s) void this.task(async () => (this.current() === s ? s.store.ack() : undefined)).catch(() => undefined);
    }, this.delayMs);
    this.timer.unref?.();
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
