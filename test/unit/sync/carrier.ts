/**
 * An adversarial sync engine for the sync simulator (docs/sync-design.md
 * §9.2). It watches each replica's files as a reader sees them (unsynced
 * bytes included, as Syncthing reads the page cache) and carries every change
 * to the other replicas: in random order, in pieces (a prefix now, the rest
 * later; or a `.syncthing.<name>.tmp` / `~syncthing~<name>.tmp` renamed into
 * place later), twice, an older version after a newer one, deletions late,
 * and not at all to or from a replica that is offline. When a replica changed
 * a file the carrier is about to replace, the local one is kept under a
 * conflict name in the style of Syncthing, Dropbox, OneDrive or iCloud.
 * Junk files (sync-engine markers, stray names) are put into every replica and
 * must never be touched by a vault.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Image, SimFs } from '../vault/sim-fs';

export type Rng = () => number;

export interface Replica {
  name: string;
  sim: SimFs;
  online: boolean;
}

interface Version {
  path: string;
  bytes: Uint8Array | null;
  /** Order of observation: the larger, the newer. */
  n: number;
}

const digest = (b: Uint8Array | null) => (b ? createHash('sha256').update(b).digest('hex') : 'deleted');

/** Every file of an image, by path relative to its root. */
export function flatten(image: Image, at = ''): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const [name, v] of image) {
    const p = at ? `${at}/${name}` : name;
    if (v instanceof Map) for (const [q, b] of flatten(v, p)) out.set(q, b);
    else out.set(p, v);
  }
  return out;
}

const isEngineTemp = (p: string) => /(^|\/)(\.syncthing\.|~syncthing~).*\.tmp$/.test(p);

/** The name a conflict copy of `p` gets, in one of the engines' styles. */
function conflictName(p: string, style: number): string {
  const dir = path.posix.dirname(p);
  const ext = path.posix.extname(p);
  const base = path.posix.basename(p, ext);
  const name = [
    `${base}.sync-conflict-20250101-120000-ABCDEFG${ext}`,
    `${base} (Laptop's conflicted copy 2025-01-01)${ext}`,
    `${base}-LAPTOP${ext}`,
    `${base} 2${ext}`,
  ][style % 4]!;
  return dir === '.' ? name : `${dir}/${name}`;
}

export class Carrier {
  /** Per replica, the hash of each path as last seen there (observed or delivered). */
  private readonly seen = new Map<string, Map<string, string>>();
  private readonly queue = new Map<string, Version[]>();
  /** The newest version of each path. */
  private readonly latest = new Map<string, Version>();
  private n = 0;
  /** Junk put into every replica: path → bytes. */
  readonly junk = new Map<string, Uint8Array>();
  /** Conflict copies made (paths). */
  readonly conflicts: string[] = [];
  /** Engine temp files waiting to be renamed into place: replica, temp path, final path, bytes. */
  private readonly temps: Array<{ to: string; tmp: string; path: string; v: Version }> = [];
  stats = { delivered: 0, pieces: 0, temps: 0, twice: 0, older: 0, deletions: 0, conflicts: 0 };

  constructor(
    private readonly rng: Rng,
    readonly replicas: Replica[],
  ) {
    for (const r of replicas) {
      this.seen.set(r.name, new Map());
      this.queue.set(r.name, []);
    }
  }

  private replica(name: string): Replica {
    return this.replicas.find((r) => r.name === name)!;
  }

  private carried(p: string): boolean {
    return !this.junk.has(p) && !isEngineTemp(p);
  }

  /** Looks at every online replica for changes since it was last seen there, and queues them for the others. */
  observe(): number {
    let changes = 0;
    for (const r of this.replicas) {
      if (!r.online) continue;
      const files = flatten(r.sim.current());
      const seen = this.seen.get(r.name)!;
      for (const p of new Set([...files.keys(), ...seen.keys()])) {
        if (!this.carried(p)) continue;
        const bytes = files.get(p) ?? null;
        const h = digest(bytes);
        if ((seen.get(p) ?? 'deleted') === h) continue;
        seen.set(p, h);
        const v: Version = { path: p, bytes: bytes && bytes.slice(), n: ++this.n };
        this.latest.set(p, v);
        for (const o of this.replicas) if (o !== r) this.queue.get(o.name)!.push(v);
        changes++;
      }
    }
    return changes;
  }

  /** Puts a junk file (a marker, a stray name) into every replica: no vault may change or delete it. */
  sprinkle(p: string, bytes: Uint8Array): void {
    this.junk.set(p, bytes);
    for (const r of this.replicas) r.sim.putFile(path.join(r.sim.root, p), bytes);
  }

