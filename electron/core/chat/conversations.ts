/**
 * Conversations, stored encrypted in the vault's internal namespace where the
 * memory tool cannot reach them: per conversation a head and an append-only log
 * of its turns (conversation-log.ts), plus an index for listing without
 * decrypting every one.
 */
import { randomBytes } from 'node:crypto';
import type { AttachmentRef, ConversationSummary, TranscriptEntry } from '../../shared/chat';
import { VaultError, type VaultApi } from '../vault/types';
import { unlockOf, untilLock } from '../vault/until-lock';
import { FIRST_PROJECT_ID } from '../projects/store';
import { deleteConversation, leftoversOfDeleted, markedDeleted, orphanedLogs, readConversation, readSummary, reuse, writeConversation } from './conversation-log';
import { attachmentKey, attachmentPrefix, type AttachmentBytes } from './attachments-send';
import { branchAt, dropUnsent, FirstMessages, groupedVersionsOf, showVersion, unnamedTails, unsentFork, type Fork, type Tail, type TailStore } from './branches';
import type { VersionedStore } from './temporary';
import { contains, containsMarkdown, foldQuery, markdownSnippet, snippetOf, type Snippet } from '../search/text-match';
import { flagsOf, refuseRewindOfVersions, summaryOf, UNTITLED, withFlags, withModel, withoutLastExchange, type ConversationFlags, type StoredConversation } from './conversation-values';
import { m } from '../i18n/message';

export type { StoredConversation } from './conversation-values';

const INDEX = 'conversations-index';
/** An index entry; `hv` (several computers): the head's version it was made from, so another computer's change is seen. */
type Indexed = ConversationSummary & { hv?: string };
const headOf = (id: string) => `conversations/${id}`;
/** Where a conversation's stored version `k` (branches.ts) is kept, beside its log. */
const tailKeyOf = (id: string, k: string) => `conversation-log/${id}/b${k}`;
/** The most conversations one search returns (newest first); a longer query narrows it. */
export const MAX_CONVERSATION_HITS = 100;
/** A search hit: the conversation, a clean snippet of where the query is, and the matched ranges in it. */
export type ConversationHit = ConversationSummary & Snippet;

/** The project a conversation belongs to. */
export const projectOf = (c: { project?: string | undefined }): string => c.project ?? FIRST_PROJECT_ID;

const ID = /^[0-9a-f]{16,32}$/;
function checkId(id: string): void {
  if (!ID.test(id)) throw new VaultError('INVALID', m('errors:conversation.badId'));
}

/**
 * One write queue per vault, shared by every Conversations object on it (the
 * UI and a turn each make their own): a rename, a delete and a turn saving its
 * reply are each a read-modify-write of the same value and of the index.
 */
const queues = new WeakMap<VaultApi, Promise<unknown>>();
/** Per unlocked vault, the first message of each stored version (digests), forgotten when the vault locks. */
const firstMessages = new WeakMap<VaultApi, FirstMessages>();
const firstMessagesOf = (vault: VaultApi): FirstMessages => untilLock(vault, firstMessages, vault, () => new FirstMessages());

/**
 * Per vault, the unlock in which its index was checked against every
 * conversation's head: a save writes the head before the index, so a crash (or
 * a lock) between the two leaves an entry with the old title, flags, count or
 * date that no later read would otherwise notice.
 */
const checked = new WeakMap<VaultApi, object>();
/** Per vault, the unlock in which its orphaned conversation logs were looked for (see `sweep`). */
const swept = new WeakMap<VaultApi, object>();

