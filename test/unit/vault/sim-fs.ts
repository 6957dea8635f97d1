/**
 * An in-memory disk for crash testing. It implements VaultFs, counts every
 * call, and can produce at any moment the disk a power cut would leave:
 * file data not yet synced is dropped (writes on an O_DSYNC handle are durable
 * when they return), and directory changes (create, rename, unlink, mkdir) not
 * yet followed by a sync of their folder are either all kept or all lost.
 */
import path from 'node:path';
import type { FileStat, OpenMode, VaultFile, VaultFs } from '../../../electron/core/vault/fsio';

/** A growable byte buffer: journals grow by appends, so copying on every write would be quadratic. */
class Buf {
  bytes = new Uint8Array(0);
  len = 0;
  static of(src: Uint8Array): Buf {
    const b = new Buf();
    b.bytes = src.slice();
    b.len = src.length;
    return b;
  }
  writeAt(src: Uint8Array, pos: number): void {
    const end = pos + src.length;
    if (end > this.bytes.length) {
      const next = new Uint8Array(Math.max(end, this.bytes.length * 2, 64));
      next.set(this.bytes.subarray(0, this.len));
      this.bytes = next;
    }
    if (pos > this.len) this.bytes.fill(0, this.len, pos);
    this.bytes.set(src, pos);
    this.len = Math.max(this.len, end);
  }
  truncate(n: number): void {
    if (n > this.len) this.writeAt(new Uint8Array(n - this.len), this.len);
    this.len = n;
  }
  view(): Uint8Array {
    return this.bytes.subarray(0, this.len);
  }
}

interface Inode {
  kind: 'file';
  data: Buf;
  durable: Buf;
  mtime: number;
}
interface DirNode {
  kind: 'dir';
  cur: Map<string, Node>;
  dur: Map<string, Node>;
  mtime: number;
}
type Node = Inode | DirNode;

/** A disk as a power cut leaves it: folders of files, by name. */
export type Image = Map<string, Uint8Array | Image>;

export type Outcome = 'kept' | 'lost';

const err = (code: string) => Object.assign(new Error(code), { code });

export class SimFs implements VaultFs {
  private readonly top: DirNode;
  private clock = 1;
  /** File-system calls made so far. */
  calls = 0;
  /** Called after each call completes, with its number; the crash tests check the disk there. */
  after: ((n: number, what: string) => Promise<void>) | undefined;

  constructor(
    readonly root: string,
    image: Image = new Map(),
  ) {
    this.top = this.load(image);
  }

  private load(image: Image): DirNode {
    const d: DirNode = { kind: 'dir', cur: new Map(), dur: new Map(), mtime: 0 };
    for (const [name, v] of image) {
      const node: Node = v instanceof Map ? this.load(v) : { kind: 'file', data: Buf.of(v), durable: Buf.of(v), mtime: this.clock++ };
      d.cur.set(name, node);
      d.dur.set(name, node);
    }
    return d;
  }

  /** The disk after a power cut now. */
  image(outcome: Outcome): Image {
    const walk = (d: DirNode): Image => {
      const out: Image = new Map();
      for (const [name, node] of outcome === 'kept' ? d.cur : d.dur) out.set(name, node.kind === 'dir' ? walk(node) : node.durable.view().slice());
      return out;
    };
    return walk(this.top);
  }

  /** The files as a reader (a sync engine) sees them now, unsynced data included. */
  current(): Image {
    const walk = (d: DirNode): Image => {
      const out: Image = new Map();
      for (const [name, node] of d.cur) out.set(name, node.kind === 'dir' ? walk(node) : node.data.view().slice());
      return out;
    };
    return walk(this.top);
  }

  /** Puts a whole file at `p` as another writer (a sync engine) would: durable, its folders made as needed. */
  putFile(p: string, bytes: Uint8Array): void {
    const parts = this.parts(p);
    let d = this.top;
    for (const name of parts.slice(0, -1)) {
      let next = d.cur.get(name);
      if (!next) {
        next = { kind: 'dir', cur: new Map(), dur: new Map(), mtime: this.clock++ };
        d.cur.set(name, next);
        d.dur.set(name, next);
      }
      if (next.kind !== 'dir') throw err('ENOTDIR');
      d = next;
    }
    const node: Inode = { kind: 'file', data: Buf.of(bytes), durable: Buf.of(bytes), mtime: this.clock++ };
    d.cur.set(parts.at(-1)!, node);
    d.dur.set(parts.at(-1)!, node);
  }

  /** Removes the file at `p` as another writer would (durably); a missing one is no error. */
  removeFile(p: string): void {
    try {
      const { dir, name } = this.locate(p);
      if (dir.cur.get(name)?.kind !== 'file') return;
      dir.cur.delete(name);
      dir.dur.delete(name);
    } catch {
      // Its folder is gone too.
    }
  }

  private parts(p: string): string[] {
    const rel = path.relative(this.root, p);
    if (rel.startsWith('..') || path.isAbsolute(rel)) throw err('EACCES');
    return rel ? rel.split(path.sep) : [];
  }