  /** Writes `v` at replica `to`, keeping a local change it would overwrite as a conflict copy. */
  private apply(to: Replica, v: Version, bytes: Uint8Array | null): void {
    const full = path.join(to.sim.root, v.path);
    const seen = this.seen.get(to.name)!;
    const local = flatten(to.sim.current()).get(v.path) ?? null;
    const localH = digest(local);
    if (local && localH !== (seen.get(v.path) ?? 'deleted') && localH !== digest(bytes)) {
      // Changed here since last seen, and not to what arrives: both are kept, the local one renamed.
      const copy = conflictName(v.path, Math.floor(this.rng() * 4));
      to.sim.putFile(path.join(to.sim.root, copy), local);
      this.conflicts.push(copy);
      this.stats.conflicts++;
    }
    if (bytes) to.sim.putFile(full, bytes);
    else {
      to.sim.removeFile(full);
      this.stats.deletions++;
    }
    seen.set(v.path, digest(bytes));
    this.stats.delivered++;
  }

  /** Delivers up to `count` queued changes to online replicas, adversarially. */
  step(count: number): void {
    for (let k = 0; k < count; k++) {
      if (this.temps.length && this.rng() < 0.3) this.finishTemp(Math.floor(this.rng() * this.temps.length));
      const ready = this.replicas.filter((r) => r.online && this.queue.get(r.name)!.length);
      if (!ready.length) return;
      const to = ready[Math.floor(this.rng() * ready.length)]!;
      const q = this.queue.get(to.name)!;
      const i = Math.floor(this.rng() * q.length);
      const v = q[i]!;
      const r = this.rng();
      // vault.json arrives whole: the engines replace it by rename (a header read half-written is stage 5's resolver's case).
      if (v.bytes && v.bytes.length > 16 && r < 0.12 && !v.path.endsWith('.json')) {
        // In pieces: a prefix now; the whole version stays queued.
        this.apply(to, v, v.bytes.subarray(0, 1 + Math.floor(this.rng() * (v.bytes.length - 1))));
        this.stats.pieces++;
        continue;
      }
      if (v.bytes && r < 0.22) {
        // Through an engine's temp file, renamed into place later.
        const dir = path.posix.dirname(v.path);
        const name = this.rng() < 0.5 ? `.syncthing.${path.posix.basename(v.path)}.tmp` : `~syncthing~${path.posix.basename(v.path)}.tmp`;
        const tmp = dir === '.' ? name : `${dir}/${name}`;
        to.sim.putFile(path.join(to.sim.root, tmp), v.bytes);
        this.temps.push({ to: to.name, tmp, path: v.path, v });
        q.splice(i, 1);
        this.stats.temps++;
        continue;
      }
      const newer = this.latest.get(v.path)!;
      if (newer.n > v.n && this.seen.get(to.name)!.get(v.path) === digest(newer.bytes)) this.stats.older++;
      this.apply(to, v, v.bytes);
      // Twice: the same version stays queued and arrives again later.
      if (r < 0.3) this.stats.twice++;
      else q.splice(i, 1);
    }
  }

  private finishTemp(i: number): void {
    const t = this.temps.splice(i, 1)[0]!;
    const to = this.replica(t.to);
    to.sim.removeFile(path.join(to.sim.root, t.tmp));
    if (to.online) this.apply(to, t.v, t.v.bytes);
    else this.queue.get(to.name)!.push(t.v);
  }

  /** True when nothing is queued or half-delivered for an online replica and every online replica holds the newest of every path. */
  quiet(): boolean {
    if (this.temps.some((t) => this.replica(t.to).online)) return false;
    for (const r of this.replicas) {
      if (!r.online) continue;
      if (this.queue.get(r.name)!.length) return false;
      const files = flatten(r.sim.current());
      for (const [p, v] of this.latest) if (digest(files.get(p) ?? null) !== digest(v.bytes)) return false;
    }
    return true;
  }

  /** Delivers everything to the online replicas, whole, ending with the newest version of every path. */
  drain(): void {
    for (let i = this.temps.length - 1; i >= 0; i--) if (this.replica(this.temps[i]!.to).online) this.finishTemp(i);
    for (const r of this.replicas) {
      if (!r.online) continue;
      const q = this.queue.get(r.name)!;
      while (q.length) {
        const v = q.splice(Math.floor(this.rng() * q.length), 1)[0]!;
        this.apply(r, v, v.bytes);
      }
    }
    for (const r of this.replicas) {
      if (!r.online) continue;
      const files = flatten(r.sim.current());
      for (const [p, v] of this.latest) if (digest(files.get(p) ?? null) !== digest(v.bytes)) this.apply(r, v, v.bytes);
    }
  }
}
