/**
 * When another device's op becomes visible here (docs/sync-design.md §2.5),
 * and how what is not visible yet is classified (§5). A record of device E
 * is applied only when
 *   1. contiguous: it is the next seq after what is applied of E;
 *   2. causal: what E had applied when it wrote it is applied here too;
 *   3. confirmed: a later record of E's segment exists (its next op, an ack,
 *      or the start of one), so E's crash can never take it back.
 * Own records (another process of this device wrote them) need no
 * confirmation. When E's journal no longer holds the next seq (E compacted
 * it), E's newest checkpoint is joined instead. Applying is joining the
 * record's one-op state, so the order records arrive in never matters.
 */
import type { Clock } from './hlc';
import { isRetired, joinInto, opState, type SyncState } from './crdt';
import type { DeviceMarks } from './marks';
import type { DeviceFolder, RecInfo } from './scan';
import { parseFileName } from './layout';

export interface Waiting {
  device: string;
  what: string;
}

export interface IngestReport {
  /** Records (and checkpoints) newly applied. */
  applied: number;
  waiting: Waiting[];
  damage: string[];
  rollback: string[];
  forks: string[];
  /** This device's own id was written by another copy of it (`ownFork`). */
  ownFork?: true;
  /** A record of a shape this build does not know: a newer build wrote it. */
  newer: boolean;
}

export interface VisibleHost {
  state: SyncState;
  own: string | undefined;
  marks: Pick<DeviceMarks, 'get' | 'note'>;
  clock: Clock;
  /** Joins `dev`'s newest readable checkpoint covering seq `need`; true if one was joined. */
  joinCheckpoint(dev: string, need: number): Promise<boolean>;
  /** Called for each record applied. */
  onApplied?(dev: string, r: RecInfo): void;
}

const seqOfCheckpoint = (name: string) => parseInt(name.slice(2, 14), 16);
const short = (dev: string) => (dev === 'L' ? 'L' : `${dev.slice(0, 8)}…`);

/** Records of a device by first seq. */
function chainOf(f: DeviceFolder): Map<number, RecInfo[]> {
  const out = new Map<number, RecInfo[]>();
  for (const s of f.segments) {
    for (const r of s.records) {
      if (r.seq === undefined) continue;
      const list = out.get(r.seq);
      if (list) list.push(r);
      else out.set(r.seq, [r]);
    }
  }
  return out;
}

/** The record to apply at a seq: a confirmed one (own: any), the same on every device when several are. */
function pick(cands: RecInfo[] | undefined, own: boolean): RecInfo | undefined {
  const ok = (cands ?? []).filter((c) => own || c.confirmed);
  ok.sort((a, b) => Number(b.confirmed) - Number(a.confirmed) || (a.file < b.file ? -1 : a.file > b.file ? 1 : a.pos - b.pos));
  return ok[0];
}

function depsMet(s: SyncState, dev: string, r: RecInfo): string | undefined {
  for (const [d, n] of Object.entries(r.dep)) if (d !== dev && (s.frontier.get(d) ?? 0) < n) return d;
  return undefined;
}

/** Applies every record that has become visible, over and over until nothing more does, then classifies the rest. */
export async function applyVisible(folders: Map<string, DeviceFolder>, host: VisibleHost): Promise<IngestReport> {
  const report: IngestReport = { applied: 0, waiting: [], damage: [], rollback: [], forks: [], newer: false };
  const chains = new Map([...folders].map(([dev, f]) => [dev, chainOf(f)]));
  const tried = new Set<string>();
  for (let progress = true; progress; ) {
    progress = false;
    for (const [dev, chain] of chains) {
      const own = dev === host.own;
      /** Joins `dev`'s newest checkpoint if it covers seq `n` (once per ingest). */
      const tryCheckpoint = async (n: number): Promise<boolean> => {
        const newest = folders.get(dev)!.checkpoints[0];
        if (!newest || seqOfCheckpoint(newest) < n || tried.has(`${dev} ${n}`)) return false;
        tried.add(`${dev} ${n}`);
        if (!(await host.joinCheckpoint(dev, n))) return false;
        report.applied++;
        progress = true;
        return true;
      };
      for (;;) {
        const n = (host.state.frontier.get(dev) ?? 0) + 1;
        const r = pick(chain.get(n), own);
        if (!r) {
          if (await tryCheckpoint(n)) continue;
          break;
        }
        // Own records were applied here when written: they never wait (what they depended on may be arriving again after a cut).
        const need = own ? undefined : depsMet(host.state, dev, r);
        if (need !== undefined) {
          // What a forgotten computer wrote and no folder holds any more (its files put back from a backup, carried to
          // every computer by the sync engine) never arrives: `dev`'s checkpoint holds it, as far as `dev` applied it.
          if (isRetired(host.state, need) && !chains.get(need)?.has((host.state.frontier.get(need) ?? 0) + 1) && (await tryCheckpoint(n))) continue;
          break;
        }
        joinInto(host.state, opState({ dev, seq: n, h: r.meta.h, at: r.meta.at }, r.meta.op, r.dep));
        if (!own) {
          host.clock.receive(r.meta.h);
          host.marks.note(dev, n + r.count - 1, r.tag);
        }
        host.onApplied?.(dev, r);
        report.applied++;
        progress = true;
      }
    }
  }
  for (const [dev, f] of folders) classify(dev, f, chains.get(dev)!, host, report);
  return report;
}

