/**
 * Simulated computers for the sync simulator (docs/sync-design.md §9.2):
 * each has its own state folder and its own replica of the vault on its own
 * SimFs, opens the vault as format 2, and logs every write whose promise
 * resolved (acknowledged) and every file-system change it made. A power cut
 * throws the running vault away and reopens the disk the cut left; the fork
 * case lets the carrier copy a journal record that the cut then loses.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Vault } from '../../../electron/core/vault/vault';
import type { OpenMode, VaultFile, VaultFs } from '../../../electron/core/vault/fsio';
import type { OpenOptions } from '../../../electron/core/vault/types';
import { SimFs, type Image } from '../vault/sim-fs';
import type { Replica } from './carrier';

/** A write whose promise resolved: it must be on every device after settling. */
export type Ack =
  | { device: string; kind: 'file'; text: string }
  | { device: string; kind: 'kv'; key: string; text: string }
  /** A turn saved in the shared conversation; `back`: taken back since (or maybe, when the power cut the rewind). */
  | { device: string; kind: 'turn'; text: string; back?: boolean };

/** A file-system change a vault made, relative to its replica's root. */
export interface Mutation {
  op: string;
  path: string;
}

export const SIM_OPTS: OpenOptions = { format2: true, ackDelayMs: 3_600_000, journalLimit: 8 };

/** A VaultFs over one SimFs that logs every change and can cut the power in the middle of a journal write. */
class Watched implements VaultFs {
  constructor(
    readonly sim: SimFs,
    private readonly dev: SimDevice,
  ) {}

  private rel(p: string): string {
    return path.relative(this.sim.root, p);
  }

  private log(op: string, p: string): void {
    this.dev.mutations.push({ op, path: this.rel(p) });
  }

  async open(file: string, mode: OpenMode): Promise<VaultFile> {
    if (mode !== 'read') this.log(`open ${mode}`, file);
    const fh = await this.sim.open(file, mode);
    const dev = this.dev;
    const sim = this.sim;
    return {
      dsync: fh.dsync,
      read: (b, pos) => fh.read(b, pos),
      async write(b, pos) {
        const fork = dev.forkArmed && mode.startsWith('journal') ? dev.forkArmed : undefined;
        // The file as it was before this write: the power cut comes before the write is durable.
        const rel = path.relative(sim.root, file);
        const before = fork ? fileIn(sim.image('lost'), rel) : undefined;
        const n = await fh.write(b, pos);
        if (fork) {
          dev.forkArmed = undefined;
          // What the carrier delivered meanwhile is on disk (a sync engine syncs what it writes); only this write is lost.
          await fork(() => withFile(sim.image('lost'), rel, before));
          throw Object.assign(new Error('power cut'), { code: 'EIO' });
        }
        return n;
      },
      truncate: (n) => {
        this.log('truncate', file);
        return fh.truncate(n);
      },
      sync: () => fh.sync(),
      datasync: () => fh.datasync(),
      close: () => fh.close(),
    };
  }
  readFile(file: string) {
    return this.sim.readFile(file);
  }
  rename(from: string, to: string) {
    this.log('rename-from', from);
    this.log('rename-to', to);
    return this.sim.rename(from, to);
  }
  unlink(file: string) {
    this.log('unlink', file);
    return this.sim.unlink(file);
  }
  rmdir(dir: string) {
    this.log('rmdir', dir);
    return this.sim.rmdir(dir);
  }
  mkdir(dir: string) {
    return this.sim.mkdir(dir);
  }
  readdir(dir: string) {
    return this.sim.readdir(dir);
  }
  stat(file: string) {
    return this.sim.stat(file);
  }
  syncDir(dir: string) {
    return this.sim.syncDir(dir);
  }
}

/** The bytes of `rel` in an image, if there. */
function fileIn(image: Image, rel: string): Uint8Array | undefined {
  let at: Image | Uint8Array | undefined = image;
  for (const part of rel.split(path.sep)) at = at instanceof Map ? at.get(part) : undefined;
  return at instanceof Uint8Array ? at : undefined;
}

