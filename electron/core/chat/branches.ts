/**
 * Versions of a conversation: regenerating a reply or editing an earlier
 * message starts a new version from that exchange on, and every earlier
 * version stays reachable. A conversation is a tree; what the lists hold
 * (API history, transcript, turn starts) is the path shown, so a turn, the
 * context meter, export and search work on it as before, and a save still
 * writes only its own exchange (conversation-log.ts).
 *
 * Each fork keeps, besides the version shown, the other versions' tails
 * (everything from the fork's exchange on, forks further down included) as
 * one immutable value each, stored beside the conversation's log. The head
 * holds only the forks' small records, so a turn's save costs what it did.
 * Showing another version puts the asked one in the lists and keeps its
 * stored value as the fork's `kept` copy; switching away from it again
 * stores nothing while it is unchanged (its digest says so), else stores it
 * anew and lets go of the stale copy once the head is written. A crash in
 * between leaves a value nothing names (unnamedTails finds it), never a
 * version lost. The asked version's own entries still go into the log whole:
 * the log holds the lists themselves (see README, "Versions").
 */
import { createHash, randomBytes } from 'node:crypto';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { AttachmentRef, TranscriptEntry } from '../../shared/chat';
import { VaultError } from '../vault/types';
import { m } from '../i18n/message';

/** A place where the conversation has more than one version: from exchange `at` (0 = the first message) on. */
export interface Fork {
  at: number;
  /** Which version the lists hold (0-based, oldest first). */
  shown: number;
  /** Per version, the key of its stored tail; null for the one shown (it is in the lists). */
  versions: Array<string | null>;
  /** How the versions were made: an edit shows the switch on the message, a regeneration on the reply. */
  by: 'edit' | 'regenerate';
  /** Attachment ids the stored versions name, so pruning the ones no message names keeps theirs. */
  files?: string[];
  /**
   * Set when a new version is made, until it is shown or left: the version shown before and how the fork
   * was made until then, which come back if the new version is never sent.
   */
  unsent?: { before: number; by: Fork['by'] };
  /**
   * The stored value of the version shown, as it was when it was last shown,
   * and its digest (tailDigest): set aside unchanged, it is named again
   * instead of stored again. Absent on forks written before it was kept.
   */
  kept?: { key: string; digest: string };
}

/** One version's tail: the lists from its exchange on, and the forks further down it. */
export interface Tail {
  messages: BetaMessageParam[];
  transcript: TranscriptEntry[];
  turnStarts: number[];
  forks: Fork[];
}

/** Where tails are kept: the vault for a stored conversation, memory for a temporary chat. */
export interface TailStore {
  put(key: string, tail: Tail): Promise<void>;
  get(key: string): Promise<Tail | undefined>;
  remove(key: string): Promise<void>;
}

/** What a conversation needs for versions (StoredConversation has it). */
export interface Branchable {
  messages: BetaMessageParam[];
  transcript: TranscriptEntry[];
  turnStarts?: number[];
  forks?: Fork[];
  updated: number;
}

/** The most versions one message keeps: past it, a new one is refused rather than growing the head without bound. */
export const MAX_VERSIONS = 100;
const missing = () => m('errors:versions.missing');

/** Where exchange `at` begins: its user entry in the transcript and its user message in the API history. */
export function exchangeAt(c: Branchable, at: number): { entry: number; message: number } {
  const { entry, message } = located(c, at);
  return { entry, message };
}

/** As exchangeAt, with the index of the exchange's turn start (turnStarts[start] = message). */
function located(c: Branchable, at: number): { entry: number; message: number; start: number } {
  const users = c.transcript.flatMap((e, i) => (e.role === 'user' ? [i] : []));
  const starts = c.turnStarts ?? [];
  // Conversations stored before turn starts were kept have them for their later exchanges only.
  const offset = users.length - starts.length;
  const entry = users[at];
  const message = starts[at - offset];
  if (!Number.isInteger(at) || entry === undefined || message === undefined) {
    throw new VaultError('INVALID', at >= 0 && at < users.length ? m('errors:versions.tooOld') : m('errors:versions.noMessage'));
  }
  // By position, never by value: a refused exchange's message is left out of the history, so it and the next share one.
  return { entry, message, start: at - offset };
}