function classify(dev: string, f: DeviceFolder, chain: Map<number, RecInfo[]>, host: VisibleHost, report: IngestReport): void {
  const own = dev === host.own;
  for (const s of f.segments) {
    report.damage.push(...s.damage);
    if (s.unknown) report.newer = true;
  }
  if (own) return ownFork(dev, chain, host, report);
  const wait = (what: string) => report.waiting.push({ device: dev, what });
  const n = (host.state.frontier.get(dev) ?? 0) + 1;
  const cands = chain.get(n);
  const higher = [...chain.keys()].filter((k) => k > n).sort((a, b) => a - b);
  if (cands?.length) {
    const r = pick(cands, false);
    if (!r) wait(`record ${n} not confirmed yet`);
    else {
      const d = depsMet(host.state, dev, r);
      if (d) wait(`record ${n} needs records from device ${short(d)} first`);
    }
  } else if (higher.length) wait(`seq ${n}–${higher[0]! - 1} missing`);
  const last = f.segments.at(-1);
  if (last?.torn) wait(`${last.name} still arriving`);
  for (const u of f.unreadable) wait(`${u} cannot be read yet`);
  // Rollback and fork, against what this device applied from it before.
  const mark = host.marks.get(dev);
  if (!mark) return;
  let maxAvail = f.checkpoints.length ? seqOfCheckpoint(f.checkpoints[0]!) : 0;
  const at: RecInfo[] = [];
  for (const list of chain.values()) {
    for (const r of list) {
      maxAvail = Math.max(maxAvail, r.seq! + r.count - 1);
      if (r.seq! <= mark.seq && mark.seq < r.seq! + r.count && r.confirmed) at.push(r);
    }
  }
  if (maxAvail < mark.seq) {
    // Kept here when this device applied it; not when this is the device whose own folder went back (store2.ts `rehome`).
    const kept = (host.state.frontier.get(dev) ?? 0) >= mark.seq ? 'what it wrote before is still kept here' : `what it wrote after seq ${maxAvail} is not here (another computer may still have it)`;
    report.rollback.push(`device ${short(dev)}: its files went back from seq ${mark.seq} to ${maxAvail} (restored from an older copy?); ${kept}`);
  }
  if (at.some((r) => r.tag !== mark.tag)) report.forks.push(`device ${short(dev)}: a different record at seq ${mark.seq} than the one applied here (a restored or cloned computer)`);
}

/**
 * This device's own record at the seq its state folder last noted, replaced by a different one: another copy of this
 * computer's vault (a clone, or the same backup restored twice) wrote under its id, and the sync engine kept that
 * file. Reported; store2.ts then writes on under a new id.
 */
function ownFork(dev: string, chain: Map<number, RecInfo[]>, host: VisibleHost, report: IngestReport): void {
  const mark = host.marks.get(dev);
  if (!mark) return;
  const at = [...chain.values()].flat().filter((r) => r.seq! <= mark.seq && mark.seq < r.seq! + r.count);
  if (replacedAt(at, mark.tag)) {
    report.forks.push(ownForkLine(dev, mark.seq));
    report.ownFork = true;
  }
}

/**
 * True when this device's own record `tag` at a seq is gone from its folder, or lies beside another confirmed record at
 * that seq (another copy of this computer wrote it): this copy then gives way (both do, when both are running and
 * neither record lies only in a sync engine's copy of a segment). An unconfirmed record beside it is a stale copy's
 * lost tail (§2.5), which no computer applies.
 */
export function replacedAt(cands: RecInfo[], tag: string): boolean {
  if (!cands.length) return false;
  const mine = cands.filter((r) => r.tag === tag);
  const others = cands.filter((r) => r.tag !== tag && r.confirmed);
  if (!mine.length) return true;
  if (!others.length) return false;
  // A sync engine that kept one copy's file under its name and the other's as a copy (scan.ts `segmentCopy`) chose:
  // the copy whose record lies only in such a copy gives way, the other goes on.
  const inPlace = (r: RecInfo) => parseFileName(r.file) !== undefined;
  return !mine.some(inPlace) || others.some(inPlace);
}

/** What `verify` says of this device's own record at `seq` replaced by another copy of it. */
export const ownForkLine = (dev: string, seq: number): string =>
  `this computer (device ${short(dev)}): its record at seq ${seq} was replaced by a different one (another copy of this computer's vault wrote under its id: a clone, or a restore); it writes on as a new computer and writes the memories it wrote from then on again, but other changes it made from then on are lost here unless another computer has them`;
