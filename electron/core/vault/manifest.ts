/**
 * The manifest files of one key epoch (byte format in records.ts): the
 * manifest `manifest.<id>`, a snapshot of the whole State; its fallback copy
 * `.prev`; and `.next`, a checkpoint's new manifest, durable before the
 * current one is moved aside.
 */
import path from 'node:path';
import type { StoreKeys } from './blobs';
import { io, readIfExists, writeFileDurable, writeTemp } from './files';
import type { VaultFs } from './fsio';
import { MANIFEST_IDENTITY_BYTES, manifestIdentity, openManifest, sealManifest } from './records';
import type { Snapshot } from './state';

export class Manifests {
  readonly path: string;
  readonly prevPath: string;
  readonly nextPath: string;
  /** True when the current manifest file was read successfully, so it may become the fallback. */
  good = false;
  /** The identity (records.ts `manifestIdentity`) of the manifest at `path` as this store last read or wrote it. */
  identity: string | undefined;
  /** The identity of `.next` as last read, which becomes the manifest's when a cut-off checkpoint is finished. */
  private nextIdentity: string | undefined;

  constructor(
    private readonly fs: VaultFs,
    private readonly dir: string,
    private readonly vaultId: Uint8Array,
    private readonly keys: StoreKeys,
    id: string,
  ) {
    this.path = path.join(dir, `manifest.${id}`);
    this.prevPath = `${this.path}.prev`;
    this.nextPath = `${this.path}.next`;
  }

  /** The decrypted snapshot in `file`: undefined if the file is missing, null if it fails authentication. */
  async read(file: string): Promise<Snapshot | undefined | null> {
    const raw = await io('errors:io.action.readVault', () => readIfExists(this.fs, file));
    if (!raw) return undefined;
    const snap = openManifest(this.keys.manifest, this.vaultId, raw) ?? null;
    if (snap && file === this.path) this.identity = manifestIdentity(raw);
    if (snap && file === this.nextPath) this.nextIdentity = manifestIdentity(raw);
    return snap;
  }

  /** The identity of the manifest file at `path` now (undefined if there is none): a few bytes read, nothing decrypted. */
  async identityOnDisk(): Promise<string | undefined> {
    return io('errors:io.action.readVault', async () => {
      let fh;
      try {
        fh = await this.fs.open(this.path, 'read');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
      try {
        const head = new Uint8Array(MANIFEST_IDENTITY_BYTES);
        return manifestIdentity(head.subarray(0, await fh.read(head, 0)));
      } finally {
        await fh.close();
      }
    });
  }

  /** Writes the first manifest of a new vault (or of a rotation's new key epoch). */
  async create(snap: Snapshot): Promise<void> {
    const sealed = this.sealed(snap);
    await writeFileDurable(this.fs, this.path, sealed);
    this.good = true;
    this.identity = manifestIdentity(sealed);
  }

  /** Finishes a checkpoint cut off between its two renames: `.next` was durable, so it becomes the manifest. */
  async finishNext(): Promise<void> {
    await io('errors:io.action.saveIndex', async () => {
      await this.fs.rename(this.nextPath, this.path);
      await this.fs.syncDir(this.dir);
    });
    this.identity = this.nextIdentity;
  }

  /**
   * Installs a new manifest so that at every instant one durable manifest
   * names the newest state: written and synced as `.next` first, then the
   * current one becomes the fallback `.prev` (with its journal kept until the
   * next checkpoint, so the pair can rebuild the same state if the new one is
   * ever damaged), then `.next` takes its place.
   */
  async commit(snap: Snapshot): Promise<void> {
    const sealed = this.sealed(snap);
    const tmp = await writeTemp(this.fs, this.nextPath, sealed);
    await this.fs.rename(tmp, this.nextPath);
    await this.fs.syncDir(this.dir);
    if (this.good) await this.fs.rename(this.path, this.prevPath).catch(() => undefined);
    await this.fs.rename(this.nextPath, this.path);
    await this.fs.syncDir(this.dir);
    this.good = true;
    this.identity = manifestIdentity(sealed);
  }

  /** The file names of this epoch's manifests: any other `manifest.*` belongs to another key epoch. */
  names(): Set<string> {
    return new Set([this.path, this.prevPath, this.nextPath].map((p) => path.basename(p)));
  }

  /** Authenticates both manifests; returns one line per problem. */
  async verify(): Promise<string[]> {
    const problems: string[] = [];
    if ((await this.read(this.path)) === null) problems.push('manifest: damaged');
    if ((await this.read(this.prevPath)) === null) problems.push('manifest (previous copy, the fallback): damaged');
    return problems;
  }

  private sealed(snap: Snapshot): Uint8Array {
    return sealManifest(this.keys.manifest, this.vaultId, snap);
  }
}