/** The exchange whose user message is transcript entry `entry` (what the window names). */
export function exchangeOfEntry(c: Branchable, entry: number): number {
  if (c.transcript[entry]?.role !== 'user') throw new VaultError('INVALID', m('errors:versions.noMessage'));
  return c.transcript.slice(0, entry).filter((e) => e.role === 'user').length;
}

/** `c` cut before exchange `at`, and what was cut (forks of that exchange and before stay with `c`). */
function cutAt<C extends Branchable>(c: C, at: number): { kept: C; tail: Tail } {
  const { entry, message, start: startIndex } = located(c, at);
  const starts = c.turnStarts ?? [];
  const forks = c.forks ?? [];
  return {
    kept: { ...c, messages: [...c.messages.slice(0, message), ...resultsBefore(c.messages[message])], transcript: c.transcript.slice(0, entry), turnStarts: starts.slice(0, startIndex), forks: forks.filter((f) => f.at <= at) },
    tail: { messages: c.messages.slice(message), transcript: c.transcript.slice(entry), turnStarts: starts.slice(startIndex), forks: forks.filter((f) => f.at > at) },
  };
}

/**
 * The tool results a message begins with, as a message of their own. After a
 * reply stopped by the round limit (or by Stop), the user's next words join the
 * message holding the results of its last calls: those belong to the exchange
 * before, so they stay with it (otherwise the new version would tell Claude its
 * calls were stopped). The next turn's words join this message again.
 */
function resultsBefore(m: BetaMessageParam | undefined): BetaMessageParam[] {
  if (m?.role !== 'user' || typeof m.content === 'string') return [];
  const end = m.content.findIndex((b) => b.type !== 'tool_result');
  const results = end < 0 ? m.content : m.content.slice(0, end);
  return results.length ? [{ role: 'user', content: results }] : [];
}

/** `kept` with `tail` put back after it (the tail's messages begin at its first turn start: kept's results-only message, if any, is in it). */
function joined<C extends Branchable>(kept: C, tail: Tail): C {
  const from = tail.turnStarts[0] ?? kept.messages.length;
  return { ...kept, messages: [...kept.messages.slice(0, from), ...tail.messages], transcript: [...kept.transcript, ...tail.transcript], turnStarts: [...(kept.turnStarts ?? []), ...tail.turnStarts], forks: [...(kept.forks ?? []), ...tail.forks].sort((a, b) => a.at - b.at) };
}

/** `c` without an empty forks list, so a conversation that never had versions is stored as before. */
function tidy<C extends Branchable>(c: C): C {
  if (c.forks?.length) return c;
  const { forks: _none, ...rest } = c;
  return rest as C;
}

function filesOf(tail: Tail): string[] {
  const ids = new Set<string>();
  for (const e of tail.transcript) if (e.role === 'user') for (const a of e.attachments ?? []) ids.add(a.id);
  for (const f of tail.forks) for (const id of f.files ?? []) ids.add(id);
  return [...ids];
}

/** Every attachment id `c` names, in the version shown or in any other: what pruning must keep. */
export function keptAttachments(c: Branchable): Set<string> {
  return new Set(filesOf({ messages: [], transcript: c.transcript, turnStarts: [], forks: c.forks ?? [] }));
}

export const newTailKey = (): string => randomBytes(8).toString('hex');

