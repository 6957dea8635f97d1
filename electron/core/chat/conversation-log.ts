/**
 * How one conversation is laid out in the vault's internal store, so that
 * saving a turn costs the same at turn 1,000 as at turn 1: a small head
 * (`conversations/<id>`: title, dates and how many log records count) and an
 * append-only log of records (`conversation-log/<id>/<n>`), each cutting the
 * three lists (API messages, transcript, turn starts) back to a length and
 * appending what is new. A turn writes one record for its exchange, then the
 * head; each write is durable on its own, and a record the head does not yet
 * count is ignored (and overwritten by the next save), so a crash between the
 * two loses only the turn that was never acknowledged.
 *
 * Reading back one record per turn would make opening a long conversation
 * slow, so each full group of GROUP records is also stored as one merged
 * record (`conversation-log/<id>/g<j>`), written by the save that fills the
 * group, before its head. The next group's records then reuse the same GROUP
 * slots, so nothing needs deleting and a conversation holds at most GROUP
 * single records. A save still writes a bounded number of bytes: one turn, and
 * once per GROUP turns the group's turns again.
 *
 * A conversation stored by an earlier version is one value holding all three
 * lists; it is read as it is and moved to this layout by its next save.
 */
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { TranscriptEntry } from '../../shared/chat';
import { VaultError, type VaultApi } from '../vault/types';
import { m } from '../i18n/message';
import { cut, tail, type LoggedConversation, type Tail } from './conversation-lists';
import { isHead2, read2, reuse2, tombstone, write2, type Head2 } from './conversation-log2';

export type { LoggedConversation } from './conversation-lists';

interface LogRecord {
  m: Tail<BetaMessageParam>;
  t: Tail<TranscriptEntry>;
  s: Tail<number>;
}

interface Head {
  /** Log records that count, numbered from 0. */
  log: number;
  /** Transcript entries, so the list can be shown without reading the log. */
  entries: number;
  /** Everything but the lists (id, title, dates, and whatever fields later versions add). */
  meta: Record<string, unknown>;
}

const headKey = (id: string) => `conversations/${id}`;
/** Records per merged group. */
const GROUP = 32;
// Record n's slot: a slot is written again only after the head counts the merged group that holds its old record.
const recordKey = (id: string, n: number) => `conversation-log/${id}/${n % GROUP}`;
const groupKey = (id: string, g: number) => `conversation-log/${id}/g${g}`;
const recordPrefix = (id: string) => `conversation-log/${id}/`;
const damaged = () => m('errors:conversation.partMissing');

/** Where a conversation read from the vault stands in its log, so a save can append to it without reading it again. */
const loadedAt = new WeakMap<object, number>();

/** A conversation as stored, or `undefined` if there is none (or it was deleted); one in the earlier single-value layout included. */
export async function readConversation<C extends LoggedConversation>(vault: VaultApi, id: string): Promise<C | undefined> {
  const raw = await vault.internal.getJSON<Record<string, unknown>>(headKey(id));
  if (!raw) return undefined;
  if (isHead2(raw)) return read2<C>(vault, id, raw, (n) => readLog(vault, id, n));
  if (!isHead(raw)) return singleValue(raw, id) as unknown as C;
  const conv = { ...raw.meta, ...(await readLog(vault, id, raw.log)) } as unknown as C;
  loadedAt.set(conv, raw.log);
  return conv;
}

/** The lists of the single-writer log's first `log` records. */
async function readLog(vault: VaultApi, id: string, log: number): Promise<{ messages: BetaMessageParam[]; transcript: TranscriptEntry[]; turnStarts: number[] }> {
  const lists = { messages: [] as BetaMessageParam[], transcript: [] as TranscriptEntry[], turnStarts: [] as number[] };
  const groups = Math.floor(log / GROUP);
  const keys = [...Array.from({ length: groups }, (_, g) => groupKey(id, g)), ...Array.from({ length: log - groups * GROUP }, (_, i) => recordKey(id, groups * GROUP + i))];
  for (const key of keys) {
    const rec = await vault.internal.getJSON<LogRecord>(key);
    if (!rec) throw new VaultError('DAMAGED', damaged(), headKey(id));
    lists.messages = cut(lists.messages, rec.m);
    lists.transcript = cut(lists.transcript, rec.t);
    lists.turnStarts = cut(lists.turnStarts, rec.s);
  }
  return lists;
}

