/**
 * A conversation's log when several computers may write the vault at once
 * (internal-store scheme 2, docs/sync-design.md §3 and §12.4). Two computers
 * adding turns to one conversation must both keep them, so nothing is shared
 * that both would rewrite:
 *
 * - each computer appends records to its own log,
 *   `conversation-log/<id>/<device>/<n % GROUP>`, with a merged group
 *   `…/<device>/g<j>` per GROUP records (as the single-writer log does);
 * - a record is one *exchange*: what one save added (messages, transcript
 *   entries, turn starts relative to the exchange), with `c`, how many records
 *   of each computer its writer had read, and `cut`, the exchanges it takes
 *   back (an edit of the last message, or any change that is not an append:
 *   the exchanges from the first one changed are cut and added again whole);
 * - the conversation is every exchange, ordered by the number of records its
 *   writer had read (an exchange always sorts after everything its writer
 *   saw), then device and number: the same order on every computer;
 * - the head (`conversations/<id>`) holds the other fields and, per computer,
 *   how many of its records count (`logs`). Concurrent heads merge by
 *   `conversationRule` (merge-rules.ts): the other fields three-way, each
 *   computer's count the highest.
 *
 * A delete writes a head marked deleted with the counts it had seen, then
 * removes the log and its bytes as a single-writer delete does. A turn another
 * computer added without having seen the delete brings the conversation back
 * with what the delete had not seen (`floor`); nothing else does.
 *
 * The log of a conversation stored before the vault had several writers is
 * read as it is, as the first exchange (`legacy`: its record count).
 */
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { TranscriptEntry } from '../../shared/chat';
import { VaultError, type VaultApi } from '../vault/types';
import { m } from '../i18n/message';
import { tail, type LoggedConversation } from './conversation-lists';
import { conversationRule } from '../vault/sync/merge-rules';

/** Records per merged group. */
const GROUP = 32;
/** The exchange the log of a single-writer vault stands for. */
const LEGACY = 'L';

export type Counts = Record<string, number>;

interface Exchange {
  /** Records of each computer the writer had read (its own: this record's number). */
  c: Counts;
  /** Exchanges (`<device>:<n>`, or `L`) this one takes back. */
  cut?: string[];
  m: BetaMessageParam[];
  t: TranscriptEntry[];
  /** Turn starts, as indexes into `m`. */
  s: number[];
}

export interface Head2 {
  v: 2;
  logs: Counts;
  /**
   * Per computer, its records up to the last one that added something (not only took back): what revives a delete a
   * computer had not seen (a rewind alone does not). Absent on a head written before it was kept: `logs` then.
   */
  grew?: Counts;
  /** Records of the single-writer log that count (read as the first exchange). */
  legacy?: number;
  /** Records a delete removed: exchanges below these, and the single-writer log if `legacyGone`, are not read. */
  floor?: Counts;
  legacyGone?: true;
  /** The transcript's length; absent in a merge of heads that count different records. */
  entries?: number;
  meta: Record<string, unknown>;
  deleted?: { at: number; seen: Counts; legacy?: number };
}

/** Where each exchange of a conversation as read starts in its three lists, so a save can tell what it changed. */
interface Loaded {
  head: Head2;
  xs: { x: string; m: number; t: number; s: number }[];
}

const headKey = (id: string) => `conversations/${id}`;
const recordKey = (id: string, dev: string, n: number) => `conversation-log/${id}/${dev}/${n % GROUP}`;
const groupKey = (id: string, dev: string, g: number) => `conversation-log/${id}/${dev}/g${g}`;
const damaged = () => m('errors:conversation.partMissing');
const sum = (c: Counts) => Object.values(c).reduce((a, b) => a + b, 0);

const loaded = new WeakMap<object, Loaded>();

export function isHead2(raw: Record<string, unknown>): raw is Record<string, unknown> & Head2 {
  return raw.v === 2 && typeof raw.logs === 'object' && raw.logs !== null && typeof raw.meta === 'object' && raw.meta !== null;
}

/**
 * Conversation `head` read: the single-writer log (`legacy`, read by the
 * caller, which knows its layout) first, then every computer's exchanges in
 * their order. Undefined when the head is a delete.
 */