  private dirOf(parts: string[]): DirNode {
    let d = this.top;
    for (const name of parts) {
      const next = d.cur.get(name);
      if (!next) throw err('ENOENT');
      if (next.kind !== 'dir') throw err('ENOTDIR');
      d = next;
    }
    return d;
  }

  private locate(p: string): { dir: DirNode; name: string } {
    const parts = this.parts(p);
    if (!parts.length) throw err('EISDIR');
    return { dir: this.dirOf(parts.slice(0, -1)), name: parts[parts.length - 1]! };
  }

  private node(p: string): Node {
    const parts = this.parts(p);
    if (!parts.length) return this.top;
    const { dir, name } = this.locate(p);
    const n = dir.cur.get(name);
    if (!n) throw err('ENOENT');
    return n;
  }

  private hooks: Promise<void> = Promise.resolve();

  private async call<T>(what: string, fn: () => T): Promise<T> {
    const result = fn();
    const n = ++this.calls;
    // Calls made concurrently (two closes at once) are checked one after the other.
    const run = this.hooks.then(() => this.after?.(n, what));
    this.hooks = run.catch(() => undefined);
    await run;
    return result;
  }

  private handle(ino: Inode, dsync: boolean, writable: boolean): VaultFile {
    return {
      dsync,
      read: (buf, pos) =>
        this.call('read', () => {
          const src = ino.data.view().subarray(pos, pos + buf.length);
          buf.set(src);
          return src.length;
        }),
      write: (buf, pos) =>
        this.call('write', () => {
          if (!writable) throw err('EBADF');
          ino.data.writeAt(buf, pos);
          if (dsync) ino.durable.writeAt(buf, pos);
          ino.mtime = this.clock++;
          return buf.length;
        }),
      truncate: (len) =>
        this.call('truncate', () => {
          if (!writable) throw err('EBADF');
          ino.data.truncate(len);
        }),
      sync: () => this.call('fsync', () => void (ino.durable = Buf.of(ino.data.view()))),
      datasync: () => this.call('fdatasync', () => void (ino.durable = Buf.of(ino.data.view()))),
      close: () => this.call('close', () => undefined),
    };
  }

  open(file: string, mode: OpenMode): Promise<VaultFile> {
    return this.call(`open ${mode}`, () => {
      const { dir, name } = this.locate(file);
      let n = dir.cur.get(name);
      if (mode === 'new' || mode === 'journal-new') {
        if (n) throw err('EEXIST');
        n = { kind: 'file', data: new Buf(), durable: new Buf(), mtime: this.clock++ };
        dir.cur.set(name, n);
      }
      if (!n) throw err('ENOENT');
      if (n.kind !== 'file') throw err('EISDIR');
      return this.handle(n, mode === 'journal' || mode === 'journal-new', mode !== 'read');
    });
  }

  readFile(file: string): Promise<Uint8Array> {
    return this.call('readFile', () => {
      const n = this.node(file);
      if (n.kind !== 'file') throw err('EISDIR');
      return n.data.view().slice();
    });
  }

  rename(from: string, to: string): Promise<void> {
    return this.call('rename', () => {
      const a = this.locate(from);
      const b = this.locate(to);
      const n = a.dir.cur.get(a.name);
      if (!n) throw err('ENOENT');
      a.dir.cur.delete(a.name);
      b.dir.cur.set(b.name, n);
    });
  }

  unlink(file: string): Promise<void> {
    return this.call('unlink', () => {
      const { dir, name } = this.locate(file);
      if (dir.cur.get(name)?.kind === 'dir') throw err('EISDIR');
      dir.cur.delete(name);
    });
  }

  rmdir(p: string): Promise<void> {
    return this.call('rmdir', () => {
      const { dir, name } = this.locate(p);
      const n = dir.cur.get(name);
      if (!n) return;
      if (n.kind !== 'dir') throw err('ENOTDIR');
      if (n.cur.size) throw err('ENOTEMPTY');
      dir.cur.delete(name);
    });
  }

  mkdir(p: string): Promise<void> {
    return this.call('mkdir', () => {
      let d = this.top;
      for (const name of this.parts(p)) {
        let next = d.cur.get(name);
        if (!next) {
          next = { kind: 'dir', cur: new Map(), dur: new Map(), mtime: this.clock++ };
          d.cur.set(name, next);
        }
        if (next.kind !== 'dir') throw err('EEXIST');
        d = next;
      }
    });
  }

  readdir(p: string): Promise<string[]> {
    return this.call('readdir', () => [...this.dirOf(this.parts(p)).cur.keys()].sort());
  }

  stat(p: string): Promise<FileStat> {
    return this.call('stat', () => {
      const n = this.node(p);
      return n.kind === 'dir' ? { size: 0, mtimeMs: n.mtime, isDirectory: true, isFile: false } : { size: n.data.len, mtimeMs: n.mtime, isDirectory: false, isFile: true };
    });
  }

  syncDir(p: string): Promise<void> {
    return this.call('fsync dir', () => {
      const d = this.dirOf(this.parts(p));
      d.dur = new Map(d.cur);
    });
  }
}