/** Create, list, read, save, rename, delete and search conversations. */
export class Conversations implements AttachmentBytes, VersionedStore {
  constructor(private readonly vault: VaultApi) {}

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = (queues.get(this.vault) ?? Promise.resolve()).then(fn, fn);
    queues.set(this.vault, run.catch(() => undefined));
    return run;
  }

  /** A new, empty conversation in `project` (default: the first project). */
  async create(opts: { project?: string; model?: string } = {}): Promise<StoredConversation> {
    const now = Date.now();
    const c: StoredConversation = { id: randomBytes(8).toString('hex'), title: UNTITLED, created: now, updated: now, messages: [], transcript: [], ...(opts.project ? { project: opts.project } : {}), ...(opts.model ? { model: opts.model } : {}) };
    await this.save(c);
    return c;
  }

  /** Newest first. */
  async list(): Promise<ConversationSummary[]> {
    if (swept.get(this.vault) !== unlockOf(this.vault)) await this.sweep();
    const index = await this.index();
    return Object.values(index)
      .map(({ hv: _hv, ...summary }) => summary)
      .sort((a, b) => b.updated - a.updated);
  }

  async get(id: string): Promise<StoredConversation | undefined> {
    checkId(id);
    return readConversation<StoredConversation>(this.vault, id);
  }

  async require(id: string): Promise<StoredConversation> {
    const c = await this.get(id);
    if (!c) throw new VaultError('NOT_FOUND', m('errors:conversation.gone'));
    return c;
  }

  /** Stores `c` whole (a new conversation). */
  async save(c: StoredConversation): Promise<void> {
    await this.serial(() => this.write(c, undefined));
  }

  /**
   * Reads, changes and stores one conversation without another write coming in
   * between. Undefined (nothing stored) if it is gone. `base`, the conversation
   * as read earlier (by a turn when it began), spares reading it again when no
   * save has changed it since; only what `change` adds is written either way.
   */
  async update(id: string, change: (c: StoredConversation) => StoredConversation, base?: StoredConversation): Promise<StoredConversation | undefined> {
    return this.serial(async () => {
      const c = (base && base.id === id ? await reuse(this.vault, base) : undefined) ?? (await this.get(id));
      if (!c) return undefined;
      const next = change(c);
      await this.write(next, c);
      return next;
    });
  }

  private async write(c: StoredConversation, prev: StoredConversation | undefined): Promise<void> {
    checkId(c.id);
    await writeConversation(this.vault, c, prev);
    // Several computers: the head changed, so index() has read its entry again from the head as written, which may
    // be a merge with another computer's that arrived meanwhile (more turns than `c` holds). One writer: from `c`.
    const index = await this.index();
    if (this.vault.internal.scheme?.() !== 2) index[c.id] = summaryOf(c);
    await this.vault.internal.putJSON((await this.indexKey(true))!, index);
  }

  async rename(id: string, title: string): Promise<void> {
    const clean = title.replace(/\s+/g, ' ').trim().slice(0, 200);
    if (!clean) throw new VaultError('INVALID', m('errors:conversation.needsTitle'));
    const done = await this.update(id, (c) => ({ ...c, title: clean }));
    if (!done) throw new VaultError('NOT_FOUND', m('errors:conversation.gone'));
  }

  /** Sets the model this conversation's next turns use; undefined goes back to the one in Settings. */
  async setModel(id: string, model: string | undefined): Promise<void> {
    const done = await this.update(id, (c) => withModel(c, model));
    if (!done) throw new VaultError('NOT_FOUND', m('errors:conversation.gone'));
  }

  /**
   * Pins or unpins, archives or unarchives. `updated` stays as it was: the
   * conversation keeps its place by its last message, not by when it was pinned.
   */
  async setFlags(id: string, flags: ConversationFlags): Promise<void> {
    const done = await this.update(id, (c) => withFlags(c, flags));
    if (!done) throw new VaultError('NOT_FOUND', m('errors:conversation.gone'));
  }

  async delete(id: string): Promise<void> {
    checkId(id);
    await this.serial(async () => {
      await deleteConversation(this.vault, id);
      const index = await this.index();
      delete index[id];
      // Its attachments, after the head: a crash in between leaves bytes no conversation refers to, swept below next time.
      for (const key of this.vault.internal.keys(attachmentPrefix(id))) await this.vault.internal.delete(key);
      // Also the log and attachments of any conversation whose deletion a crash cut short (inside the queue: no save is half done).
      for (const key of await this.orphans(new Set(Object.keys(index)))) await this.vault.internal.delete(key);
      await this.vault.internal.putJSON((await this.indexKey(true))!, index);
    });
  }

  /**
   * Takes back the last exchange (the user's message and Claude's reply) so the
   * user can edit and send it again; returns the user's text. Memory changes the
   * reply made stay made: they are in the vault and its history.
   */
  async rewindLast(id: string): Promise<string> {
    return this.serial(async () => {
      const c = await this.require(id);
      refuseRewindOfVersions(c);
      const { text, rest } = withoutLastExchange(c);
      await this.write(rest, c);
      return text;
    });
  }

  /**
   * Sets exchange `at` (0 = the first message) and everything after it aside
   * as a version and cuts the conversation before it, for the turn that makes
   * the new version; returns that exchange's message and the version shown
   * before (for `dropUnsent` if the turn is not sent).
   */
  async branch(id: string, at: number, by: Fork['by']): Promise<{ message: { text: string; attachments: AttachmentRef[] }; before: number }> {
    return this.serial(async () => {
      const c = await this.require(id);
      const { next, message, before, release } = await branchAt(c, at, by, this.tails(id));
      await this.write(next, c);
      if (release) await this.tails(id).remove(release);
      return { message, before };
    });
  }

  /** Shows version `version` (0-based) of the message at exchange `at`; the one shown until now stays as a version. */
  async showVersion(id: string, at: number, version: number): Promise<StoredConversation> {
    return this.serial(async () => {
      const c = await this.require(id);
      const { next, release } = await showVersion(c, at, version, this.tails(id));
      if (next === c) return c;
      await this.write(next, c);
      if (release) await this.tails(id).remove(release);
      return next;
    });
  }

  /** The versions the window shows of `c` (conversation `id`), grouped by message (groupedVersionsOf). */
  versionsShown(id: string, c: StoredConversation): ReturnType<typeof groupedVersionsOf> {
    return groupedVersionsOf(c, this.tails(id), firstMessagesOf(this.vault));
  }

  /** Undoes `branch` when its turn was not sent: version `before` is shown again and the empty new one goes. */
  async dropUnsent(id: string, at: number, before: number): Promise<void> {
    await this.takeBack(id, () => ({ at, before }));
  }

  /**
   * Shows again the version a new one was made from when that new one was
   * never sent (unsentFork: a crash or a lock cut the send short); true if
   * there was one. Call only while no turn runs in the conversation: a turn
   * that is sending its new version looks the same until it saves.
   */
  async restoreUnsent(id: string): Promise<boolean> {
    return this.takeBack(id, unsentFork);
  }

  private async takeBack(id: string, which: (c: StoredConversation) => { at: number; before: number } | undefined): Promise<boolean> {
    return this.serial(async () => {
      const c = await this.get(id);
      const unsent = c && which(c);
      const done = unsent && (await dropUnsent(c, unsent.at, unsent.before, this.tails(id)));
      if (!c || !done) return false;
      await this.write(done.next, c);
      if (done.release) await this.tails(id).remove(done.release);
      return true;
    });
  }

  /** The stored tails of a conversation's other versions, beside its log (deleted with it). */
  private tails(id: string): TailStore {
    checkId(id);
    const key = (k: string) => {
      if (!/^[0-9a-f]{16}$/.test(k)) throw new VaultError('DAMAGED', m('errors:conversation.badVersionName'));
      return tailKeyOf(id, k);
    };
    const internal = this.vault.internal;
    return { put: (k, tail) => internal.putJSON(key(k), tail), get: (k) => internal.getJSON<Tail>(key(k)), remove: (k) => internal.delete(key(k)) };
  }

  /**
   * Removes what a crash while deleting left of a conversation's log (its turns
   * stayed in the vault until another deletion). In the write queue, so a new
   * conversation's first record, written before its head, is never taken for one.
   */
  private async sweep(): Promise<void> {
    const unlock = unlockOf(this.vault);
    await this.serial(async () => {
      // Once per unlock: every head with a log is looked at (not the index: its check against the heads is list's).
      for (const key of await this.orphans(new Set())) await this.vault.internal.delete(key);
      // Several computers: a version made on one is named by a head another may merge away (its `forks` are one
      // field); kept, never taken for a crash's leftover (docs/sync-design.md §12.4).
      if (this.vault.internal.scheme?.() !== 2) await this.sweepTails();
    });
    swept.set(this.vault, unlock);
  }

  /**
   * Removes the stored versions nothing names (see unnamedTails: what a crash
   * between a version's writes leaves). A conversation whose versions cannot
   * be read is left as it is: opening it says what is damaged.
   */
  private async sweepTails(): Promise<void> {
    const byId = new Map<string, string[]>();
    for (const key of this.vault.internal.keys('conversation-log/')) {
      const m = /^conversation-log\/([0-9a-f]{16,32})\/b([0-9a-f]{16})$/.exec(key);
      if (m) byId.set(m[1]!, [...(byId.get(m[1]!) ?? []), m[2]!]);
    }
    for (const [id, stored] of byId) {
      try {
        const head = await readSummary(this.vault, id);
        const forks = (head?.meta.forks ?? []) as Fork[];
        for (const k of await unnamedTails(forks, stored, this.tails(id))) await this.tails(id).remove(k);
      } catch (err) {
        if (!(err instanceof VaultError)) throw err;
      }
    }
  }

  /** Log records and attachments of conversations whose head is gone (or, several computers, marked deleted); `listed`: ids the index holds. */
  private async orphans(listed: ReadonlySet<string>): Promise<string[]> {
    const ids = this.vault.internal.keys('conversations/').map((k) => k.slice('conversations/'.length));
    const live = new Set(ids);
    const attachments = this.vault.internal.keys('attachments/').filter((k) => !live.has(k.split('/')[1] ?? ''));
    // Several computers: another's records and attachments arrive before their head; only what was written here goes.
    const out = [...orphanedLogs(this.vault, ids), ...attachments].filter((k) => this.vault.internal.sweepable?.(k) ?? true);
    if (this.vault.internal.scheme?.() !== 2) return out;
    // A delete there leaves its head, marked: what a crash after the mark left is found by the mark (leftoversOfDeleted).
    const logged = new Set(this.vault.internal.keys('conversation-log/').map((k) => k.split('/')[1] ?? ''));
    for (const id of ids) {
      // Listed: its head is live (the index is checked against the heads), so nothing to look for.
      if (listed.has(id)) continue;
      const files = this.vault.internal.keys(attachmentPrefix(id));
      if (!logged.has(id) && !files.length) continue;
      // A crash after the log was removed but before the attachments: the mark alone says they are left over.
      const left = logged.has(id) ? await leftoversOfDeleted(this.vault, id) : [];
      if (!left.length && (logged.has(id) || !(await markedDeleted(this.vault, id)))) continue;
      out.push(...left, ...files.filter((k) => this.vault.internal.sweepable?.(k) ?? true));
    }
    return out;
  }

  /**
   * Stores one attachment's bytes, encrypted, as its own value kept with the
   * conversation. Written before the message that refers to it, so a crash
   * between the two leaves only bytes nothing refers to (removed with the
   * conversation), never a message whose attachment is missing.
   */
  async putAttachment(conversationId: string, attachmentId: string, bytes: Uint8Array): Promise<void> {
    checkId(conversationId);
    checkId(attachmentId);
    await this.vault.internal.put(attachmentKey(conversationId, attachmentId), bytes);
  }

  /**
   * Removes the conversation's stored attachments that no message names: bytes
   * a power cut left between storing them and the message that refers to them,
   * or those of a message taken back and not sent again. In the write queue, so
   * it never runs between another save's steps of this store.
   */
  async pruneAttachments(conversationId: string, keep: ReadonlySet<string>): Promise<void> {
    checkId(conversationId);
    const prefix = attachmentPrefix(conversationId);
    await this.serial(async () => {
      for (const key of this.vault.internal.keys(prefix)) {
        // Another computer's attachment may belong to a message of it that has not arrived yet.
        if (!keep.has(key.slice(prefix.length)) && (this.vault.internal.sweepable?.(key) ?? true)) await this.vault.internal.delete(key);
      }
    });
  }

  /** One attachment's bytes, or undefined if there is none by that id in that conversation. */
  async getAttachment(conversationId: string, attachmentId: string): Promise<Uint8Array | undefined> {
    checkId(conversationId);
    checkId(attachmentId);
    return this.vault.internal.get(attachmentKey(conversationId, attachmentId));
  }

  /**
   * Conversations whose title or messages contain `query`, ignoring case and
   * accents (see search/text-match.ts), newest first, each with a clean snippet
   * of its first hit (the title's when the title matches) and the ranges to mark.
   */
  async search(query: string, limit = MAX_CONVERSATION_HITS): Promise<ConversationHit[]> {
    const q = foldQuery(query);
    if (!q) return [];
    const hits: ConversationHit[] = [];
    for (const summary of await this.list()) {
      // Enough to choose from: decrypting every other conversation would only make a short query slow.
      if (hits.length >= limit) break;
      const c = await this.get(summary.id);
      if (!c) continue;
      const hit = contains(c.title, q) ? snippetOf(c.title, q) : firstHit(c.transcript, q);
      if (hit) hits.push({ ...summary, ...hit });
    }
    return hits;
  }

  /**
   * Where the index is kept: one value (one writer), or this computer's own cache (several computers: each keeps its
   * own, never merged with another's, its entries checked against the heads' versions). Undefined: none kept here yet.
   */
  private async indexKey(create: boolean): Promise<string | undefined> {
    if (this.vault.internal.scheme?.() !== 2) return INDEX;
    const device = await this.vault.internal.device?.(create);
    return device ? `cache/${device}/conversations-index` : undefined;
  }

  /**
   * The index, rebuilt for any conversation it is missing, and on the first use
   * of this vault checked against every head (a crash between the head and the
   * index of a save leaves a stale entry: the head is what opens).
   */
  private async index(): Promise<Record<string, Indexed>> {
    const key = await this.indexKey(false);
    const index = (key && (await this.vault.internal.getJSON<Record<string, Indexed>>(key))) || {};
    const stored = this.vault.internal.keys('conversations/').map((k) => k.slice('conversations/'.length));
    // Taken before the reads: a lock while they run leaves the next unlock to check again.
    const unlock = unlockOf(this.vault);
    const checkAll = checked.get(this.vault) !== unlock;
    for (const id of stored) {
      const hv = this.vault.internal.version?.(headOf(id));
      if (index[id] && !checkAll && index[id].hv === hv) continue;
      let s: Awaited<ReturnType<typeof readSummary>>;
      try {
        s = await readSummary(this.vault, id);
      } catch (e) {
        // Its head cannot be read now (several computers: its bytes still arriving, say moved by the other computer's
        // compaction before the checkpoint naming their new place came): its entry stays as last read, read again next
        // time, and opening it says what is wrong. Else it would stop the list, and every save after its data is stored.
        if (!(e instanceof VaultError && e.code === 'DAMAGED')) throw e;
        if (index[id]) index[id] = { ...index[id], hv: undefined };
        continue;
      }
      // None: deleted (several computers: the head stays, marked deleted).
      if (!s) delete index[id];
      else index[id] = { id, title: String(s.meta.title), created: Number(s.meta.created), updated: Number(s.meta.updated), messageCount: s.entries, ...(typeof s.meta.project === 'string' ? { project: s.meta.project } : {}), ...flagsOf(s.meta), ...(hv ? { hv } : {}) };
    }
    // (A set: an array's `includes` here made every save and list n × n comparisons.)
    const present = new Set(stored);
    for (const id of Object.keys(index)) if (!present.has(id)) delete index[id];
    checked.set(this.vault, unlock);
    return index;
  }
}

/** The first transcript entry containing folded query `q`, as a snippet of the text it shows. */
function firstHit(transcript: TranscriptEntry[], q: string): Snippet | undefined {
  for (const e of transcript) if (containsMarkdown(e.text, q)) return markdownSnippet(e.text, q);
  return undefined;
}
