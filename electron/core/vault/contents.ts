/**
 * The vault's contents as its callers reach them: the memory namespace, the
 * internal store, kept versions and the trash. Each change goes through the
 * mutation queue holding the lock (session.ts `task`), and each read that goes
 * to the disk holds the lock, so a vault held per call reads what is there
 * now. Synchronous reads (stat, list, history, keys…) answer from the state in
 * memory, as fresh as the last catch-up (gate.ts). VaultKeys (vault-keys.ts)
 * adds unlocking and the keys, Vault (vault.ts) opening.
 */
import type { LockGate } from './gate';
import { readVersion } from './history';
import { importBatch, internalStore, memoryOps, type ImportItem } from './ops';
import { SessionQueue } from './session';
import { forgetDevice2, listDevices2, renameDevice2, type DeviceEntry } from './devices';
import { emptyTrash, listTrash, restoreFromTrash } from './trash';
import { conflicts2, type ConflictInfo } from './sync/conflicts2';
import { emptyTrash2, history2, readVersion2, restoreDeleted2, setDepth2, trash2, versions2, writer2 } from './sync/contents2';
import { importBatch2, internalStore2, memoryOps2 } from './sync/ops2';
import { readOnlyError, VaultError, type ChangeSource, type FileMeta, type HistoryEntry, type InternalStore, type MemoryOps, type Provenance, type SizeLimits, type TrashEntry, type VersionEntry } from './types';
import { m } from '../i18n/message';

export abstract class VaultContents extends SessionQueue {
  readonly memory: MemoryOps;
  readonly internal: InternalStore;
  /** The memory operations without the queue: only inside a queued task. */
  protected readonly rawOps: MemoryOps;
  abstract readonly readOnly: boolean;

  constructor(gate: LockGate) {
    super(gate);
    // Format 1 or 2, whichever this vault's session is (format 2: sync/ops2.ts).
    const v1 = memoryOps(() => this.unlocked());
    const v2 = memoryOps2(() => this.unlocked2());
    const ops = (): MemoryOps => (this.session2 ? v2 : v1);
    this.rawOps = {
      stat: (p) => ops().stat(p),
      kind: (p) => ops().kind(p),
      list: (d, depth) => ops().list(d, depth),
      totalSize: () => ops().totalSize(),
      readFile: (p) => ops().readFile(p),
      writeFile: (p, text, o) => ops().writeFile(p, text, o),
      mkdir: (p, source) => ops().mkdir(p, source),
      remove: (p, source, by) => ops().remove(p, source, by),
      rename: (a, b, source, by) => ops().rename(a, b, source, by),
    };
    const raw = this.rawOps;
    // Reads that go to the disk hold the lock too: a per-call vault reads what is there now, not a segment another process removed.
    this.memory = {
      stat: raw.stat,
      kind: raw.kind,
      list: raw.list,
      readFile: (p) => this.hold(() => raw.readFile(p)),
      totalSize: raw.totalSize,
      writeFile: (p, text, opts) => this.task(() => raw.writeFile(p, text, opts)),
      mkdir: (p, source) => this.task(() => raw.mkdir(p, source)),
      remove: (p, source, by) => this.task(() => raw.remove(p, source, by)),
      rename: (a, b, source, by) => this.task(() => raw.rename(a, b, source, by)),
    };
    const i1 = internalStore(() => this.unlocked(), (fn) => this.task(fn));
    const i2 = internalStore2(() => this.unlocked2(), (fn) => this.task(fn));
    const internal = (): InternalStore => (this.session2 ? i2 : i1);
    this.internal = {
      get: (key) => this.hold(() => internal().get(key)),
      getJSON: <T>(key: string) => this.hold(() => internal().getJSON<T>(key)),
      put: (key, value) => internal().put(key, value),
      putJSON: (key, value) => internal().putJSON(key, value),
      delete: (key) => internal().delete(key),
      keys: (prefix) => internal().keys(prefix),
      scheme: () => (this.session2 ? 2 : 1),
      device: (create) => (this.session2 ? i2.device!(create) : Promise.resolve(undefined)),
      sweepable: (key) => (this.session2 ? i2.sweepable!(key) : true),
      version: (key) => (this.session2 ? i2.version!(key) : undefined),
    };
  }

  /** Imports files as one change, all or none (see ops.ts `importBatch`); returns how many were written. */
  importFiles(items: ImportItem[], opts: Parameters<typeof importBatch>[2]): Promise<number> {
    return this.task(() => (this.session2 ? importBatch2(this.session2, items, opts) : importBatch(this.unlocked(), items, opts)));
  }