/** `image` with `rel` set to `bytes` (removed when undefined). */
function withFile(image: Image, rel: string, bytes: Uint8Array | undefined): Image {
  const parts = rel.split(path.sep);
  let dir: Image = image;
  for (const part of parts.slice(0, -1)) {
    const next = dir.get(part);
    if (!(next instanceof Map)) return image;
    dir = next;
  }
  if (bytes) dir.set(parts.at(-1)!, bytes);
  else dir.delete(parts.at(-1)!);
  return image;
}

export class SimDevice {
  vault: Vault | undefined;
  readonly replica: Replica;
  readonly acks: Ack[] = [];
  readonly mutations: Mutation[] = [];
  /**
   * Set to make the next journal write a fork: the carrier copies it, then the power goes before it is durable.
   * Called with the crash image: the disk as it is then, but that file as it was before the write.
   */
  forkArmed: ((crashImage: () => Image) => Promise<void>) | undefined;
  crashes = 0;

  constructor(
    readonly name: string,
    /** A real folder (the v1 in-folder lock lives there); everything else of the replica is simulated. */
    readonly root: string,
    readonly stateDir: string,
    image: Image = new Map(),
  ) {
    this.replica = { name, sim: new SimFs(root, image), online: true };
  }

  get sim(): SimFs {
    return this.replica.sim;
  }

  /** A VaultFs for the replica's disk as it is now (a cut replaces the disk; the old vault keeps writing to the old one). */
  fs(): VaultFs {
    return new Watched(this.sim, this);
  }

  async open(recoveryKey: string): Promise<Vault> {
    this.vault = await Vault.open(this.root, { ...SIM_OPTS, fs: this.fs(), stateDir: this.stateDir });
    await this.vault.unlockWithRecoveryKey(recoveryKey);
    return this.vault;
  }

  /** A power cut: the vault is gone mid-flight, the disk is what `image` (default: the durable part now) holds; then it opens again. */
  async crash(recoveryKey: string, image?: Image): Promise<void> {
    const img = image ?? this.sim.image('lost');
    const old = this.vault;
    this.vault = undefined;
    this.replica.sim = new SimFs(this.root, img);
    this.crashes++;
    // Its last writes go to the disk that was cut off, and it lets the device lock go as a dead process would. Its state
    // folder is on the real disk: what the dead process would have written there (its marks) is put back as it was.
    const marks = await this.marks();
    await old?.close().catch(() => undefined);
    for (const file of (await this.marks()).keys()) if (!marks.has(file)) await fs.rm(file);
    for (const [file, bytes] of marks) await fs.writeFile(file, bytes);
    await this.open(recoveryKey);
  }

  /** The per-device marks files of the state folder, by path (store2.ts notes its own writes there). */
  private async marks(): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    for (const name of await fs.readdir(this.stateDir).catch(() => [] as string[])) {
      if (name.endsWith('.devices')) out.set(path.join(this.stateDir, name), await fs.readFile(path.join(this.stateDir, name)));
    }
    return out;
  }

  /** This device's id for the vault, once it has one. */
  async deviceId(vaultId: string): Promise<string | undefined> {
    const raw = await fs.readFile(path.join(this.stateDir, `${vaultId}.device`), 'utf8').catch(() => undefined);
    return raw ? (JSON.parse(raw) as { id: string }).id : undefined;
  }

  /** Mutations outside what this device may change: its own folder, its temps, vault.json (the upgrade). */
  async foreignMutations(vaultId: string): Promise<Mutation[]> {
    const me = await this.deviceId(vaultId);
    if (!me) return this.mutations;
    const own = (p: string) => p.startsWith(`devices/${me}/`) || p === `devices/${me}` || p.startsWith(`.tmp-${me.slice(0, 8)}-`);
    return this.mutations.filter((m) => {
      if (own(m.path)) return false;
      // vault.json is written by the upgrade: a temp of the header writer, renamed over it.
      if (m.op === 'rename-to' && m.path === 'vault.json') return false;
      if ((m.op === 'open new' || m.op === 'rename-from') && /^\.tmp-[0-9a-f]{16}$/.test(m.path)) return false;
      // A copy of vault.json that is authentic and not the best is deleted by whichever computer finds it (header-copies.ts).
      if (m.op === 'unlink' && /^[^/]*\.json$/i.test(m.path) && m.path !== 'vault.json') return false;
      return true;
    });
  }
}