/** A conversation's other fields and its transcript's length, from the head alone (for the index). */
export async function readSummary(vault: VaultApi, id: string): Promise<{ meta: Record<string, unknown>; entries: number } | undefined> {
  const raw = await vault.internal.getJSON<Record<string, unknown>>(headKey(id));
  if (!raw) return undefined;
  if (isHead2(raw)) {
    if (raw.deleted) return undefined;
    if (typeof raw.entries === 'number') return { meta: raw.meta, entries: raw.entries };
    // Heads of two computers merged: the transcript's length is counted from their logs. A log that cannot be read
    // still lists (opening it says what is damaged): else one damaged conversation would stop the list and every save.
    try {
      const c = await read2<LoggedConversation>(vault, id, raw, (n) => readLog(vault, id, n));
      return c && { meta: raw.meta, entries: c.transcript.length };
    } catch (err) {
      if (err instanceof VaultError && err.code === 'DAMAGED') return { meta: raw.meta, entries: 0 };
      throw err;
    }
  }
  if (isHead(raw)) return { meta: raw.meta, entries: raw.entries };
  const { messages: _m, transcript, turnStarts: _s, ...meta } = singleValue(raw, id);
  return { meta, entries: transcript.length };
}

/**
 * `base`'s lists under the head's current other fields (a rename made since
 * it was read), if no save has changed the lists since; otherwise undefined
 * and the caller reads the conversation again.
 */
export async function reuse<C extends LoggedConversation>(vault: VaultApi, base: C): Promise<C | undefined> {
  const raw = await vault.internal.getJSON<Record<string, unknown>>(headKey(base.id));
  if (raw && isHead2(raw)) return reuse2(base, raw);
  const at = loadedAt.get(base);
  if (at === undefined) return undefined;
  if (!raw || !isHead(raw) || raw.log !== at) return undefined;
  const merged = { ...raw.meta, messages: base.messages, transcript: base.transcript, ...(base.turnStarts ? { turnStarts: base.turnStarts } : {}) } as unknown as C;
  loadedAt.set(merged, at);
  return merged;
}

/**
 * Stores `next`, made from `prev` (as read by readConversation or reuse;
 * `undefined` for a new one): one log record with what changed after the
 * lists' shared beginning, then the head. Callers serialise writes per vault.
 */
export async function writeConversation<C extends LoggedConversation>(vault: VaultApi, next: C, prev: C | undefined): Promise<void> {
  const at = prev ? loadedAt.get(prev) : undefined;
  // Several computers: each appends to its own log (conversation-log2.ts); this log, if any, is read as its beginning.
  if (vault.internal.scheme?.() === 2) return write2(vault, next, prev, at);
  const { messages, transcript, turnStarts = [], ...meta } = next;
  let log: number;
  if (prev === undefined || at === undefined) {
    // New, or still in the single-value layout: the whole conversation becomes record 0 (none while it is empty).
    log = messages.length || transcript.length || turnStarts.length ? 1 : 0;
    if (log) await putRecord(vault, next.id, 0, { m: { keep: 0, add: messages }, t: { keep: 0, add: transcript }, s: { keep: 0, add: turnStarts } });
  } else {
    log = at;
    const rec: LogRecord = { m: tail(prev.messages, messages), t: tail(prev.transcript, transcript), s: tail(prev.turnStarts ?? [], turnStarts) };
    const changed = rec.m.add.length || rec.t.add.length || rec.s.add.length || rec.m.keep < prev.messages.length || rec.t.keep < prev.transcript.length || rec.s.keep < (prev.turnStarts ?? []).length;
    if (changed) await putRecord(vault, next.id, log++, rec);
  }
  const filled = log > 0 && log % GROUP === 0 && log !== at ? log / GROUP - 1 : undefined;
  if (filled !== undefined) await vault.internal.putJSON(groupKey(next.id, filled), await merged(vault, next.id, filled));
  const head: Head = { log, entries: transcript.length, meta };
  await vault.internal.putJSON(headKey(next.id), head);
  loadedAt.set(next, log);
}

/** Group `g`'s records as one: applying it does what applying them in turn does. */
async function merged(vault: VaultApi, id: string, g: number): Promise<LogRecord> {
  let acc: LogRecord | undefined;
  for (let n = g * GROUP; n < (g + 1) * GROUP; n++) {
    const rec = await vault.internal.getJSON<LogRecord>(recordKey(id, n));
    if (!rec) throw new VaultError('DAMAGED', damaged(), headKey(id));
    acc = acc ? { m: compose(acc.m, rec.m), t: compose(acc.t, rec.t), s: compose(acc.s, rec.s) } : rec;
  }
  return acc!;
}