  exclusive<T>(fn: (ops: MemoryOps) => Promise<T>, opts: { confirmed?: boolean } = {}): Promise<T> {
    return this.task(async () => {
      // Format 2: own records are confirmed first (an `ack`, sync-design §2.5 rule 3), else a copy of the files
      // would hold the last writes unconfirmed, and no other computer would ever apply them.
      if (opts.confirmed && this.session2) await this.session2.store.ack();
      return fn(this.rawOps);
    });
  }

  history(p: string): HistoryEntry[] {
    return this.session2 ? history2(this.session2, p) : this.unlocked().state.history(p);
  }

  /** The text of a version of `p` (see history.ts `readVersion`). */
  async readVersion(p: string, version: number): Promise<string> {
    return this.hold(() => (this.session2 ? readVersion2(this.session2, p, version) : readVersion(this.unlocked(), this.rawOps, p, version)));
  }

  /** Writes an old version's text as a new version, recorded as a restore of that version (queued); held to `limits` when given. */
  restore(p: string, version: number, source: ChangeSource, limits?: SizeLimits): Promise<FileMeta> {
    return this.task(async () =>
      this.rawOps.writeFile(p, await this.readVersion(p, version), { mode: 'upsert', source, by: { kind: 'restore', fromVersion: version }, ...(limits ? { limits } : {}) }),
    );
  }

  /** Every kept version of `p` and its current one (last), each with who wrote it. */
  versions(p: string): VersionEntry[] {
    return this.session2 ? versions2(this.session2, p) : this.unlocked().state.versions(p);
  }

  /** Who wrote the current version of memory file `p`, when recorded. */
  writer(p: string): Provenance | undefined {
    return this.session2 ? writer2(this.session2, p) : this.unlocked().state.writer(p);
  }

  /** Deleted memories whose versions are still kept. */
  trash(): TrashEntry[] {
    return this.session2 ? trash2(this.session2) : listTrash(this.unlocked());
  }

  /** Brings a deleted memory back (see trash.ts `restoreFromTrash`); queued; held to `limits` when given. */
  restoreDeleted(p: string, version?: number, limits?: SizeLimits): Promise<FileMeta> {
    return this.task(() =>
      this.session2 ? restoreDeleted2(this.session2, this.rawOps, p, version, limits) : restoreFromTrash(this.unlocked(), this.rawOps, (q, v) => this.readVersion(q, v), p, version, limits),
    );
  }

  /** Permanently removes deleted memories' versions (see trash.ts `emptyTrash`); queued. */
  emptyTrash(paths?: string[]): Promise<number> {
    return this.task(async () => {
      if (this.readOnly) throw readOnlyError();
      return this.session2 ? emptyTrash2(this.session2, paths) : emptyTrash(this.unlocked(), paths);
    });
  }

  historyDepth(): number {
    return this.session2 ? this.session2.view.depth() : this.unlocked().state.depth;
  }

  setHistoryDepth(n: number): Promise<void> {
    if (!Number.isInteger(n) || n < 0 || n > 1000) return Promise.reject(new VaultError('INVALID', m('errors:history.depthRange', { min: 0, max: 1000 })));
    return this.task(async () => (this.session2 ? setDepth2(this.session2, n) : this.unlocked().commit({ t: 'depth', n })));
  }

  /** The computers that wrote to this vault (format 2; see devices.ts). Empty for a vault only this computer writes (format 1). */
  devices(): Promise<DeviceEntry[]> {
    return this.hold(async () => (this.session2 ? listDevices2(this.session2) : (this.unlocked(), [])));
  }

  /**
   * The conflicts to review (format 2; see sync/conflicts2.ts): memories two computers changed at once, and deletes
   * that met an edit. None for a vault only this computer writes (format 1).
   */
  conflicts(): ConflictInfo[] {
    return this.session2 ? conflicts2(this.session2) : (this.unlocked(), []);
  }

  /** Names computer `id` on every computer (queued). */
  renameDevice(id: string, name: string): Promise<void> {
    return this.task(async () => renameDevice2(this.multiDevice(), id, name));
  }

  /** "Forget this computer" (queued): see devices.ts `forgetDevice2`. */
  forgetDevice(id: string): Promise<void> {
    return this.task(async () => forgetDevice2(this.multiDevice(), id));
  }

  private multiDevice() {
    if (this.session) throw new VaultError('INVALID', m('errors:devices.oneComputer'));
    if (this.readOnly) throw readOnlyError();
    return this.unlocked2();
  }
}