/** A digest of `tail`'s content, the same for equal content whatever the order of its objects' fields. */
export function tailDigest(tail: Tail): string {
  const sorted = (_k: string, v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v;
  // 128 bits in 22 characters: the head holds one per fork and is written at every turn.
  return createHash('sha256').update(JSON.stringify(tail, sorted)).digest().subarray(0, 16).toString('base64url');
}

/** `f` without the kept copy of its version shown (a new version is shown, or another one's copy goes in). */
function withoutCopy(f: Fork): Fork {
  const { kept: _copy, ...rest } = f;
  return rest;
}

/**
 * Sets `tail`, the version shown of `fork` (if any), aside: its kept copy when
 * that is unchanged (nothing written), else a new stored value, and then the
 * stale copy is the one to let go of once the head is written.
 */
async function setAside(fork: Fork | undefined, tail: Tail, tails: TailStore): Promise<{ key: string; release?: string }> {
  if (fork?.kept && fork.kept.digest === tailDigest(tail)) return { key: fork.kept.key };
  const key = newTailKey();
  // Stored first: the head that names it is written after, by the caller.
  await tails.put(key, tail);
  return fork?.kept ? { key, release: fork.kept.key } : { key };
}

/**
 * Sets exchange `at` and all after it aside as a version, leaving `c` cut
 * before it, ready for the turn that makes the new version. The user's
 * message of that exchange comes back (a regeneration sends it again).
 * `release` is the stored value to remove once the result is written.
 */
export async function branchAt<C extends Branchable>(c: C, at: number, by: Fork['by'], tails: TailStore): Promise<{ next: C; message: { text: string; attachments: AttachmentRef[] }; before: number; release?: string }> {
  const { kept, tail } = cutAt(c, at);
  const user = tail.transcript[0];
  if (user?.role !== 'user') throw new VaultError('INVALID', m('errors:versions.noMessage'));
  const fork = kept.forks?.find((f) => f.at === at);
  if (fork && fork.versions.length >= MAX_VERSIONS) throw new VaultError('INVALID', m('errors:versions.tooMany', { count: MAX_VERSIONS }));
  const { key, release } = await setAside(fork, tail, tails);
  const files = [...new Set([...(fork?.files ?? []), ...filesOf(tail)])];
  // The new version shown has no stored copy yet.
  const made: Fork = fork
    ? { ...withoutCopy(fork), versions: [...fork.versions.map((v, i) => (i === fork.shown ? key : v)), null], shown: fork.versions.length, by: by === 'edit' || fork.by === 'edit' ? 'edit' : 'regenerate', ...(files.length ? { files } : {}), unsent: { before: fork.shown, by: fork.by } }
    : { at, shown: 1, versions: [key, null], by, ...(files.length ? { files } : {}), unsent: { before: 0, by } };
  // `updated` stays: the conversation moves up the list when the new version's turn is saved, not if it is never sent.
  const next = { ...kept, forks: [...(kept.forks ?? []).filter((f) => f.at !== at), made].sort((a, b) => a.at - b.at) };
  return { next, message: { text: user.text, attachments: user.attachments ?? [] }, before: fork?.shown ?? 0, ...(release ? { release } : {}) };
}

/**
 * `c` showing version `version` of the fork at exchange `at`. The version
 * shown until now is set aside (setAside), unless it is empty (a new version
 * whose message was never sent, or a crash before its reply): that one goes.
 * The asked version's stored value stays, as the fork's kept copy.
 * `release` is the stored value to remove once the result is written.
 */
export async function showVersion<C extends Branchable>(c: C, at: number, version: number, tails: TailStore): Promise<{ next: C; release?: string }> {
  const fork = c.forks?.find((f) => f.at === at);
  if (!fork) throw new VaultError('INVALID', m('errors:versions.none'));
  if (!Number.isInteger(version) || version < 0 || version >= fork.versions.length) throw new VaultError('INVALID', m('errors:versions.noSuch', { version: version + 1, count: fork.versions.length }));
  if (version === fork.shown) return { next: c };
  const asked = fork.versions[version]!;
  const target = await tails.get(asked);
  if (!target) throw new VaultError('DAMAGED', missing());
  // The fork's exchange may be cut from the lists (a new version not sent yet): then the lists end where it begins.
  const users = c.transcript.filter((e) => e.role === 'user').length;
  const { kept, tail } = users > at ? cutAt(c, at) : { kept: { ...c, forks: (c.forks ?? []).filter((f) => f.at <= at) }, tail: { messages: [], transcript: [], turnStarts: [], forks: [] } };
  const { unsent, ...made } = withoutCopy(fork);
  const versions = [...fork.versions];
  let shown = version;
  let release: string | undefined;
  // An empty version goes, and with it what making it changed: an edit never sent leaves a regenerated reply's fork as it was.
  if (tail.transcript.length === 0 && unsent && fork.shown === versions.length - 1) made.by = unsent.by;
  if (tail.transcript.length === 0) {
    versions.splice(fork.shown, 1);
    if (fork.shown < version) shown--;
  } else {
    const aside = await setAside(fork, tail, tails);
    versions[fork.shown] = aside.key;
    release = aside.release;
  }
  versions[shown] = null;
  const others = (kept.forks ?? []).filter((f) => f.at !== at);
  const files = [...new Set([...(fork.files ?? []), ...filesOf(tail)])];
  // With one version left there is no fork, and nothing to keep a copy of.
  if (versions.length <= 1) return { next: tidy(joined({ ...kept, forks: others }, target)), release: asked };
  const forks = [...others, { ...made, versions, shown, ...(files.length ? { files } : {}), kept: { key: asked, digest: tailDigest(target) } }];
  // `updated` stays, as for a pin: showing another version is no new message, so the list keeps its order.
  return { next: tidy(joined({ ...kept, forks }, target)), ...(release ? { release } : {}) };
}

/**
 * Takes back a new version that was never sent (the turn refused before
 * sending): version `before`, shown until then, comes back and the empty one
 * goes. Undefined when there is nothing to take back (it was sent after all).
 */
export async function dropUnsent<C extends Branchable>(c: C, at: number, before: number, tails: TailStore): Promise<{ next: C; release?: string } | undefined> {
  const fork = c.forks?.find((f) => f.at === at);
  const users = c.transcript.filter((e) => e.role === 'user').length;
  if (!fork || users > at || before >= fork.versions.length || before === fork.shown) return undefined;
  return showVersion(c, at, before, tails);
}

/**
 * A fork whose new version was never sent and never taken back (the app quit
 * or crashed, or the vault locked, between setting the version shown aside
 * and the turn's save): the lists end where its exchange begins, so the window
 * could not show its versions. `before` is the version shown before it was made, to show again.
 */
export function unsentFork(c: Branchable): { at: number; before: number } | undefined {
  const users = c.transcript.filter((e) => e.role === 'user').length;
  const fork = c.forks?.find((f) => f.at >= users && f.versions.length > 1);
  if (!fork) return undefined;
  const last = fork.versions.length - 1;
  return { at: fork.at, before: fork.unsent?.before ?? (fork.shown === last ? last - 1 : last) };
}

/**
 * The stored tails that nothing names, of the keys `stored` beside a
 * conversation whose head holds `forks`. A crash between storing a tail and
 * writing the head that names it, or between writing a head and removing the
 * tail it let go of, leaves one; each is a copy of what the lists or another
 * version hold, so removing it loses nothing. Forks inside stored versions
 * name tails too: those are read only while some stored key is not named yet.
 */
export async function unnamedTails(forks: readonly Fork[], stored: readonly string[], tails: Pick<TailStore, 'get'>): Promise<string[]> {
  const named = new Set<string>();
  const open = (fs: readonly Fork[]): string[] => {
    const inner: string[] = [];
    // A kept copy is named too; the forks inside it are those of the version shown (or, if it went stale, of nothing that can come back).
    for (const f of fs) if (f.kept) named.add(f.kept.key);
    for (const k of fs.flatMap((f) => f.versions)) {
      if (!k || named.has(k)) continue;
      named.add(k);
      inner.push(k);
    }
    return inner;
  };
  const unnamed = () => stored.filter((k) => !named.has(k));
  for (let next = open(forks); next.length && unnamed().length; ) {
    const key = next.shift()!;
    const tail = stored.includes(key) ? await tails.get(key) : undefined;
    if (tail) next.push(...open(tail.forks));
  }
  return unnamed();
}

/** The versions the window shows: per fork, the transcript index of its message, the version shown, how many there are. */
export function versionsOf(c: Branchable): Array<{ entry: number; shown: number; count: number; by: Fork['by'] }> {
  const users = c.transcript.flatMap((e, i) => (e.role === 'user' ? [i] : []));
  return (c.forks ?? []).flatMap((f) => {
    const entry = users[f.at];
    return entry === undefined ? [] : [{ entry, shown: f.shown, count: f.versions.length, by: f.by }];
  });
}

/** What makes two versions the same message: its words and its attachments. */
const messageKey = (e: TranscriptEntry | undefined): string | undefined => (e?.role === 'user' ? JSON.stringify([e.text, (e.attachments ?? []).map((a) => a.id)]) : undefined);

/**
 * Which message each stored version begins with, remembered by tail key so that opening a conversation does
 * not read (decrypt and parse) every stored version again: a tail's key names one value, never rewritten.
 * It holds salted digests, not words; its owner drops it with the unlocked vault (conversations.ts).
 */
export class FirstMessages {
  private readonly salt = randomBytes(16);
  private readonly byTail = new Map<string, string>();

  /** The digest of `e`'s message key, comparable with the remembered ones. */
  digest(e: TranscriptEntry | undefined): string | undefined {
    const key = messageKey(e);
    return key === undefined ? undefined : createHash('sha256').update(this.salt).update(key).digest('base64');
  }

  async of(key: string, tails: Pick<TailStore, 'get'>): Promise<string | undefined> {
    const known = this.byTail.get(key);
    if (known !== undefined) return known;
    // A store may throw before it answers (a name it refuses): that too is a tail that cannot be read now.
    const tail = await Promise.resolve()
      .then(() => tails.get(key))
      .catch(() => undefined);
    const digest = this.digest(tail?.transcript[0]);
    // A tail that cannot be read now is not remembered: it is read again next time.
    if (digest !== undefined) this.byTail.set(key, digest);
    return digest;
  }
}

/**
 * versionsOf, with each fork's versions grouped by the message they begin
 * with (`groups[v]`: the message version of version `v`, 0-based in the order
 * the messages were first written). Regenerating adds a version with the same
 * message, so it is another reply of that message version, not another
 * version of the message; an edit adds a version with a new message. Read
 * from the stored tails: the head is written as before, and conversations
 * stored before this read the same way. A tail that cannot be read counts as
 * a message version of its own.
 */
export async function groupedVersionsOf(c: Branchable, tails: Pick<TailStore, 'get'>, firsts = new FirstMessages()): Promise<Array<ReturnType<typeof versionsOf>[number] & { groups: number[] }>> {
  const users = c.transcript.flatMap((e, i) => (e.role === 'user' ? [i] : []));
  const out: Array<ReturnType<typeof versionsOf>[number] & { groups: number[] }> = [];
  for (const f of c.forks ?? []) {
    const entry = users[f.at];
    if (entry === undefined) continue;
    const seen = new Map<string, number>();
    const groups: number[] = [];
    for (const [v, k] of f.versions.entries()) {
      const first = v === f.shown ? firsts.digest(c.transcript[entry]) : k ? await firsts.of(k, tails) : undefined;
      const key = first ?? `missing ${v}`;
      if (!seen.has(key)) seen.set(key, seen.size);
      groups.push(seen.get(key)!);
    }
    out.push({ entry, shown: f.shown, count: f.versions.length, by: f.by, groups });
  }
  return out;
}