export async function read2<C extends LoggedConversation>(vault: VaultApi, id: string, head: Head2, legacy: (n: number) => Promise<{ messages: BetaMessageParam[]; transcript: TranscriptEntry[]; turnStarts: number[] }>): Promise<C | undefined> {
  if (head.deleted) return undefined;
  const xs: { x: string; order: [number, string, number]; rec: Exchange }[] = [];
  if (head.legacy && !head.legacyGone) {
    const l = await legacy(head.legacy);
    xs.push({ x: LEGACY, order: [-1, '', 0], rec: { c: {}, m: l.messages, t: l.transcript, s: l.turnStarts } });
  }
  for (const dev of Object.keys(head.logs).sort()) {
    const n = head.logs[dev]!;
    const full = Math.floor(n / GROUP);
    // Each group is read once for its GROUP records (not once per record: that read the log GROUP times over).
    let held: { g: number; x: (Exchange | null)[] } | undefined;
    for (let k = head.floor?.[dev] ?? 0; k < n; k++) {
      const g = Math.floor(k / GROUP);
      if (g < full && held?.g !== g) held = { g, x: await group(vault, id, dev, g) };
      const rec = g < full ? held!.x[k - g * GROUP] : await vault.internal.getJSON<Exchange>(recordKey(id, dev, k));
      // Another computer's record is read as stored: one of a wrong shape (a buggy build) is damage, not a crash.
      if (!isExchange(rec)) throw new VaultError('DAMAGED', damaged(), headKey(id));
      xs.push({ x: `${dev}:${k}`, order: [sum(rec.c), dev, k], rec });
    }
  }
  xs.sort((a, b) => a.order[0] - b.order[0] || (a.order[1] < b.order[1] ? -1 : a.order[1] > b.order[1] ? 1 : 0) || a.order[2] - b.order[2]);
  const live: typeof xs = [];
  // Per exchange taken back: the first record that took it back.
  const replaced = new Map<string, (typeof xs)[number]>();
  for (const x of xs) {
    const cut = x.rec.cut ?? [];
    if (!cut.length) {
      live.push(x);
      continue;
    }
    // What a change adds goes where the first exchange it took back was: an exchange another computer added
    // meanwhile (after it, as that one read them) stays after it, instead of ending up before the history it followed.
    let at = live.findIndex((y) => y.x === cut[0]);
    const gone = new Set(cut);
    for (let i = live.length - 1; i >= 0; i--) {
      if (!gone.has(live[i]!.x)) continue;
      live.splice(i, 1);
      if (i < at) at--;
    }
    const before = replaced.get(cut[0]!);
    for (const c of cut) if (!replaced.has(c)) replaced.set(c, x);
    // Another computer changed the same exchange at once: this change goes after that one's. The same change made on
    // both (both took back the last turn of one exchange) is added once.
    const after = before ? live.indexOf(before) : -1;
    if (at < 0 && before && sameLists(before.rec, x.rec)) live.splice(after < 0 ? live.length : after + 1, 0, { ...x, rec: { ...x.rec, m: [], t: [], s: [] } });
    else if (at < 0) live.splice(after < 0 ? live.length : after + 1, 0, x);
    else live.splice(at, 0, x);
  }
  const lists = { messages: [] as BetaMessageParam[], transcript: [] as TranscriptEntry[], turnStarts: [] as number[] };
  const starts: Loaded['xs'] = [];
  for (const { x, rec } of live) {
    starts.push({ x, m: lists.messages.length, t: lists.transcript.length, s: lists.turnStarts.length });
    const base = lists.messages.length;
    lists.messages.push(...rec.m);
    lists.transcript.push(...rec.t);
    lists.turnStarts.push(...rec.s.map((s) => Math.max(0, base + s)));
  }
  const conv = { ...head.meta, ...lists } as unknown as C;
  loaded.set(conv, { head, xs: starts });
  return conv;
}

const sameLists = (a: Exchange, b: Exchange) => JSON.stringify([a.m, a.t, a.s]) === JSON.stringify([b.m, b.t, b.s]);
const isCounts = (c: unknown): c is Counts => typeof c === 'object' && c !== null && !Array.isArray(c) && Object.values(c).every((n) => Number.isInteger(n) && n >= 0);

function isExchange(rec: unknown): rec is Exchange {
  if (typeof rec !== 'object' || rec === null) return false;
  const r = rec as Record<string, unknown>;
  const cut = r.cut;
  return isCounts(r.c) && Array.isArray(r.m) && Array.isArray(r.t) && Array.isArray(r.s) && r.s.every((s) => Number.isInteger(s) && s >= -1) && (cut === undefined || (Array.isArray(cut) && cut.every((x) => typeof x === 'string')));
}

/** `base`, as read, under the current head, if no computer has added to or cut its log since (else undefined). */
export function reuse2<C extends LoggedConversation>(base: C, head: Head2): C | undefined {
  const at = loaded.get(base);
  if (!at || !sameLog(at.head, head) || head.deleted) return undefined;
  const merged = { ...head.meta, messages: base.messages, transcript: base.transcript, ...(base.turnStarts ? { turnStarts: base.turnStarts } : {}) } as unknown as C;
  loaded.set(merged, { head, xs: at.xs });
  return merged;
}

const sameLog = (a: Head2, b: Head2) => JSON.stringify([a.logs, a.legacy, a.floor, a.legacyGone]) === JSON.stringify([b.logs, b.legacy, b.floor, b.legacyGone]);

/**
 * Stores `next`, made from `prev` (read by read2; or read from a single-writer
 * head, `legacy` its record count; or undefined for a new one and one in the
 * single-value layout): this computer's record of what changed, then the head.
 */