/** One cut-and-append doing what `a` then `b` do. */
function compose<T>(a: Tail<T>, b: Tail<T>): Tail<T> {
  if (b.keep <= a.keep) return b;
  return { keep: a.keep, add: [...a.add.slice(0, b.keep - a.keep), ...b.add] };
}

/**
 * Removes the head first, so a crash part-way leaves no half conversation, then its log. Several computers: the head
 * is marked deleted instead, with what this computer had read, so a turn another computer adds meanwhile comes back.
 */
export async function deleteConversation(vault: VaultApi, id: string): Promise<void> {
  if (vault.internal.scheme?.() === 2) {
    const raw = await vault.internal.getJSON<Record<string, unknown>>(headKey(id));
    if (raw && !(isHead2(raw) && raw.deleted)) await tombstone(vault, id, asHead2(raw));
  } else await vault.internal.delete(headKey(id));
  for (const key of vault.internal.keys(recordPrefix(id))) await vault.internal.delete(key);
}

/** Log records of conversations that are gone (a crash while deleting one). */
export function orphanedLogs(vault: VaultApi, ids: Iterable<string>): string[] {
  const live = new Set(ids);
  return vault.internal.keys('conversation-log/').filter((k) => !live.has(k.split('/')[1] ?? ''));
}

/**
 * Scheme 2: what a delete of conversation `id` cut short (a crash after its mark) left of its log, once the head is
 * still marked deleted: this computer's own keys (and the single-writer log's), and another computer's records and
 * merged groups the mark had seen. Another computer's later records may be the first part of a head that revives it
 * (records arrive before their head): those stay.
 */
export async function leftoversOfDeleted(vault: VaultApi, id: string): Promise<string[]> {
  const keys = vault.internal.keys(recordPrefix(id));
  if (!keys.length) return [];
  const raw = await vault.internal.getJSON<Record<string, unknown>>(headKey(id));
  if (!raw || !isHead2(raw) || !raw.deleted) return [];
  const seen = raw.deleted.seen ?? {};
  const out: string[] = [];
  for (const key of keys) {
    if (vault.internal.sweepable?.(key) ?? true) {
      out.push(key);
      continue;
    }
    const m = /^[^/]+\/[^/]+\/([^/]+)\/(g?)(\d+)$/.exec(key);
    if (!m) continue;
    const dev = m[1]!;
    const had = typeof seen[dev] === 'number' ? seen[dev] : 0;
    if (m[2]) {
      if ((Number(m[3]) + 1) * GROUP <= had) out.push(key);
      continue;
    }
    // A record's own number is its count of its writer's records.
    const rec = await vault.internal.getJSON<{ c?: Record<string, unknown> }>(key).catch(() => undefined);
    const n = rec?.c?.[dev];
    if (typeof n === 'number' && n < had) out.push(key);
  }
  return out;
}

/** Scheme 2: whether conversation `id`'s head is marked deleted (what is left of it is a delete cut short). */
export async function markedDeleted(vault: VaultApi, id: string): Promise<boolean> {
  const raw = await vault.internal.getJSON<Record<string, unknown>>(headKey(id));
  return raw !== undefined && isHead2(raw) && raw.deleted !== undefined;
}

/** A head of any layout as a scheme-2 one: a single-writer log as its beginning (a single value: nothing to keep). */
function asHead2(raw: Record<string, unknown>): Head2 {
  if (isHead2(raw)) return raw;
  if (isHead(raw)) return { v: 2, logs: {}, ...(raw.log ? { legacy: raw.log } : {}), entries: raw.entries, meta: raw.meta };
  const { messages: _m, transcript, turnStarts: _s, ...meta } = raw as unknown as LoggedConversation;
  return { v: 2, logs: {}, entries: transcript.length, meta };
}

/** `raw` as a conversation of the oldest layout (one value holding its lists); DAMAGED if it is no known shape (a head another build wrote wrong). */
function singleValue(raw: Record<string, unknown>, id: string): LoggedConversation {
  if (!Array.isArray(raw.messages) || !Array.isArray(raw.transcript) || (raw.turnStarts !== undefined && !Array.isArray(raw.turnStarts))) throw new VaultError('DAMAGED', damaged(), headKey(id));
  return raw as unknown as LoggedConversation;
}

function isHead(raw: Record<string, unknown>): raw is Record<string, unknown> & Head {
  return typeof raw.log === 'number' && typeof raw.meta === 'object' && raw.meta !== null;
}

async function putRecord(vault: VaultApi, id: string, n: number, rec: LogRecord): Promise<void> {
  await vault.internal.putJSON(recordKey(id, n), rec);
}

