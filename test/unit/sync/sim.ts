/**
 * Simulated devices for the pure sync layer: each keeps its own SyncState,
 * makes ops from its own view (through the op builders a real device will
 * use), and joins another device's state when it "syncs". Texts live in one
 * table by blob id, as sealed blobs would; content ids are SHA-256 of the
 * text (a stand-in for the keyed hash).
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../electron/core/vault/sync/canonical';
import { joinInto, emptyState, maxStamp, opState, ROOT, type SyncState } from '../../../electron/core/vault/sync/crdt';
import { Clock, type Hlc } from '../../../electron/core/vault/sync/hlc';
import type { NewText } from '../../../electron/core/vault/sync/build';
import type { KvReader } from '../../../electron/core/vault/sync/kv';
import { formatVid, type Vid } from '../../../electron/core/vault/sync/ids';
import type { Op2 } from '../../../electron/core/vault/sync/op';
import type { TextReader } from '../../../electron/core/vault/sync/resolve';
import { SyncView } from '../../../electron/core/vault/sync/view';

export const DEVS = ['1', '2', '3'].map((c) => c.repeat(32));
export const T0 = 1_700_000_000_000;

/** Every text written, by blob id. */
export class Texts {
  private readonly byId = new Map<string, string>();
  private n = 0;

  add(text: string): NewText {
    const id = (++this.n).toString(16).padStart(32, '0');
    this.byId.set(id, text);
    const bytes = Buffer.from(text, 'utf8');
    return { b: { id, len: bytes.length + 40, h: createHash('sha256').update(id).digest('hex') }, s: bytes.length, k: createHash('sha256').update(text).digest('hex') };
  }

  text(id: string): string {
    const t = this.byId.get(id);
    if (t === undefined) throw new Error(`no text for blob ${id}`);
    return t;
  }

  readonly read: TextReader = (b) => this.text(b.id);
  readonly readKv: KvReader = (b) => Buffer.from(this.text(b.id), 'utf8');
}

/** One journal record: an op with its identity and stamp. */
export interface Rec {
  dev: string;
  seq: number;
  h: Hlc;
  at: number;
  op: Op2;
  /** What its device had applied of the others when it wrote it. */
  dep?: Record<string, number>;
}

export const stateOf = (r: Rec): SyncState => opState({ dev: r.dev, seq: r.seq, h: r.h, at: r.at }, r.op, r.dep);

export class World {
  now = T0;
  readonly texts = new Texts();
  readonly records: Rec[] = [];
  readonly devices: Device[];

  constructor(skews: number[] = [0, 0, 0]) {
    this.devices = skews.map((skew, i) => new Device(DEVS[i]!, this, skew));
  }

  view(s: SyncState): SyncView {
    return new SyncView(s, this.texts.read);
  }

  /** The full state: every record ever made, joined. */
  all(): SyncState {
    const s = emptyState();
    for (const r of this.records) joinInto(s, stateOf(r));
    return s;
  }
}

export class Device {
  seq = 0;
  state: SyncState = emptyState();
  readonly clock: Clock;

  constructor(
    readonly id: string,
    readonly world: World,
    /** How far this device's wall clock is off (ms). */
    readonly skew = 0,
  ) {
    this.clock = new Clock([0, 0], () => world.now + skew);
  }

  view(): SyncView {
    return this.world.view(this.state);
  }

  /** The vid the next op will get (a put that creates a file names itself with it). */
  nextVid(): Vid {
    return formatVid(this.id, this.seq + 1);
  }

  /** Makes `op` here: stamps it, applies it, records it. */
  commit(op: Op2, h: Hlc = this.clock.tick()): Rec {
    const rec: Rec = { dev: this.id, seq: this.seq + 1, h, at: this.world.now + this.skew, op, dep: Object.fromEntries(this.state.frontier) };
    this.seq += op.t === 'batch' ? op.ops.length : 1;
    joinInto(this.state, stateOf(rec));
    this.world.records.push(rec);
    return rec;
  }

  /** Receives everything `other` has (a state-based sync: always causally complete). */
  receive(other: Device): void {
    joinInto(this.state, other.state);
    this.clock.receive(maxStamp(other.state));
  }

  /** The current text of the file shown at `p` (a merge: the merged text; a conflict: the winner's). */
  text(p: string): string {
    const v = this.view();
    const r = v.resolve(p);
    if (!r) throw new Error(`no file at ${p}`);
    if (r.kind === 'merge') return r.text;
    const vid = r.kind === 'single' ? r.vid : r.winner;
    return this.world.texts.text(v.graph.all.get(vid)!.rec.b.id);
  }
}

/** Everything a view shows, in canonical form: two views are the same iff these are equal. */
export function dumpView(v: SyncView, readKv: KvReader): string {
  const entries = v.list(ROOT, Infinity);
  const files = entries.filter((e) => e.kind === 'file').map((e) => ({ path: e.path, r: v.resolve(e.path), versions: v.versions(e.path) }));
  const kv = v.kv.keys('').map((k) => ({ k, v: v.kv.get(k, readKv) }));
  return canonicalJson({ root: v.stat(ROOT), entries, files, trash: v.trashed(), conflicts: v.conflicts(), kv, depth: v.depth(), size: v.totalSize(), regs: v.kv.register('depth', 'max') });
}