export async function write2<C extends LoggedConversation>(vault: VaultApi, next: C, prev: C | undefined, legacy: number | undefined): Promise<void> {
  const dev = await vault.internal.device!(true);
  if (!dev) throw new VaultError('IO', damaged());
  const { messages, transcript, turnStarts = [], ...meta } = next;
  const at = prev && loaded.get(prev);
  const head: Head2 = at
    ? { ...at.head, meta }
    : { v: 2, logs: {}, ...(prev && legacy ? { legacy } : {}), entries: 0, meta };
  // What the save starts from: the exchanges read, the single-writer log as one, or nothing.
  const xs = at ? at.xs : prev && legacy ? [{ x: LEGACY, m: 0, t: 0, s: 0 }] : [];
  const before = prev && (at || legacy) ? prev : { messages: [], transcript: [], turnStarts: [] };
  const cuts = [tail(before.messages, messages).keep, tail(before.transcript, transcript).keep, tail(before.turnStarts ?? [], turnStarts).keep];
  const lengths = [before.messages.length, before.transcript.length, (before.turnStarts ?? []).length];
  // The first exchange a list was cut into: it and every exchange after it are taken back and added again.
  let first = 0;
  while (first < xs.length) {
    const after = xs[first + 1];
    const ends = [after?.m ?? lengths[0]!, after?.t ?? lengths[1]!, after?.s ?? lengths[2]!];
    if ([0, 1, 2].some((l) => cuts[l]! < lengths[l]! && cuts[l]! < ends[l]!)) break;
    first++;
  }
  const from = first < xs.length ? xs[first]! : { m: lengths[0]!, t: lengths[1]!, s: lengths[2]! };
  const rec: Exchange = {
    c: { ...head.logs, [dev]: head.logs[dev] ?? 0 },
    ...(first < xs.length ? { cut: xs.slice(first).map((x) => x.x) } : {}),
    m: messages.slice(from.m),
    t: transcript.slice(from.t),
    // (-1: a turn whose words joined the last message before this exchange, the tool results of a reply the round limit stopped.)
    s: turnStarts.slice(from.s).map((s) => s - from.m),
  };
  let xsNext = xs.slice(0, first);
  if (rec.cut || rec.m.length || rec.t.length || rec.s.length) {
    const n = head.logs[dev] ?? 0;
    await vault.internal.putJSON(recordKey(next.id, dev, n), rec);
    if ((n + 1) % GROUP === 0) await vault.internal.putJSON(groupKey(next.id, dev, Math.floor(n / GROUP)), await collect(vault, next.id, dev, Math.floor(n / GROUP), head.floor?.[dev] ?? 0));
    // Something new: past where the lists were cut (what an exchange cut into keeps of itself is stored again, not new).
    const grew = messages.length > cuts[0]! || transcript.length > cuts[1]! || turnStarts.length > cuts[2]!;
    head.grew = { ...(head.grew ?? head.logs), ...(grew ? { [dev]: n + 1 } : {}) };
    head.logs = { ...head.logs, [dev]: n + 1 };
    xsNext = [...xsNext, { x: `${dev}:${n}`, ...from }];
  }
  head.entries = transcript.length;
  // Another computer's head may have arrived since the read (an ingest, or a read that caught up): written over
  // as it is, its records and fields would be dropped. Then the head written is the merge of both, and `next` is
  // not reused as read (its lists lack what arrived).
  const now = await vault.internal.getJSON<Record<string, unknown>>(headKey(next.id));
  const moved = now !== undefined && isHead2(now) && JSON.stringify(now) !== JSON.stringify(at?.head);
  const written = moved ? (conversationRule(headKey(next.id), at?.head, [{ vid: 'now', h: [0, 0], value: now }, { vid: 'ours', h: [1, 0], value: head }]).value as Head2) : head;
  await vault.internal.putJSON(headKey(next.id), written);
  loaded.set(next, { head, xs: xsNext });
}

/** Marks conversation `id` deleted, with how many records of each computer it had read (the caller then removes them). */
export async function tombstone(vault: VaultApi, id: string, head: Head2): Promise<void> {
  const { deleted: _d, ...rest } = head;
  await vault.internal.putJSON(headKey(id), { ...rest, entries: 0, deleted: { at: Date.now(), seen: head.logs, ...(head.legacy ? { legacy: head.legacy } : {}) } } satisfies Head2);
}

/** Group `g` of `dev`'s records; null for those a delete had removed before it was written. */
async function group(vault: VaultApi, id: string, dev: string, g: number): Promise<(Exchange | null)[]> {
  const value = await vault.internal.getJSON<{ x: (Exchange | null)[] }>(groupKey(id, dev, g));
  if (!value || !Array.isArray(value.x) || value.x.length !== GROUP) throw new VaultError('DAMAGED', damaged(), headKey(id));
  return value.x;
}

/** This computer's records of group `g`, as one value (written by the save that fills it, before its head); those below `floor` are gone. */
async function collect(vault: VaultApi, id: string, dev: string, g: number, floor: number): Promise<{ x: (Exchange | null)[] }> {
  const x: (Exchange | null)[] = [];
  for (let n = g * GROUP; n < (g + 1) * GROUP; n++) {
    if (n < floor) {
      x.push(null);
      continue;
    }
    const rec = await vault.internal.getJSON<Exchange>(recordKey(id, dev, n));
    if (!rec) throw new VaultError('DAMAGED', damaged(), headKey(id));
    x.push(rec);
  }
  return { x };
}
